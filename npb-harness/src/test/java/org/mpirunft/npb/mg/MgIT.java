package org.mpirunft.npb.mg;

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

/** MG verifies on 1, 2 and 4 ranks, and survives the loss of a rank mid-run. */
class MgIT {
    private static final Duration BOUND = Duration.ofMinutes(3);
    private static final int CHECKPOINT_EVERY = 4;
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
        NpbJob.start(cluster, "mg", cls, ranks, NpbJob.hosts(4, 1), List.of()).assertVerified(BOUND);
    }

    /**
     * Class B, the smallest with enough iterations to kill into: 20 V-cycles of 256^3, a few
     * hundred ms each on 4 ranks. Rank 2 dies once iteration 8 is done, just after the
     * checkpoint of iteration 8 was started; the job rolls back to that one or, if it was not
     * committed yet, to the one before.
     */
    @Test
    void verifiesAfterARankIsKilledMidRun() throws Exception {
        NpbJob job = NpbJob.start(cluster, "mg", NpbClass.B, 4, NpbJob.hosts(4, 1),
                List.of("MPIRUN_FT_CHECKPOINT_EVERY=" + CHECKPOINT_EVERY, "MPIRUN_FT_SPARES=spare1"));
        job.awaitIteration(8, BOUND);
        NpbJob.killRankOn(cluster, "node3");
        job.assertVerified(BOUND);
        List<Matcher> recoveries = job.recoveries();
        assertEquals(1, recoveries.size(), "one recovery; output:\n" + job.output());
        assertEquals("2", recoveries.getFirst().group(1), "rank 2 replaced");
        long epoch = Long.parseLong(recoveries.getFirst().group(2));
        long iteration = Long.parseLong(recoveries.getFirst().group(3));
        assertEquals(CHECKPOINT_EVERY * epoch, iteration, "checkpoints every " + CHECKPOINT_EVERY + " iterations");
        assertTrue(iteration >= 4 && iteration <= 12,
                "rolled back to a checkpoint around the kill point (iteration 8), not to the start: " + iteration);
    }
}
