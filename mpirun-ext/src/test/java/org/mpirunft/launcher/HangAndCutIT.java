package org.mpirunft.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.mpirunft.daemon.DaemonClient;
import org.mpirunft.daemon.protocol.ControlReply;
import org.mpirunft.testkit.SimulatedCluster;

/**
 * A hung node (SIGSTOP) and a cut link raise no MPI error: the ranks blocked on the lost rank
 * would wait forever. The daemons' failure detector must notice, the scheduler decide, and
 * mpirun-ft's pause order (naming the lost rank) make the survivors drop it, replace it on the
 * spare, and roll back in place. The node must stay out of the job when it comes back.
 */
class HangAndCutIT {
    /**
     * Ranks in node order, so node1 runs rank 0 (and Open MPI's first node daemon), node3 rank 2.
     * A hung or cut-off node's loss reaches Open MPI only because the daemons sever their node's
     * connections to it once the group declared it failed.
     */
    private static final String[] HOSTS = {"--host", "node1:1,node2:1,node3:1,node4:1,spare1:1"};

    /**
     * One 4+1 cluster for the class: the hung or cut node is healed by each test, and the cluster
     * repaired between tests. The daemons' logs outlive a test, so a test reads only what they
     * wrote since it began ({@link DaemonLogMark}).
     */
    @RegisterExtension
    static final SharedCluster SHARED = new SharedCluster(() -> SimulatedCluster.upWithDaemons(4, 1, daemons()));

    @TempDir
    Path dir;

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"node1", "node3"})
    void hungNodeIsReplacedByTheDaemonsDecisionAndItsRankIsFencedWhenItWakes(String node) throws Exception {
        SimulatedCluster cluster = SHARED.cluster();
        Failed failed = failMidRun(cluster, "hang", node, () -> cluster.hang(node));
        assertTrue(rankProcessesOn(cluster, node).size() > 0, "while hung, the node's rank still exists (stopped)");

        // The node wakes: its daemon finds itself expelled and kills what it ran for the job.
        cluster.heal(node);
        FakeMpirun.waitUntil(15_000, node + "'s daemon killed the job's processes after waking",
                () -> rankProcessesOn(cluster, node).isEmpty());

        failed.assertRecoveredInPlaceAndOut(cluster);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"node1", "node3"})
    void cutNodeIsReplacedByTheDaemonsDecisionWhileItsOwnDaemonFencesItsRank(String node) throws Exception {
        SimulatedCluster cluster = SHARED.cluster();
        Failed failed = failMidRun(cluster, "cut", node, () -> cluster.cut(node));
        // Cut off, the node's daemon saw the group leave it and fenced: nothing of the job runs there.
        try {
            FakeMpirun.waitUntil(15_000, node + "'s daemon fenced the job's processes while cut off",
                    () -> rankProcessesOn(cluster, node).isEmpty());
        } catch (AssertionError e) {
            // Its stacks say where the daemon's view change waits (kept with the logs, target/it-clusters).
            cluster.dumpDaemonThreads(node);
            throw new AssertionError(e.getMessage() + "; left there: " + rankProcessesOn(cluster, node).stream()
                    .map(p -> p.pid() + " " + p.command() + " [" + MigrationIT.commandLine(p.pid()) + "]").toList()
                    + "; its daemon's expulsion and fence lines since the test began: "
                    + failed.logs().since(node).lines().filter(l -> l.contains("xpelled") || l.contains("fenc")).toList(), e);
        }
        cluster.heal(node);

        failed.assertRecoveredInPlaceAndOut(cluster);
    }

    /** A job whose node failed mid-run, once its ranks reported the recovery. */
    private record Failed(String how, String node, ClusterJob job, String reference, int lost, DaemonLogMark logs, Instant failedAt,
                          long failedNanos, long recoveredNanos) {
        void assertRecoveredInPlaceAndOut(SimulatedCluster cluster) throws Exception {
            assertRecoveredInPlace(logs, job, node, reference, lost, failedAt);
            assertNodeStaysOut(cluster, node, job);
            System.out.printf("%s: %s %s to recovered %.0f ms%n", how, node, how, (recoveredNanos - failedNanos) / 1e6);
        }
    }

    /** Starts a job, fails {@code node} at iteration 12 with {@code failure}, and waits for the recovery line. */
    private Failed failMidRun(SimulatedCluster cluster, String how, String node, Runnable failure) throws Exception {
        DaemonLogMark logs = DaemonLogMark.now(cluster);
        String reference = reference(cluster);
        // A name of its own per test: on the shared cluster a name used again resumes that job.
        ClusterJob job = ClusterJob.start(cluster, dir, how + "-" + node + "-" + cluster.name(), "pause", HOSTS);
        int lost = job.rankStartedOn(node);
        job.await("^ITER 12$");
        Instant failedAt = Instant.now();
        long failedNanos = System.nanoTime();
        failure.run();
        job.await("^\\[mpirun-ft\\] recovered replaced=\\[" + lost + "\\]", 90);
        long recoveredNanos = job.firstLineAfter(failedNanos, "^\\[mpirun-ft\\] recovered").orElseThrow().nanos();
        return new Failed(how, node, job, reference, lost, logs, failedAt, failedNanos, recoveredNanos);
    }

    private static void assertRecoveredInPlace(DaemonLogMark logs, ClusterJob job, String node, String reference, int lost, Instant failedAt)
            throws Exception {
        int code = job.exitCode();
        String output = job.output();
        assertEquals(0, code, output);
        assertEquals(reference, job.resultBits(), "the result must be bit-identical to the failure-free run's");
        assertEquals(1, Pattern.compile("(?m)^\\[mpirun-ft\\] recovered ").matcher(output).results().count(),
                "exactly one in-place recovery: " + output);
        job.assertReplacedOnlyRank(lost, "spare1");

        job.printEvents(job.eventLog.getFileName().toString());
        List<JsonNode> events = job.events();
        List<String> types = job.eventTypes();
        assertEquals(1, types.stream().filter("launch"::equals).count(), "no relaunch in pause mode: " + types);
        JsonNode failure = first(events, "failure").orElseThrow(() -> new AssertionError("no failure event: " + types));
        assertDetectorFirst(logs, node, failure);
        assertEquals(node, failure.get("nodes").get(0).asText());
        assertTrue(types.containsAll(List.of("decision", "pause", "replacement", "resume", "exit")), types.toString());
        JsonNode replacement = first(events, "replacement").orElseThrow();
        assertEquals(lost, replacement.get("rank").asInt());
        assertEquals("spare1", replacement.get("toNode").asText());
        for (String type : List.of("failure", "decision", "pause", "resume")) {
            JsonNode event = first(events, type).orElseThrow();
            System.out.printf("  %-8s %6d ms after the failure%n", type,
                    java.time.Duration.between(failedAt, Instant.parse(event.get("time").asText())).toMillis());
        }
    }

    /**
     * The daemons' detector, not MPI, saw the loss first. The leader learns it from its own view
     * ({@code detector}) once its probe of the node's host gave up, or from mpirun or a rank
     * ({@code runtime}, {@code ulfm}) if another daemon's probe gave up a little earlier and that
     * daemon fenced the node: a hung or cut-off node drops no connection, so Open MPI hears of it
     * only through that fence ({@code RuntimeFence}). Either way the detector saw it; the leader's
     * label says which report reached it first, a race of milliseconds between probes that end
     * together.
     */
    private static void assertDetectorFirst(DaemonLogMark logs, String node, JsonNode failure) throws Exception {
        if (failure.get("source").asText().startsWith("detector")) {
            return;
        }
        Pattern fenced = Pattern.compile("(?m): fenced " + node + " off the MPI runtime: closed [1-9]");
        List<String> fencers = new java.util.ArrayList<>();
        for (String other : DaemonLogMark.nodes(logs.cluster())) {
            if (!other.equals(node) && fenced.matcher(logs.since(other)).find()) {
                fencers.add(other);
            }
        }
        assertFalse(fencers.isEmpty(), "the loss reached Open MPI, yet no daemon fenced " + node + " off it: " + failure);
        System.out.printf("  the failure reached the leader from %s first, after %s fenced %s%n",
                failure.get("source").asText(), fencers, node);
    }

    /** The node is back in the group, but not in the job: no rank of it there, none placed there. */
    private static void assertNodeStaysOut(SimulatedCluster cluster, String node, ClusterJob job) throws Exception {
        assertTrue(rankProcessesOn(cluster, node).isEmpty(), "no process of the job on " + node);
        for (JsonNode replacement : job.events().stream().filter(e -> e.get("type").asText().equals("replacement")).toList()) {
            assertFalse(node.equals(replacement.get("toNode").asText()), "nothing placed back on " + node + ": " + replacement);
        }
        ControlReply.StatusReport head = new DaemonClient(cluster.stateDirectory().resolve("nodes/head/ftd.sock")).status();
        for (ControlReply.JobStatus status : head.jobs()) {
            assertFalse(status.job().equals(job.id) && status.rankNodes().contains(node),
                    "the scheduler's table keeps " + node + " out of " + status.job() + ": " + status.rankNodes());
        }
    }

    private static List<SimulatedCluster.NodeProcess> rankProcessesOn(SimulatedCluster cluster, String node) {
        return cluster.processesOn(node).stream()
                .filter(FailureOrderIT::isRankOrNodeDaemon)
                .toList();
    }

    private static Optional<JsonNode> first(List<JsonNode> events, String type) {
        return events.stream().filter(e -> e.get("type").asText().equals(type)).findFirst();
    }


    private String reference(SimulatedCluster cluster) throws Exception {
        return ClusterJob.referenceBits(cluster, dir);
    }

    static Path daemons() {
        return SimulatedCluster.repoRoot().resolve("runtime-daemon/target/ftd");
    }
}
