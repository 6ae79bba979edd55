package org.mpirunft.npb.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.mpirunft.common.Names;
import org.mpirunft.npb.NpbClass;

class RunPlanTest {
    @Test
    void oneCheckpointIsHalfwayAndExactlyOne() {
        for (long n : new long[] {4, 6, 10, 15, 20, 64, 75}) {
            RunPlan plan = RunPlan.of("cg", NpbClass.S, 4, Variant.ONE_CHECKPOINT, 1, n, 0, 0.5, 0);
            assertEquals((n + 1) / 2, plan.checkpointEvery());
            assertEquals(1, plan.expectedCheckpoints(), "one checkpoint in " + n + " iterations");
        }
    }

    @Test
    void periodicDefaultsToAnEighthOfTheIterations() {
        assertEquals(8, RunPlan.of("ep", NpbClass.B, 4, Variant.PERIODIC, 1, 64, 0, 0.5, 0).checkpointEvery());
        assertEquals(7, RunPlan.of("ep", NpbClass.B, 4, Variant.PERIODIC, 1, 64, 0, 0.5, 0).expectedCheckpoints());
        assertEquals(1, RunPlan.of("mg", NpbClass.S, 4, Variant.PERIODIC, 1, 4, 0, 0.5, 0).checkpointEvery());
        assertEquals(5, RunPlan.of("cg", NpbClass.B, 4, Variant.PERIODIC, 1, 75, 5, 0.5, 0).checkpointEvery());
        assertEquals(0, RunPlan.of("cg", NpbClass.B, 4, Variant.BASELINE, 1, 75, 5, 0.5, 0).expectedCheckpoints());
    }

    @Test
    void aFailureComesAfterTheFirstCheckpointAndBeforeTheLastIteration() {
        RunPlan ep = RunPlan.of("ep", NpbClass.S, 4, Variant.PAUSE, 1, 64, 0, 0.5, 0);
        assertEquals(32, ep.failAfter());
        RunPlan mg = RunPlan.of("mg", NpbClass.S, 4, Variant.RESTART, 1, 4, 0, 0.9, 0);
        assertEquals(2, mg.failAfter(), "at most N-2: one iteration must be left");
        RunPlan late = RunPlan.of("cg", NpbClass.S, 4, Variant.PAUSE, 1, 15, 10, 0.1, 0);
        assertEquals(10, late.failAfter(), "not before the first checkpoint's safe point");
        assertEquals(-1, RunPlan.of("cg", NpbClass.S, 4, Variant.PERIODIC, 1, 15, 0, 0.5, 0).failAfter());
    }

    @Test
    void anIntervalWithNoCheckpointInTheRunIsBadInput() {
        BenchException e = assertThrows(BenchException.Usage.class, () -> RunPlan.of("mg", NpbClass.S, 4, Variant.PERIODIC, 1, 4, 4, 0.5, 0));
        assertTrue(e.getMessage().contains("--checkpoint-every 4"), e.getMessage());
        assertThrows(BenchException.Usage.class, () -> RunPlan.of("is", NpbClass.S, 4, Variant.PAUSE, 1, 10, 9, 0.5, 0));
    }

    @Test
    void jobIdsAreValidCheckpointJobIds() {
        String job = RunPlan.of("ft", NpbClass.A, 4, Variant.ONE_CHECKPOINT, 2, 6, 0, 0.5, 0).job("bench12");
        assertEquals("ft-A-n4-one-checkpoint-r2-bench12", job);
        assertTrue(Names.isValid(job), job);
        assertTrue(Names.isValid(RunPlan.of("ft", NpbClass.C, 64, Variant.FULL_RESTART, 99, 6, 1, 0.5, 0).job("bench-20261121-175426")),
                "the longest id a bench run makes");
    }

    @Test
    void storageConfigurationsAlternateWithinEachRepeatAndVariantAndTheBaselineRunsOncePerRepeat() {
        BenchSettings settings = NpbBenchTest.settings("--kernels", "ep", "--classes", "S", "--repeats", "2",
                "--variants", "baseline,periodic,daly", "--storage", "full=", "--storage", "zstd=--checkpoint-compression zstd");
        List<RunPlan> plans = new BenchRunner(settings, java.time.Clock.systemUTC(), System.out).plans().getFirst();
        assertEquals(List.of("1 baseline ", "1 periodic full", "1 periodic zstd", "1 daly full", "1 daly zstd",
                        "2 baseline ", "2 periodic full", "2 periodic zstd", "2 daly full", "2 daly zstd"),
                plans.stream().map(p -> p.repeat() + " " + p.variant() + " " + p.storage().label()).toList());
        assertEquals(List.of("--checkpoint-compression", "zstd"), plans.get(2).storage().options());
        assertEquals("ep-S-n4-periodic-zstd-r1-bench1", plans.get(2).job("bench1"));
        RunPlan daly = plans.get(3);
        assertEquals(0, daly.checkpointEvery(), "the scheduler's auto interval, not an iteration count");
        assertEquals(-1, daly.failAfter(), "its failures come from the exponential schedule");
        assertTrue(Names.isValid(RunPlan.of("ft", NpbClass.C, 64, Variant.FULL_RESTART, 99, 6, 1, 0.5, 0,
                new StorageConfig("abcdefghijkl", List.of())).job("bench-20261121-175426")), "the longest label fits");
    }

    @Test
    void theSingleConfigOptionsStillMeanOneUnnamedConfigurationForEveryRun() {
        BenchSettings settings = NpbBenchTest.settings("--kernels", "ep", "--classes", "S", "--repeats", "1",
                "--variants", "baseline,periodic", "--checkpoint-levels", "partner,shared:4", "--checkpoint-full-every", "4");
        List<RunPlan> plans = new BenchRunner(settings, java.time.Clock.systemUTC(), System.out).plans().getFirst();
        assertEquals(2, plans.size());
        for (RunPlan plan : plans) {
            assertEquals("", plan.storage().label());
            assertEquals(List.of("--checkpoint-levels", "partner,shared:4", "--checkpoint-full-every", "4"), plan.storage().options());
        }
        assertEquals("ep-S-n4-periodic-r1-b", plans.get(1).job("b"), "job names as before");
    }

    @Test
    void btRunsOnNineNodesWhereTheOthersRunOnEightInAClusterOfItsOwn() {
        BenchSettings settings = NpbBenchTest.settings("--kernels", "cg,bt", "--classes", "A", "--nodes", "4,8", "--repeats", "1",
                "--variants", "baseline");
        List<List<RunPlan>> groups = new BenchRunner(settings, java.time.Clock.systemUTC(), System.out).plans();
        assertEquals(List.of("cg 4, bt 4", "cg 8", "bt 9"), groups.stream()
                .map(g -> String.join(", ", g.stream().map(p -> p.kernel() + " " + p.nodes()).toList())).toList());
        assertEquals(NpbBenchTest.settings("--kernels", "ep", "--nodes", "9").rankHeapMb(), settings.rankHeapMb(),
                "the machine's memory is shared by the largest cluster's 9 nodes and its spare");
    }
}
