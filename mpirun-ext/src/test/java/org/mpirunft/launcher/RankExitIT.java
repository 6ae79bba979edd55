package org.mpirunft.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpirunft.testkit.SimulatedCluster;

/**
 * Every rank of a pause job dies at once while no node is lost (SIGKILL of each rank's JVM, as
 * when Open MPI aborts them all in a recovery). No survivor reports a failure and the idle warm
 * spares keep mpirun running, so nothing but the ranks' own daemons can tell: each sees its
 * rank's channel end without the rank saying it leaves, and its process gone. The scheduler,
 * with no rank left to roll back in place, relaunches the job, which resumes from its last
 * committed epoch and ends with the failure-free result. Without that, mpirun-ft waits for good.
 */
class RankExitIT {
    private static final String[] HOSTS = {"--host", "node1:1,node2:1,node3:1,node4:1,spare1:1,spare2:1", "--spares", "2"};

    @TempDir
    Path dir;

    @Test
    void aPauseJobWhoseEveryRankIsKilledIsRelaunchedFromItsLastEpoch() throws Exception {
        try (SimulatedCluster cluster = SimulatedCluster.upWithDaemons(4, 2, HangAndCutIT.daemons())) {
            String reference = ClusterJob.referenceBits(cluster, dir);
            ClusterJob job = ClusterJob.start(cluster, dir, "exits-" + cluster.name(), "pause", HOSTS);
            job.await("^ITER 12$");
            FakeMpirun.waitUntil(30_000, "epoch 2 committed", () -> job.committedEpoch() >= 2);
            long committed = job.committedEpoch();
            List<Long> ranks = new ArrayList<>();
            for (String node : List.of("node1", "node2", "node3", "node4")) {
                cluster.processesOn(node).stream().filter(p -> MigrationIT.commandLine(p.pid()).contains("RollbackRank")).forEach(p -> ranks.add(p.pid()));
            }
            assertEquals(4, ranks.size(), "one rank per compute node: " + ranks);
            long killedAt = System.nanoTime();
            java.time.Instant killedWall = java.time.Instant.now();
            // One kill(1) for all four, as an abort takes them together: killed one by one, a rank
            // would see the others fail first and report it, which is another case (a pause).
            List<String> kill = new ArrayList<>(List.of("kill", "-KILL"));
            ranks.forEach(pid -> kill.add(Long.toString(pid)));
            assertEquals(0, new ProcessBuilder(kill).inheritIO().start().waitFor());

            job.assertEndedWithBits(reference);
            JsonNode restart = FailureOrderIT.first(job.events(), "restart").orElseThrow(() -> new AssertionError(job.eventsText()));
            assertTrue(restart.get("reason").asText().contains("no rank survives to recover in place"), restart.toString());
            long relaunchedAt = job.firstLineAfter(killedAt, "START rank=0 ").orElseThrow().nanos();
            long resumed = Long.parseLong(job.firstLineAfter(relaunchedAt, "^ITER \\d+$").orElseThrow().text().substring("ITER ".length()));
            assertTrue(resumed >= committed * 5 && resumed % 5 == 0,
                    "the relaunch resumed at a committed epoch's iteration (epoch " + committed + " or later, every 5): ITER " + resumed);
            // The decision's own bound: each daemon waits up to 2 s for its rank's process to be
            // gone, the leader holds exits 1 s and judges them at its next tick; the margin is for
            // a loaded machine. The relaunch's ranks then start as fast as the machine lets them.
            JsonNode decision = FailureOrderIT.first(job.events(), "decision").orElseThrow(() -> new AssertionError(job.eventsText()));
            assertEquals("restart", decision.get("action").asText(), decision.toString());
            long decidedMillis = java.time.Duration.between(killedWall, java.time.Instant.parse(decision.get("time").asText())).toMillis();
            assertTrue(decidedMillis < 15_000, "the relaunch was decided within 15 s of the kill: " + decidedMillis + " ms");
            System.out.println("RankExitIT: relaunch decided " + decidedMillis + " ms after the kill, its rank 0 started "
                    + (relaunchedAt - killedAt) / 1_000_000 + " ms after it, resumed at ITER " + resumed + " (epoch " + committed
                    + " committed before the kill)");
            FailureOrderIT.assertNothingLeftOf(cluster, job);
        }
    }
}
