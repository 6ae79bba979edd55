package org.mpirunft.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpirunft.daemon.DaemonClient;
import org.mpirunft.daemon.protocol.ControlReply;
import org.mpirunft.testkit.SimulatedCluster;

/**
 * A partition of the group, 2 daemons against 3, with the scheduler's leader on the 2 side, and
 * a node lost on each side: the leader's side loses the node of rank 1 at once, so that the
 * leader, still believing it leads, decides a pause for it; its decision must never become an
 * order. The 3 side detects the partition, elects its own leader, recovers rank 1 on the job's
 * spare in place, and later loses a node of its own and goes on. At the heal there is one table.
 */
class SplitBrainIT {
    private static final List<String> SLOT_NODES = List.of("node1", "node2", "node3", "spare1");
    /** The FAST profile's heartbeat timeout: nobody on the 3 side can know of the partition earlier. */
    private static final Duration DETECTION_FLOOR = Duration.ofMillis(1900);
    /**
     * Long enough to split at iteration 12, recover, wait for the voters' replacement (up to 30 s),
     * lose a node, heal and compare tables while the job still runs: about 60 s after the split.
     */
    private static final ClusterJob.Program PROGRAM = new ClusterJob.Program(1000, 400, 150);
    /** The same computation without the pace (the result does not depend on it), for the failure-free bits. */
    private static final ClusterJob.Program REFERENCE = new ClusterJob.Program(1000, 400, 5);

    @TempDir
    Path dir;

    @Test
    void theMinoritysLeaderDecidesNothingThatReachesARankAndTheMajorityRecoversItsJob() throws Exception {
        try (SimulatedCluster cluster = SimulatedCluster.upWithDaemons(3, 1, HangAndCutIT.daemons())) {
            String leader = agreedLeader(cluster);
            // The sides, from where the leader is: Y runs rank 1 and goes with the leader; A runs
            // mpirun and rank 0, C is the job's spare, Z is a bystander; A, C and Z are the 3 side.
            List<String> others = new ArrayList<>(SLOT_NODES);
            others.remove(leader);
            String y = others.get(0);
            String a = others.get(1);
            String c = others.get(2);
            String z = leader.equals("head") ? others.get(3) : "head";
            System.out.printf("leader %s; 2 side {%s, %s}; 3 side {%s (mpirun, rank 0), %s (spare), %s}%n", leader, leader, y, a, c, z);
            String hosts = a + ":1," + y + ":1," + c + ":1";

            ClusterJob reference = ClusterJob.startFrom(REFERENCE, a, cluster, dir, "ref-" + cluster.name(), "pause", 5,
                    ClusterJob.checkpointsOf(cluster.name()), "--host", hosts, "-np", "2");
            assertEquals(0, reference.exitCode(), reference.output());
            String bits = reference.resultBits();

            ClusterJob job = ClusterJob.startFrom(PROGRAM, a, cluster, dir, "split-" + cluster.name(), "pause", 5,
                    ClusterJob.checkpointsOf(cluster.name()), "--host", hosts, "-np", "2");
            assertEquals(a, job.startNodeOf(0));
            assertEquals(y, job.startNodeOf(1));
            job.await("^ITER 12$");
            Instant splitAt = Instant.now();
            cluster.split(List.of(leader, y));
            // Rank 1 dies first: its daemon, cut off with the leader, reports it there before the
            // leader's detector notices the partition, so the leader decides a pause it cannot commit.
            List<Long> rank1 = cluster.processesOn(y).stream().filter(p -> MigrationIT.commandLine(p.pid()).contains("RollbackRank"))
                    .map(SimulatedCluster.NodeProcess::pid).toList();
            assertEquals(1, rank1.size(), "rank 1's process on " + y);
            assertEquals(0, new ProcessBuilder("kill", "-KILL", Long.toString(rank1.getFirst())).inheritIO().start().waitFor());
            FakeMpirun.waitUntil(5_000, "the cut-off leader is told of rank 1's end or loses the lead",
                    () -> daemonLogAfter(cluster, leader, splitAt).contains("deciding RecoveryStarted")
                            || daemonLogAfter(cluster, leader, splitAt).contains("no longer leads the scheduler"));
            cluster.kill(y);
            job.await("^\\[mpirun-ft\\] recovered replaced=\\[1\\]", 90);
            // Five voters survive two losses: the 3 side's leader must drop the two it cannot reach
            // before it loses a third member, or nobody can commit again (no log can help that).
            FakeMpirun.waitUntil(30_000, "the 3 side's leader removed " + leader + " and " + y + " from the voters",
                    () -> removedVoter(cluster, List.of(a, c, z), leader) && removedVoter(cluster, List.of(a, c, z), y));
            cluster.kill(z);
            // The cut-off leader comes back while the job still runs: it takes the majority's log.
            cluster.heal(leader);
            List<String> live = List.of(leader, a, c);
            try {
                FakeMpirun.waitUntil(60_000, "one table at the heal, on " + live, () -> {
                    Map<String, String> tables = tables(cluster, live);
                    return !tables.containsValue(null) && tables.values().stream().distinct().count() == 1
                            && tables.get(a).contains("rankNodes=[" + a + ", " + c + "]");
                });
            } catch (AssertionError e) {
                System.out.println("tables: " + tables(cluster, live) + "\njob output:\n" + job.output() + "\nevents:\n" + job.eventsText());
                // A merge that never came, or a daemon stuck: the stacks, kept beside the daemons' logs, say which.
                live.forEach(cluster::dumpDaemonThreads);
                throw e;
            }
            System.out.println("tables at the heal: " + tables(cluster, live));
            assertTrue(job.output().lines().noneMatch(l -> l.startsWith("END")), "compared while the job ran");

            assertEquals(0, job.exitCode(), job.output());
            assertEquals(bits, job.resultBits(), "the failure-free run's bits");
            assertEquals(1, Pattern.compile("(?m)^\\[mpirun-ft\\] recovered ").matcher(job.output()).results().count(),
                    "exactly one recovery: " + job.output());
            List<JsonNode> events = job.events();
            job.printEvents(job.eventLog.getFileName().toString());
            List<String> types = events.stream().map(e -> e.get("type").asText()).toList();
            assertEquals(1, types.stream().filter("launch"::equals).count(), "recovered in place, no relaunch: " + types);
            List<JsonNode> decisions = events.stream().filter(e -> e.get("type").asText().equals("decision")).toList();
            assertEquals(1, decisions.size(), "one decision reached the job: " + decisions);
            JsonNode decision = decisions.getFirst();
            assertEquals("pause", decision.get("action").asText(), decision.toString());
            assertEquals(c, decision.get("placement").get("1").asText(), "rank 1 onto the job's spare: " + decision);
            long decidedAfterMs = Duration.between(splitAt, Instant.parse(decision.get("time").asText())).toMillis();
            // The minority's leader saw rank 1's node die at once; the 3 side cannot have known before its detector did.
            assertTrue(decidedAfterMs >= DETECTION_FLOOR.toMillis(), "the decision the job got came " + decidedAfterMs
                    + " ms after the split, before the 3 side could detect it: the minority's leader's order reached a rank");
            System.out.printf("split to decision %d ms%n", decidedAfterMs);
            System.out.println("the cut-off leader's decisions after the split: " + daemonLogAfter(cluster, leader, splitAt).lines()
                    .filter(l -> l.contains("deciding")).toList());

        }
    }

    /** The scheduler's leader, once every daemon names the same one. */
    private static String agreedLeader(SimulatedCluster cluster) throws InterruptedException {
        List<String> all = new ArrayList<>(SLOT_NODES);
        all.add("head");
        String[] agreed = new String[1];
        FakeMpirun.waitUntil(60_000, "every daemon names the same leader", () -> {
            List<String> leaders = all.stream().map(node -> status(cluster, node)).map(s -> s == null ? "" : s.leader()).distinct().toList();
            agreed[0] = leaders.size() == 1 && !leaders.getFirst().isEmpty() ? leaders.getFirst() : null;
            return agreed[0] != null;
        });
        return agreed[0];
    }

    private static ControlReply.StatusReport status(SimulatedCluster cluster, String node) {
        try {
            return new DaemonClient(cluster.stateDirectory().resolve("nodes/" + node + "/ftd.sock")).status();
        } catch (RuntimeException e) {
            return null;
        }
    }

    /** Each node's job table as its daemon reports it (null when it does not answer). */
    private static Map<String, String> tables(SimulatedCluster cluster, List<String> nodes) {
        Map<String, String> tables = new LinkedHashMap<>();
        for (String node : nodes) {
            ControlReply.StatusReport s = status(cluster, node);
            tables.put(node, s == null ? null : s.jobs().stream().map(Object::toString).sorted().collect(Collectors.joining("; ")));
        }
        return tables;
    }

    private static boolean removedVoter(SimulatedCluster cluster, List<String> side, String node) {
        return side.stream().anyMatch(n -> {
            try {
                return daemonLog(cluster, n).contains("removed voter ") && daemonLog(cluster, n).lines()
                        .anyMatch(l -> l.contains("removed voter ") && l.contains("(" + node + ")"));
            } catch (java.io.IOException e) {
                return false;
            }
        });
    }

    /** The daemon's log lines stamped at or after {@code since} (lines start with the local time, HH:mm:ss.SSS). */
    private static String daemonLogAfter(SimulatedCluster cluster, String node, Instant since) {
        String from = java.time.format.DateTimeFormatter.ofPattern("HH:mm:ss.SSS").withZone(java.time.ZoneId.systemDefault()).format(since);
        try {
            return daemonLog(cluster, node).lines().filter(l -> l.length() > 12 && l.substring(0, 12).compareTo(from) >= 0)
                    .collect(Collectors.joining("\n"));
        } catch (java.io.IOException e) {
            return "";
        }
    }

    private static String daemonLog(SimulatedCluster cluster, String node) throws java.io.IOException {
        Path log = cluster.stateDirectory().resolve("nodes/" + node + "/ftd.log");
        return Files.exists(log) ? Files.readString(log) : "";
    }
}
