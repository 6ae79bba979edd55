package org.mpirunft.npb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.mpirunft.testkit.SimulatedCluster;

/**
 * What every kernel's IT checks, on 4 compute nodes and a spare: the kernel verifies for
 * classes S and W on 1, 2 and 4 ranks (or the counts its IT names), and survives the loss of a
 * rank mid-run ({@link MidRunKill}). A kernel's IT names these in its constructor and adds only
 * its own tests.
 */
public abstract class KernelIT {
    protected static final Duration BOUND = Duration.ofMinutes(3);
    private static SimulatedCluster cluster;

    private final String kernel;
    private final List<Integer> classSRanks;
    private final List<Integer> classWRanks;
    private final MidRunKill midRunKill;

    /**
     * A run of {@code cls} on 4 ranks with a checkpoint every {@code checkpointEvery} iterations,
     * every iteration followed by {@code paceMillis} of sleep ({@code NPB_PACE_MS}, 0 for none)
     * and with {@code npb}'s {@code options}, in which rank 2's JVM on node3 is SIGKILLed once
     * iteration {@code killAfter} is done and the last checkpoint at or before it is committed.
     * The run must verify after exactly one recovery, which replaced rank 2 and rolled back to a
     * checkpoint at an iteration in {@code [lowest, highest]}: near the kill, not the start.
     */
    public record MidRunKill(NpbClass cls, int checkpointEvery, long killAfter, long lowest, long highest, long paceMillis,
                             List<String> options) {
        /** Unpaced, with no options. */
        public MidRunKill(NpbClass cls, int checkpointEvery, long killAfter, long lowest, long highest) {
            this(cls, checkpointEvery, killAfter, lowest, highest, 0, List.of());
        }
    }

    /** {@code kernel} ({@code npb}'s name: "ep", "cg", ...) verified on 1, 2 and 4 ranks, and {@code kill}. */
    protected KernelIT(String kernel, MidRunKill kill) {
        this(kernel, List.of(1, 2, 4), List.of(1, 2, 4), kill);
    }

    /**
     * {@code kernel} verified for class S on {@code classSRanks} and class W on {@code classWRanks},
     * for a kernel that runs on other counts only (BT and SP want squares) or where a count costs
     * the suite too much time, and {@code kill}.
     */
    protected KernelIT(String kernel, List<Integer> classSRanks, List<Integer> classWRanks, MidRunKill kill) {
        this.kernel = kernel;
        this.classSRanks = classSRanks;
        this.classWRanks = classWRanks;
        this.midRunKill = kill;
    }

    @BeforeAll
    static void cluster() {
        cluster = SimulatedCluster.up(4, 1);
    }

    @AfterAll
    static void down() {
        cluster.close();
    }

    @TestFactory
    Stream<DynamicTest> verifies() {
        return Stream.of(NpbClass.S, NpbClass.W).flatMap(cls -> (cls == NpbClass.S ? classSRanks : classWRanks).stream()
                .map(ranks -> DynamicTest.dynamicTest("class " + cls + " on " + ranks + " ranks",
                        () -> NpbJob.start(cluster, kernel, cls, ranks, NpbJob.hosts(4, 1), List.of()).assertVerified(BOUND))));
    }

    @Test
    void verifiesAfterARankIsKilledMidRun() throws Exception {
        killRankMidRun(midRunKill);
    }

    /** Runs {@code kill} (see {@link MidRunKill}) and asserts its outcome; returns the job. */
    protected NpbJob killRankMidRun(MidRunKill kill) throws Exception {
        // The pace gives the test time to kill mid-run; after the kill the run need not wait for it.
        String unpaced = "npb-unpaced-" + kernel + "-" + System.nanoTime();
        Files.deleteIfExists(cluster.stateDirectory().resolve("shared").resolve(unpaced));
        NpbJob job = NpbJob.start(cluster, kernel, kill.cls(), 4, NpbJob.hosts(4, 1),
                List.of("MPIRUN_FT_CHECKPOINT_EVERY=" + kill.checkpointEvery(), "MPIRUN_FT_SPARES=spare1",
                        "NPB_PACE_MS=" + kill.paceMillis(), "NPB_PACE_UNTIL=/shared/" + unpaced),
                kill.options());
        job.awaitIteration(kill.killAfter(), BOUND);
        job.awaitCommitted(kill.killAfter() / kill.checkpointEvery(), BOUND);
        NpbJob.killRankOn(cluster, "node3");
        Files.writeString(cluster.stateDirectory().resolve("shared").resolve(unpaced), "");
        job.assertVerified(BOUND);
        List<Matcher> recoveries = job.recoveries();
        assertEquals(1, recoveries.size(), "one recovery; output:\n" + job.output());
        assertEquals("2", recoveries.getFirst().group(1), "rank 2 replaced");
        long epoch = Long.parseLong(recoveries.getFirst().group(2));
        long iteration = Long.parseLong(recoveries.getFirst().group(3));
        assertEquals(kill.checkpointEvery() * epoch, iteration, "checkpoints every " + kill.checkpointEvery() + " iterations");
        assertTrue(iteration >= kill.lowest() && iteration <= kill.highest(),
                "rolled back to a checkpoint near the kill after iteration " + kill.killAfter() + ", not to the start: " + iteration);
        return job;
    }
}
