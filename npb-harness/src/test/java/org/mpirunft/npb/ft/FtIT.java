package org.mpirunft.npb.ft;

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

/** FT verifies on 1, 2 and 4 ranks, and survives the loss of a rank mid-run. */
class FtIT {
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
        NpbJob.start(cluster, "ft", cls, ranks, NpbJob.hosts(4, 1), List.of()).assertVerified(BOUND);
    }

    /**
     * Class A: 6 time steps of 256x256x128, about half a second each on 4 ranks, checkpointed
     * before every step from the second on. Rank 2 dies once iteration 2 is done, with three
     * of six to go; the job rolls back to the newest committed checkpoint, which holds the
     * spectrum, so it does not start over.
     */
    @Test
    void verifiesAfterARankIsKilledMidRun() throws Exception {
        NpbJob job = NpbJob.start(cluster, "ft", NpbClass.A, 4, NpbJob.hosts(4, 1),
                List.of("MPIRUN_FT_CHECKPOINT_EVERY=1", "MPIRUN_FT_SPARES=spare1"));
        job.awaitIteration(2, BOUND);
        NpbJob.killRankOn(cluster, "node3");
        job.assertVerified(BOUND);
        List<Matcher> recoveries = job.recoveries();
        assertEquals(1, recoveries.size(), "one recovery; output:\n" + job.output());
        assertEquals("2", recoveries.getFirst().group(1), "rank 2 replaced");
        long epoch = Long.parseLong(recoveries.getFirst().group(2));
        long iteration = Long.parseLong(recoveries.getFirst().group(3));
        assertEquals(epoch, iteration, "a checkpoint before every iteration");
        assertTrue(iteration >= 1 && iteration <= 4,
                "rolled back to a checkpoint around the kill point (iteration 3), not to the start: " + iteration);
    }
}
