package org.mpirunft.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpirunft.testkit.SimulatedCluster;

/**
 * mpirun-ft on a node that runs a rank too, as an sbatch script runs it on its allocation's first
 * node: mpirun starts that rank itself, not through a node daemon the node's ftd started, so only
 * mpirun-ft's registration of mpirun lets the ftd admit it to the rank channel. Without it the
 * rank's commits never reach the scheduler: no checkpoint, and a failure stops the job.
 */
class LauncherOnRankNodeIT {
    @TempDir
    Path dir;

    @Test
    void aJobLaunchedFromARankNodeCheckpointsAndRecoversFromANodeLoss() throws Exception {
        try (SimulatedCluster cluster = SimulatedCluster.upWithDaemons(4, 1, HangAndCutIT.daemons())) {
            String reference = ClusterJob.referenceBits(cluster, dir);
            ClusterJob job = ClusterJob.startFrom("node1", cluster, dir, "local-" + cluster.name(), "pause", 5,
                    ClusterJob.checkpointsOf(cluster.name()), "--host", "node1:1,node2:1,node3:1,node4:1,spare1:1");
            assertEquals("node1", job.startNodeOf(0), "mpirun's own node runs rank 0");
            job.killStartNodeOf(cluster, 2, 12);
            job.await("^\\[mpirun-ft\\] recovered replaced=\\[2\\]", 90);
            job.assertEndedWithBits(reference);
            JsonNode resume = job.events().stream().filter(e -> e.get("type").asText().equals("resume")).findFirst().orElseThrow();
            assertEquals(10, resume.get("iteration").asLong(), "rolled back to epoch 2's iteration, committed through every rank: " + resume);
            assertTrue(job.events().stream().anyMatch(e -> e.get("type").asText().equals("checkpoint")), "the launcher saw the commits");
            job.assertReplacedOnlyRank(2, "spare1");
        }
    }
}
