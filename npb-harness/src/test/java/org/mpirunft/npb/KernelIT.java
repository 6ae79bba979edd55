package org.mpirunft.npb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.mpirunft.testkit.SimulatedCluster;

/**
 * What every kernel's IT checks, on 4 compute nodes and a spare: the kernel verifies for
 * classes S and W on 1, 2 and 4 ranks (or {@link #verifiedOn}), and survives the loss of a rank
 * mid-run.
 */
public abstract class KernelIT {
    protected static final Duration BOUND = Duration.ofMinutes(3);
    private static SimulatedCluster cluster;

    @BeforeAll
    static void cluster() {
        cluster = SimulatedCluster.up(4, 1);
    }

    @AfterAll
    static void down() {
        cluster.close();
    }

    /** The kernel's name for {@code npb}: "ep", "cg", ... */
    protected abstract String kernel();

    /**
     * The rank counts class {@code cls} (S or W) is verified on: 1, 2 and 4, unless the kernel
     * runs on other counts only (BT and SP want squares) or a count costs the suite too much time.
     */
    protected List<Integer> verifiedOn(NpbClass cls) {
        return List.of(1, 2, 4);
    }

    @TestFactory
    Stream<DynamicTest> verifies() {
        return Stream.of(NpbClass.S, NpbClass.W).flatMap(cls -> verifiedOn(cls).stream()
                .map(ranks -> DynamicTest.dynamicTest("class " + cls + " on " + ranks + " ranks",
                        () -> NpbJob.start(cluster, kernel(), cls, ranks, NpbJob.hosts(4, 1), List.of()).assertVerified(BOUND))));
    }

    /**
     * Runs {@code cls} on 4 ranks with a checkpoint every {@code checkpointEvery} iterations,
     * SIGKILLs rank 2's JVM on node3 once iteration {@code killAfter} is done and the last
     * checkpoint at or before it is committed, and asserts that
     * the run verifies after exactly one recovery, which replaced rank 2 and rolled back to a
     * checkpoint at an iteration in {@code [lowest, highest]}: near the kill, not the start.
     */
    protected void killRankMidRun(NpbClass cls, int checkpointEvery, long killAfter, long lowest, long highest)
            throws Exception {
        killRankMidRun(cls, checkpointEvery, killAfter, lowest, highest, 0, List.of());
    }

    /**
     * As {@link #killRankMidRun(NpbClass, int, long, long, long)}, every iteration followed by
     * {@code paceMillis} of sleep ({@code NPB_PACE_MS}, 0 for none) and with {@code npb}'s
     * {@code options}; returns the job.
     */
    protected NpbJob killRankMidRun(NpbClass cls, int checkpointEvery, long killAfter, long lowest, long highest, long paceMillis,
                                    List<String> options) throws Exception {
        NpbJob job = NpbJob.start(cluster, kernel(), cls, 4, NpbJob.hosts(4, 1),
                List.of("MPIRUN_FT_CHECKPOINT_EVERY=" + checkpointEvery, "MPIRUN_FT_SPARES=spare1", "NPB_PACE_MS=" + paceMillis),
                options);
        job.awaitIteration(killAfter, BOUND);
        job.awaitCommitted(killAfter / checkpointEvery, BOUND);
        NpbJob.killRankOn(cluster, "node3");
        job.assertVerified(BOUND);
        List<Matcher> recoveries = job.recoveries();
        assertEquals(1, recoveries.size(), "one recovery; output:\n" + job.output());
        assertEquals("2", recoveries.getFirst().group(1), "rank 2 replaced");
        long epoch = Long.parseLong(recoveries.getFirst().group(2));
        long iteration = Long.parseLong(recoveries.getFirst().group(3));
        assertEquals(checkpointEvery * epoch, iteration, "checkpoints every " + checkpointEvery + " iterations");
        assertTrue(iteration >= lowest && iteration <= highest,
                "rolled back to a checkpoint near the kill after iteration " + killAfter + ", not to the start: " + iteration);
        return job;
    }
}
