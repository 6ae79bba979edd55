package org.mpirunft.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mpirunft.launcher.UserAttempt.assertRefused;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.mpirunft.bridge.pause.RollbackRank;
import org.mpirunft.common.MpirunSettings;
import org.mpirunft.testkit.MpiJobs;
import org.mpirunft.testkit.SimulatedCluster;

/**
 * A cluster service for many users (issue 47): on the simulated cluster (4 compute nodes, 2
 * spares), two ordinary users that this test creates each run a job at the same time with
 * {@code mpirun-ft -np 4 --spares 1} from the head node, as themselves and with no sudo. Alice's
 * job has a rank on node2 and Bob's has none; node2 is killed. Alice's job recovers in place from
 * its last committed epoch, its lost rank taken by the warm spare, and ends with the failure-free
 * bits, which Bob's untouched job of the same program printed.
 *
 * <p>While both run: every Open MPI node daemon and rank of each job runs as its owner (uid, gid
 * and groups read from {@code /proc}), none as root; and Bob cannot see the details of Alice's
 * job, order its checkpoint or migration, stop it, read or write its checkpoints, or pass a
 * process of his as a rank of it on the rank channel: one line each, and her job goes on. A
 * capture of the daemons' group traffic on the simulated switch, all along, holds neither job's
 * name: with the defaults the group's traffic is encrypted. Bob cannot keep Alice's job from
 * starting by making the directories Open MPI would name after her processes' PIDs first: each of
 * her mpirun and node daemons has a temporary directory of its own, gone with the job.
 */
class MultiUserIT {
    /** Long enough for Bob's tries before the kill; a checkpoint every 5 iterations. */
    private static final ClusterJob.Program PROGRAM = new ClusterJob.Program(1000, 200, 150, RollbackRank.class);
    private static final int EVERY = 5;
    /** The file that unpaces both jobs' program, on the cluster's shared storage ({@link org.mpirunft.testkit.Pacing}). */
    private static final String UNPACED = "shared/unpaced";
    private static final Pattern ITER = Pattern.compile("(?m)^ITER (\\d+)$");

    @Test
    void twoUsersRunSideBySideEachAsItselfAndNeitherReachesTheOther() throws Exception {
        Path work = Distribution.unpack("multi-user-it");
        try (SimulatedCluster cluster = SimulatedCluster.upWithDaemons(4, 2, work.resolve("dist/mpirun-ft"))) {
            String alice = "a" + cluster.name();
            String bob = "b" + cluster.name();
            cluster.addUser(alice);
            cluster.addUser(bob);
            List<String> program = userProgram(cluster);
            String aliceJob = "ajob-" + cluster.name();
            String bobJob = "bjob-" + cluster.name();
            Path capture = work.resolve("group-" + cluster.name() + ".pcap");
            Process tcpdump = captureGroupTraffic(cluster, capture);
            try {
                // Bob first makes every name Open MPI would give the session directory of Alice's
                // mpirun on head (/tmp/ompi.PID) and of her node daemon on node1 (/tmp/prted.PID).
                squatSessionDirectories(cluster, bob, "head", "ompi.");
                squatSessionDirectories(cluster, bob, "node1", "prted.");
                UserJob a = UserJob.start(cluster, alice, aliceJob, "node1:1,node2:1,node3:1,node4:1,spare1:1", program);
                UserJob b = UserJob.start(cluster, bob, bobJob, "node1:2,node3:2,spare2:1", program);
                a.awaitIteration(3);
                b.awaitIteration(3);

                assertProcessesRunAs(cluster, aliceJob, alice, 5);
                assertProcessesRunAs(cluster, bobJob, bob, 3);
                // Bob's tries are judged on the daemons' own copies of the job table (head's for his
                // commands, node1's for his process on its rank channel). Alice's registration
                // committed on head's copy before her launch; a follower's copy may still lag under
                // load. Both must list her job first, or the refusals below would be for another reason.
                for (String node : List.of("head", "node1")) {
                    awaitJobInTable(cluster, node, aliceJob);
                }

                String status = UserAttempt.run(cluster, bob, "head", "mpirun-ft", "status").output();
                String row = status.lines().filter(l -> l.startsWith(aliceJob)).findFirst()
                        .orElseThrow(() -> new AssertionError(status + "\ndaemons:\n" + cluster.daemonDigest(60, 240)));
                assertTrue(row.matches(Pattern.quote(aliceJob) + " +" + alice + " +- +pause +- +- +- +running +-"),
                        "Bob sees Alice's job as squeue shows another's: its name, owner, mode and state only: " + row);
                assertRefused(UserAttempt.run(cluster, bob, "head", "mpirun-ft", "checkpoint", aliceJob), bob + " may not order a checkpoint of job " + aliceJob);
                assertRefused(UserAttempt.run(cluster, bob, "head", "mpirun-ft", "migrate", aliceJob, "node1"), bob + " may not migrate job " + aliceJob);
                assertRefused(UserAttempt.run(cluster, bob, "head", "ftd", "kill-job", aliceJob), bob + " may not stop job " + aliceJob);
                String aliceFiles = "/shared/mpirun-ft/" + alice;
                assertRefused(UserAttempt.run(cluster, bob, "head", "ls", aliceFiles), "Permission denied");
                assertRefused(UserAttempt.run(cluster, bob, "head", "touch", aliceFiles + "/" + aliceJob + "/epoch-1"), "Permission denied");
                UserAttempt probe = UserAttempt.run(cluster, bob, "head", "java", MpiJobs.NATIVE_ACCESS, "-cp", String.join(":", program.subList(3, 4)),
                        RankChannelProbe.class.getName(), "/ftc/nodes/node1/rank/ranks.sock", aliceJob);
                assertTrue(probe.output().strip().startsWith("REFUSED: ")
                                && probe.output().contains("job " + aliceJob + " is " + alice + "'s, and its ranks run as " + alice + ", not as " + bob),
                        () -> "Bob's process is no rank of Alice's job: " + probe.output() + "\nnode1's status:\n"
                                + cluster.exec("node1", "ftd", "status") + "\ndaemons:\n" + cluster.daemonDigest(60, 240));

                // Alice's job went on through all of that; now it loses node2, two iterations past a committed epoch.
                long committed = a.awaitCommittedEpoch();
                a.awaitIteration((int) committed * EVERY + 2);
                assertFalse(a.output().contains("recovered"), "nothing Bob did touched Alice's job: " + a.output());
                cluster.kill("node2");
                // Nothing more is done to either job: the rest of both runs need not be paced.
                Files.createFile(cluster.stateDirectory().resolve(UNPACED));

                assertEquals(0, a.awaitExit(), "Alice's job" + a.context(cluster));
                assertEquals(0, b.awaitExit(), "Bob's job" + b.context(cluster));
                stopCapture(tcpdump);
                byte[] captured = Files.readAllBytes(capture);
                assertTrue(captured.length > 10_000, "the daemons' group traffic was captured on the switch: " + captured.length + " bytes");
                String wire = new String(captured, StandardCharsets.ISO_8859_1);
                assertFalse(wire.contains(aliceJob) || wire.contains(bobJob),
                        "with the defaults the group's traffic is encrypted: no job name in clear on the switch");
                for (String node : List.of("head", "node1")) {
                    try (Stream<Path> left = Files.list(cluster.stateDirectory().resolve("nodes").resolve(node).resolve("tmp"))) {
                        assertEquals(List.of(), left.map(p -> p.getFileName().toString()).filter(n -> n.startsWith("mpirun-ft-")).toList(),
                                "the jobs' temporary directories on " + node + " went with the jobs");
                    }
                }
                String bits = b.resultBits();
                assertEquals(bits, a.resultBits(), "Alice's recovered job ends with the bits of Bob's failure-free run of the same program");

                JsonNode resume = a.only("resume");
                assertEquals(List.of(1), ints(resume.get("replacedRanks")), "rank 1 was on node2: " + resume);
                long epoch = resume.get("epoch").asLong();
                assertTrue(epoch >= committed, "resumed from the last committed epoch " + committed + " or a later one: " + resume);
                assertEquals(epoch * EVERY, resume.get("iteration").asLong(), "resumed at that epoch's iteration: " + resume);
                JsonNode replacement = a.only("replacement");
                assertEquals("spare1", replacement.get("toNode").asText(), "the lost rank went to Alice's spare: " + replacement);
                assertEquals(List.of(), b.events().stream().map(e -> e.get("type").asText())
                        .filter(t -> List.of("failure", "decision", "pause", "resume", "restart").contains(t)).toList(),
                        "Bob's job saw no failure: " + b.eventsText());
                System.out.println("alice's recovery: " + resume + "\nbob's status row of alice's job: " + row + "\nbob's tries refused as expected");
            } finally {
                stopCapture(tcpdump);
            }
        }
    }

    /**
     * Makes, as {@code user} on {@code node}, a directory {@code /tmp/PREFIX.PID} for every PID the
     * node can give: PRRTE refuses a session directory that another user made, so without a
     * private temporary directory of their own the other user's jobs could not start there.
     */
    private static void squatSessionDirectories(SimulatedCluster cluster, String user, String node, String prefix) {
        cluster.execAs(user, node, "sh", "-c", "cd /tmp && seq 1 $(cat /proc/sys/kernel/pid_max) | sed 's/^/" + prefix
                + "/' | xargs mkdir -m 0700 && ls | grep -c '^" + prefix.replace(".", "\\.") + "'");
    }

    /**
     * Waits up to 60 s until the daemon on {@code node} lists {@code job} in its copy of the job
     * table ({@code ftd status}, as root); fails with the daemons' decisions if it never does.
     */
    private static void awaitJobInTable(SimulatedCluster cluster, String node, String job) throws InterruptedException {
        try {
            FakeMpirun.waitUntil(60_000, "the daemon on " + node + " lists " + job + " in its job table",
                    () -> cluster.exec(node, "ftd", "status").lines().anyMatch(l -> l.startsWith("job " + job + " ")));
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + "; its status:\n" + cluster.exec(node, "ftd", "status") + "\ndaemons:\n"
                    + cluster.daemonDigest(60, 240), e);
        }
    }

    /**
     * Captures the daemons' group traffic (JGroups' port) on the simulated switch, as anyone on
     * the cluster network could: the scheduler's updates name every job.
     */
    private static Process captureGroupTraffic(SimulatedCluster cluster, Path file) throws Exception {
        Process tcpdump = new ProcessBuilder("ip", "netns", "exec", "mpirun-ft-" + cluster.name() + "-switch", "tcpdump", "-U", "-q",
                "-i", "any", "-w", file.toString(), "tcp port 7800").redirectErrorStream(true)
                .redirectOutput(file.resolveSibling(file.getFileName() + ".log").toFile()).start();
        FakeMpirun.waitUntil(10_000, "tcpdump listening on the switch", () -> Files.exists(file));
        return tcpdump;
    }

    /** Ends the capture (SIGTERM: tcpdump writes what it has) within 10 s, else kills it. */
    private static void stopCapture(Process tcpdump) throws InterruptedException {
        tcpdump.destroy();
        if (!tcpdump.waitFor(10, TimeUnit.SECONDS)) {
            tcpdump.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }

    /** Every Open MPI node daemon and rank of {@code job} (its tag in their environment) runs as {@code user}, as /proc says. */
    private static void assertProcessesRunAs(SimulatedCluster cluster, String job, String user, int nodes) throws IOException {
        String[] ids = cluster.execAs(user, "head", "sh", "-c", "id -u; id -g; id -G").strip().split("\n");
        String uid = ids[0].strip();
        String gid = ids[1].strip();
        Map<String, Integer> counts = new TreeMap<>();
        for (JobProcesses.Process process : JobProcesses.of(job)) {
            counts.merge(process.name(), 1, Integer::sum);
            String where = process.name() + " pid " + process.pid() + " of " + job;
            process.assertRunsAs(uid, gid, where + " (" + user + ")");
            assertEquals(ids[2].strip(), process.field("Groups"), where + "'s supplementary groups");
        }
        assertTrue(counts.getOrDefault("prted", 0) >= nodes, "a node daemon of " + job + " on each of its " + nodes + " nodes: " + counts);
        assertTrue(counts.getOrDefault("java", 0) >= 5, "its 4 ranks and its warm spare: " + counts);
    }

    /**
     * The test program as a user runs it: its class path copied where every user may read it (the
     * cluster's shared storage; the build's own files may be under root's home). Element 3 is the
     * class path.
     */
    private static List<String> userProgram(SimulatedCluster cluster) throws IOException {
        Path app = cluster.stateDirectory().resolve("shared/app");
        List<String> entries = new ArrayList<>();
        int n = 0;
        for (String entry : MpiJobs.rankClassPath().split(File.pathSeparator)) {
            Path from = Path.of(entry);
            Path to = app.resolve(n++ + "-" + from.getFileName());
            copy(from, to);
            entries.add("/shared/app/" + to.getFileName());
        }
        List<String> command = new ArrayList<>(List.of("java", MpiJobs.NATIVE_ACCESS, "-cp", String.join(":", entries),
                PROGRAM.main().getName()));
        command.addAll(PROGRAM.args(Path.of("/").resolve(UNPACED)));
        return command;
    }

    private static void copy(Path from, Path to) throws IOException {
        try (Stream<Path> tree = Files.walk(from)) {
            for (Path source : tree.toList()) {
                Path target = to.resolve(from.relativize(source).toString());
                if (Files.isDirectory(source)) {
                    Files.createDirectories(target);
                    Files.setPosixFilePermissions(target, PosixFilePermissions.fromString("rwxr-xr-x"));
                } else {
                    Files.createDirectories(target.getParent());
                    Files.copy(source, target);
                    Files.setPosixFilePermissions(target, PosixFilePermissions.fromString("rw-r--r--"));
                }
            }
        }
        Files.setPosixFilePermissions(to.getParent(), PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    private static List<Integer> ints(JsonNode array) {
        List<Integer> values = new ArrayList<>();
        array.forEach(v -> values.add(v.asInt()));
        return values;
    }

    /** One user's job, run on the head node as that user; its output and its event log (in the user's directory). */
    private record UserJob(String user, String job, Process process, ProcessOutput out, Path eventLog) {
        static UserJob start(SimulatedCluster cluster, String user, String job, String hosts, List<String> program) {
            List<String> command = new ArrayList<>(List.of("mpirun-ft", "--job", job, "-np", "4", "--host", hosts, "--spares", "1",
                    "--checkpoint-interval", "every " + EVERY, "--exit-timeout", "15s"));
            command.addAll(MpirunSettings.SHARED_CORES.argv());
            command.addAll(program);
            Process process = cluster.startAs(user, "head", command);
            Path eventLog = cluster.stateDirectory().resolve("shared/mpirun-ft").resolve(user).resolve(job)
                    .resolve(LaunchSettings.EVENT_LOG_NAME);
            return new UserJob(user, job, process, ProcessOutput.of(process), eventLog);
        }

        String output() {
            return out.toString();
        }

        void awaitIteration(int iteration) throws InterruptedException {
            FakeMpirun.waitUntil(ClusterJob.BOUND_SECONDS * 1000, job + "'s ITER " + iteration,
                    () -> ClusterJob.lastIteration(ITER, output()) >= iteration || !process.isAlive());
            assertTrue(ClusterJob.lastIteration(ITER, output()) >= iteration, job + " ended before its ITER " + iteration + ":\n" + output());
        }

        long awaitCommittedEpoch() throws InterruptedException {
            FakeMpirun.waitUntil(ClusterJob.BOUND_SECONDS * 1000, "a committed epoch of " + job,
                    () -> events().stream().anyMatch(e -> e.get("type").asText().equals("checkpoint")));
            return events().stream().filter(e -> e.get("type").asText().equals("checkpoint")).mapToLong(e -> e.get("epoch").asLong())
                    .max().orElseThrow();
        }

        int awaitExit() throws InterruptedException {
            return out.awaitExit(process, job);
        }

        String resultBits() {
            Matcher m = ClusterJob.RESULT.matcher(output());
            assertTrue(m.find(), job + " printed its result: " + output());
            return m.group(1);
        }

        List<JsonNode> events() {
            try {
                return Files.exists(eventLog) ? EventLog.read(eventLog) : List.of();
            } catch (RuntimeException e) {
                return List.of();
            }
        }

        String eventsText() {
            try {
                return Files.exists(eventLog) ? Files.readString(eventLog) : "(no event log)";
            } catch (IOException e) {
                return "(unreadable: " + e.getMessage() + ")";
            }
        }

        JsonNode only(String type) {
            List<JsonNode> found = events().stream().filter(e -> e.get("type").asText().equals(type)).toList();
            assertEquals(1, found.size(), "one '" + type + "' event of " + job + ": " + eventsText());
            return found.getFirst();
        }

        String context(SimulatedCluster cluster) {
            return "\noutput:\n" + output().replaceAll("(?m)^ITER \\d+\n", "") + "\nevents:\n" + eventsText() + "\ndaemons:\n"
                    + cluster.daemonDigest(60, 240);
        }
    }
}
