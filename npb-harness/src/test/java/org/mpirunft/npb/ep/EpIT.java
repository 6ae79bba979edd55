package org.mpirunft.npb.ep;

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

/** EP verifies on 1, 2 and 4 ranks, and survives the loss of a rank mid-run. */
class EpIT {
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
        NpbJob.start(cluster, "ep", cls, ranks, NpbJob.hosts(4, 1), List.of()).assertVerified(BOUND);
    }

    /** Class A, so iterations are long enough to kill into: rank 2 dies after iteration 40 of 64. */
    @Test
    void verifiesAfterARankIsKilledMidRun() throws Exception {
        NpbJob job = NpbJob.start(cluster, "ep", NpbClass.A, 4, NpbJob.hosts(4, 1),
                List.of("MPIRUN_FT_CHECKPOINT_EVERY=8", "MPIRUN_FT_SPARES=spare1"));
        job.awaitIteration(40, BOUND);
        NpbJob.killRankOn(cluster, "node3");
        job.assertVerified(BOUND);
        List<Matcher> recoveries = job.recoveries();
        assertEquals(1, recoveries.size(), "one recovery; output:\n" + job.output());
        assertEquals("2", recoveries.getFirst().group(1), "rank 2 replaced");
        long epoch = Long.parseLong(recoveries.getFirst().group(2));
        long iteration = Long.parseLong(recoveries.getFirst().group(3));
        assertEquals(8 * epoch, iteration, "checkpoints every 8 iterations");
        assertTrue(iteration >= 40 && iteration < 64, "rolled back to a checkpoint after the kill point: " + iteration);
    }
}
