package org.mpirunft.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.mpirunft.bridge.storage.CheckpointStore;
import org.mpirunft.common.PrivateDirectories;
import org.mpirunft.daemon.DaemonClient;
import org.mpirunft.launcher.cli.CliContext;
import org.mpirunft.launcher.cli.MpirunFtCli;
import org.mpirunft.scheduler.policy.CheckpointInterval;
import org.mpirunft.testkit.SimulatedCluster;

/**
 * The job's one checkpoint knob reaches the scheduler, and only the scheduler orders
 * checkpoints: a fixed 2 s interval gives one committed epoch per order, about one every 2 s,
 * and an epoch that cannot be written ends its order without stopping the next ones;
 * {@code auto} gives Daly's interval for the checkpoint cost the ranks measured and the
 * cluster's MTBF, read back from the interval the scheduler uses.
 */
class CheckpointScheduleIT {
    private static final String[] HOSTS = {"--host", "node1:1,node2:1,spare1:1"};
    /** One cluster for both tests: no fault, and jobs of their own names (a job's interval is its own). */
    @RegisterExtension
    static final SharedCluster SHARED = new SharedCluster(() -> SimulatedCluster.upWithDaemons(2, 1, HangAndCutIT.daemons()));

    @TempDir
    Path dir;

    @Test
    void aFixedIntervalCommitsOneEpochPerOrderAboutEveryTwoSeconds() throws Exception {
        SimulatedCluster cluster = SHARED.cluster();
        String name = "fixed-" + cluster.name();
        // Epoch 2 cannot be written to shared storage: a file stands where its directory goes.
        CheckpointStore store = new CheckpointStore(ClusterJob.userDirectory(ClusterJob.checkpointsOf(cluster.name())), name);
        PrivateDirectories.createPrivate(store.jobDirectory());
        Files.writeString(store.epochDirectory(2), "in the way");
        ClusterJob job = ClusterJob.start(ClusterJob.Program.LONG, cluster, dir, name, "pause", 0, "--checkpoint-interval", "2s",
                "-np", "2", HOSTS[0], HOSTS[1]);
        // Paced to the end (the bounded wait leaves the pacing on): the orders' rhythm over the whole run is what is checked.
        assertEquals(0, job.exitCode(ClusterJob.BOUND_SECONDS), job.output());
        List<JsonNode> ordered = phase(job, "ordered");
        List<JsonNode> committed = phase(job, "committed");
        List<JsonNode> abandoned = phase(job, "abandoned");
        assertTrue(ordered.size() >= 4, "a run of about 12 s orders several checkpoints: " + ordered.size());
        assertEquals(1, abandoned.size(), "the order whose epoch could not be written: " + abandoned);
        assertEquals(2, abandoned.getFirst().get("epoch").asLong(), "epoch 2 answered order 2");
        int answered = committed.size() + abandoned.size();
        assertTrue(answered == ordered.size() || answered == ordered.size() - 1,
                "one epoch per order (the last order may come as the run ends): " + ordered.size() + " orders, "
                        + committed.size() + " committed, " + abandoned.size() + " abandoned");
        assertTrue(committed.stream().anyMatch(e -> e.get("epoch").asLong() > 2), "orders went on after the abandoned one");
        // The first order comes 2 s after the registration, maybe before the ranks are up; the
        // next waits for its epoch. From then on, the interval alone sets the rhythm.
        Instant firstCommit = time(committed.getFirst());
        for (int i = 1; i < ordered.size(); i++) {
            long gap = Duration.between(time(ordered.get(i - 1)), time(ordered.get(i))).toMillis();
            // The log stamps an order with the scheduler's time of it (JobFollower).
            assertTrue(gap >= 2000, "never more often than every 2 s: " + gap + " ms");
            if (!time(ordered.get(i - 1)).isBefore(firstCommit)) {
                assertTrue(gap <= 3500, "orders about 2 s apart once the ranks run: " + gap + " ms");
            }
        }
    }

    @Test
    void autoUsesDalysIntervalForTheMeasuredCostAndTheClustersMtbf() throws Exception {
        SimulatedCluster cluster = SHARED.cluster();
        Path socket = cluster.stateDirectory().resolve("nodes/head/ftd.sock");
        ClusterJob job = ClusterJob.start(ClusterJob.Program.LONG, cluster, dir, "auto-" + cluster.name(), "pause", 0, "--checkpoint-interval", "auto",
                "-np", "2", HOSTS[0], HOSTS[1]);
        job.await("^ITER 10$");
        // Daly's interval for the configured cost is far longer than the run: one checkpoint on demand gives a measured cost.
        ByteArrayOutputStream said = new ByteArrayOutputStream();
        PrintStream to = new PrintStream(said, true, StandardCharsets.UTF_8);
        assertEquals(0, MpirunFtCli.execute(new String[] {"checkpoint", "--socket", socket.toString(), job.id},
                new CliContext(to, to, null, Map.of(), DaemonClient::new, Optional.empty(), Clock.systemUTC())), said.toString());
        JsonNode committed = FailureOrderIT.awaitEvent(job, "checkpoint", "committed");
        long interval = new DaemonClient(socket).status().jobs().stream().filter(j -> j.job().equals(job.id)).findFirst()
                .orElseThrow().checkpointIntervalMillis();
        assertEquals(0, job.exitCode(), job.output());
        // The cluster's config (scripts/cluster) says MTBF 24 h; the cost is what the ranks measured (stall and write).
        double costMs = committed.get("durationMs").asDouble();
        assertTrue(costMs > 0, "a measured cost: " + committed);
        long daly = CheckpointInterval.optimal(Duration.ofNanos(Math.round(costMs * 1e6)), Duration.ofHours(24)).toMillis();
        System.out.printf("auto: measured cost %.2f ms; the scheduler's interval %d ms; Daly's for it %d ms (computed)%n",
                costMs, interval, daly);
        assertEquals(daly, interval, daly * 0.01 + 1, "the scheduler uses Daly's interval for the measured cost");
    }

    private static List<JsonNode> phase(ClusterJob job, String phase) throws Exception {
        return job.events().stream().filter(e -> e.get("type").asText().equals("checkpoint") && e.get("phase").asText().equals(phase))
                .toList();
    }

    private static Instant time(JsonNode event) {
        return Instant.parse(event.get("time").asText());
    }
}
