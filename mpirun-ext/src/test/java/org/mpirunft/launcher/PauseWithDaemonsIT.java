package org.mpirunft.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpirunft.testkit.SimulatedCluster;

/**
 * mpirun-ft end to end with the real node daemons: 4 compute nodes and a spare, one rank per
 * node, a job with real state; a whole node killed mid-run, ftd included. The scheduler
 * (hosted by the daemons) decides the replacement, and the job ends with the bits of a
 * failure-free run, the live ranks keeping their processes. Without warm spares: the replacement
 * is a new process spawned on the spare, the path a job takes once its warm spares are used up
 * (WarmSpareIT has the warm one).
 */
class PauseWithDaemonsIT {
    @TempDir
    Path dir;

    @Test
    void nodeKillIsRecoveredInPlaceWithTheSchedulersSpareAndTheFailureFreeResult() throws Exception {
        try (SimulatedCluster cluster = SimulatedCluster.upWithDaemons(4, 1, HangAndCutIT.daemons())) {
            String reference = ClusterJob.referenceBits(cluster, dir);

            ClusterJob job = ClusterJob.start(cluster, dir, "kill-" + cluster.name(), "pause", "--warm-spares", "off");
            // Rank 0's node: the hardest loss, since rank 0 also reports the recovery.
            job.killStartNodeOf(cluster, 0, 12);
            String output = job.assertEndedWithBits(reference);

            // Rank 0's replacement counts no recovery of its own; the lowest survivor reports it.
            assertEquals(1, Pattern.compile("(?m)^\\[mpirun-ft\\] recovered replaced=\\[0\\]").matcher(output).results().count(),
                    "exactly one in-place recovery, of rank 0: " + output);
            job.assertReplacedOnlyRank(0, "spare1");

            job.printEvents("pause with daemons");
            List<String> types = job.eventTypes();
            assertTrue(types.containsAll(List.of("launch", "failure", "decision", "replacement", "resume", "exit")), types.toString());
            assertEquals(1, types.stream().filter("launch"::equals).count(), "no relaunch in pause mode: " + types);
            assertEquals("spawn", FailureOrderIT.first(job.events(), "replacement").orElseThrow().get("start").asText(),
                    "a replacement spawned on the spare");
        }
    }
}
