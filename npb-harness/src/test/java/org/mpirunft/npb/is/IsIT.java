package org.mpirunft.npb.is;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.mpirunft.npb.NpbClass;
import org.mpirunft.npb.NpbJob;
import org.mpirunft.testkit.SimulatedCluster;

/** IS verifies on 1, 2 and 4 ranks, and survives the loss of a rank mid-run. */
class IsIT {
    private static final Duration BOUND = Duration.ofMinutes(3);
    private static SimulatedCluster cluster;

    @BeforeAll
    static void cluster() {
        cluster = SimulatedCluster.up(4, 1);
    }

    @AfterAll
    static void down() {
        cluster.close();
    }

    @ParameterizedTest(name = "class {0} on {1} ranks")
    @CsvSource({"S,1", "S,2", "S,4", "W,1", "W,2", "W,4"})
    void verifies(NpbClass cls, int ranks) throws Exception {
        NpbJob.start(cluster, "is", cls, ranks, NpbJob.hosts(4, 1), List.of()).assertVerified(BOUND);
    }

    /**
     * Class A on 4 ranks: 10 rankings of 2^23 keys, a few hundred milliseconds each. Rank 2
     * dies once iteration 3 is done, with checkpoints (8 MB of keys per rank) every 2
     * iterations, so it rolls back to the checkpoint before iteration 2 or a later one. The
     * restored keys and verification tally must still add up to all 51 checks passed.
     */
    @Test
    void verifiesAfterARankIsKilledMidRun() throws Exception {
        NpbJob job = NpbJob.start(cluster, "is", NpbClass.A, 4, NpbJob.hosts(4, 1),
                List.of("MPIRUN_FT_CHECKPOINT_EVERY=2", "MPIRUN_FT_SPARES=spare1"));
        job.awaitIteration(3, BOUND);
        NpbJob.killRankOn(cluster, "node3");
        job.assertVerified(BOUND);
        List<Matcher> recoveries = job.recoveries();
        assertEquals(1, recoveries.size(), "one recovery; output:\n" + job.output());
        assertEquals("2", recoveries.getFirst().group(1), "rank 2 replaced");
        long epoch = Long.parseLong(recoveries.getFirst().group(2));
        long iteration = Long.parseLong(recoveries.getFirst().group(3));
        assertEquals(2 * epoch, iteration, "checkpoints every 2 iterations");
        assertTrue(iteration >= 2 && iteration < 10, "rolled back to a checkpoint after the kill point: " + iteration);
    }
}
