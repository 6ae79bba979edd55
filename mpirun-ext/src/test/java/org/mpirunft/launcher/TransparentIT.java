package org.mpirunft.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mpirunft.launcher.UserAttempt.assertRefused;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.mpirunft.testkit.MpiJobs;
import org.mpirunft.testkit.SimulatedCluster;

/**
 * Transparent mode (issue 22): programs that know nothing of mpirun-ft, a C ring built with the
 * image's mpicc and a Java ring on Open MPI's Java bindings alone, survive {@code cluster kill}
 * of a node under {@code mpirun-ft --transparent}. mpirun-ft runs on the head node as a user runs
 * it there (the site config of the distribution the nodes run); CRIU dumps every node's part of
 * the job on the scheduler's interval, and the restore puts node2's part on the spare.
 *
 * <p>Each run is judged by its checksum against the failure-free result, computed in this JVM
 * from the ring's arithmetic ({@link TransparentRing#expectedChecksum}), and by where it resumed: iteration 0 is printed once (no start from the
 * beginning), and after the restore the iterations go on from the one after the restored
 * epoch's (printed again: they are redone), to the last.
 *
 * <p>An ordinary user's job (issue 47), created by the test and run as that user, no sudo, is
 * checkpointed and restored the same way, by the daemons as root, and runs as its owner after the
 * restore (uids, gids and groups of every process of the job, the spare's included, from
 * {@code /proc}). Its images are root's alone: neither another user nor its owner can list, read
 * or replace them, one line each, and none are in the owner's checkpoint directory.
 */
class TransparentIT {
    private static final int ITERATIONS = 50;
    private static final int PACE_MS = 150;
    private static final Pattern CHECKSUM = Pattern.compile("(?m)^CHECKSUM (\\d+)$");
    private static final Pattern ITER = Pattern.compile("(?m)^ITER (\\d+) ");
    private static Path work;
    private static Path distribution;
    /**
     * The 4-node tests' cluster, node2 revived after each (a repaired machine: no images, no
     * rules). Their jobs and users have names of their own.
     */
    @RegisterExtension
    static final SharedCluster SHARED = new SharedCluster(() -> SimulatedCluster.upWithDaemons(4, 1, distribution));

    /** The mpirun-ft distribution the nodes run (bin/ftd, bin/mpirun-ft, lib/), from the package phase. */
    @BeforeAll
    static void unpackDistribution() throws IOException, InterruptedException {
        work = Distribution.unpack("transparent-it");
        distribution = work.resolve("dist/mpirun-ft");
    }

    @Test
    void anUnmodifiedCProgramSurvivesANodeLossAndNoUserReachesItsImages() throws Exception {
        SimulatedCluster cluster = SHARED.cluster();
        String bob = "tc" + cluster.name();
        cluster.addUser(bob);
        Path ring = work.resolve("transparent-ring");
        cluster.exec("head", "mpicc", "-O2", "-o", ring.toString(),
                SimulatedCluster.repoRoot().resolve("mpirun-ext/src/test/c/transparent-ring.c").toString());
        survivesTheLossOfNode2(cluster, "cring", "root", ITERATIONS, List.of(ring.toString(), Integer.toString(ITERATIONS),
                Integer.toString(PACE_MS)), new UserChecks("root", bob));
    }

    @Test
    void anUnmodifiedJavaProgramSurvivesANodeLoss() throws Exception {
        SimulatedCluster cluster = SHARED.cluster();
        survivesTheLossOfNode2(cluster, "jring", MpiJobs.java(List.of(), TransparentRing.class, Integer.toString(ITERATIONS),
                Integer.toString(PACE_MS)));
    }

    /**
     * A node lost before the job's first epoch leaves nothing to restore: the job starts again
     * from its beginning, with the spare in the lost node's place (a restart, the only outcome
     * when no image exists), and the spare runs that part on its own job address.
     */
    @Test
    void aJobThatLosesANodeBeforeItsFirstEpochStartsAgainOnTheSpare() throws Exception {
        SimulatedCluster cluster = SHARED.cluster();
        Path ring = work.resolve("transparent-ring-early");
        cluster.exec("head", "mpicc", "-O2", "-o", ring.toString(),
                SimulatedCluster.repoRoot().resolve("mpirun-ext/src/test/c/transparent-ring.c").toString());
        String expected = TransparentRing.expectedChecksum(4, ITERATIONS);
        // No epoch within the run: the first one is ordered ten minutes in.
        Run run = Run.start(cluster, "early", "root",
                unpacedWhen(cluster, "early", List.of(ring.toString(), Integer.toString(ITERATIONS), Integer.toString(PACE_MS))), "10m");
        FakeMpirun.waitUntil(60_000, "the ring's ITER 1", () -> ClusterJob.lastIteration(ITER, run.output()) >= 1);
        cluster.kill("node2");
        unpace(cluster, "early");
        int exit = run.awaitExit();
        String context = "\noutput:\n" + run.output() + "\nevents:\n" + run.eventsText() + "\ndaemons:\n" + cluster.daemonDigest(80, 300);
        assertEquals(0, exit, "exit status" + context);
        assertEquals(expected, checksum(run.output()), "the ring's checksum" + context);
        List<JsonNode> events = run.events();
        JsonNode restart = only(events, "restart");
        assertEquals("spare1", restart.get("replacedNodes").get("node2").asText(), "node2's part restarted on the spare" + context);
        JsonNode lastLaunch = events.stream().filter(e -> e.get("type").asText().equals("launch")).reduce((a, b) -> b).orElseThrow();
        assertEquals(2, lastLaunch.get("attempt").asInt(), "one relaunch" + context);
        assertTrue(lastLaunch.get("rankNodes").toString().contains("spare1"), "the relaunch runs on spare1" + context);
        // Started again from the beginning: the ring's first iteration printed once per launch.
        assertEquals(2, Pattern.compile("(?m)^ITER 0 ").matcher(run.output()).results().count(), "ITER 0 printed by each launch" + context);
    }

    /**
     * A network lock drops the job network's traffic while a node dumps or restores. A daemon
     * that crashed while holding one leaves it, and its successor removes it (the site's own
     * tables stay); a node killed while holding one comes back with no rules, as after a reboot.
     * Kept, the lock made a later job's warm spare on that node hang in MPI_Init for two minutes
     * (scripts/chaos seed 701 job 4).
     */
    @Test
    void aNetworkLockLeftByACrashedDaemonOrAKilledNodeDropsNothingAfterwards() throws Exception {
        try (SimulatedCluster cluster = SimulatedCluster.upWithDaemons(2, 1, distribution)) {
            cluster.exec("node1", "nft", "add", "table", "inet", "mpirunft_left_1");
            cluster.exec("node1", "nft", "add", "table", "inet", "site");
            cluster.crashDaemon("node1");
            String tables = cluster.exec("node1", "nft", "list", "tables");
            assertFalse(tables.contains("mpirunft_left_1"), "the crashed daemon's lock is gone: " + tables);
            assertTrue(tables.contains("table inet site"), "the site's own table stays: " + tables);
            cluster.exec("spare1", "nft", "add", "table", "inet", "mpirunft_left_2");
            cluster.exec("spare1", "nft", "add", "table", "inet", "site");
            cluster.kill("spare1");
            cluster.revive("spare1");
            assertEquals("", cluster.exec("spare1", "nft", "list", "tables").strip(), "a revived node starts with no rules");
        }
    }

    @Test
    void anOrdinaryUsersJobIsRestoredAsItsOwnerAndNoUserReachesItsImages() throws Exception {
        SimulatedCluster cluster = SHARED.cluster();
        String alice = "ta" + cluster.name();
        String bob = "tb" + cluster.name();
        cluster.addUser(alice);
        cluster.addUser(bob);
        // Where every user may read and run it: the cluster's shared storage.
        Path app = Files.createDirectories(cluster.stateDirectory().resolve("shared/tring"));
        Files.setPosixFilePermissions(app, PosixFilePermissions.fromString("rwxr-xr-x"));
        cluster.exec("head", "mpicc", "-O2", "-o", "/shared/tring/transparent-ring",
                SimulatedCluster.repoRoot().resolve("mpirun-ext/src/test/c/transparent-ring.c").toString());
        String job = "uring-" + cluster.name();
        List<String> program = List.of("/shared/tring/transparent-ring", Integer.toString(ITERATIONS), Integer.toString(PACE_MS));
        if (!rootHasCapSysResource()) {
            // CRIU reads each process's resource limits with prlimit(2); on another user's
            // process that needs CAP_SYS_RESOURCE, which this machine's root (and so the
            // daemons) lacks: the daemon refuses the job at its start, one line.
            List<String> command = new ArrayList<>(List.of("mpirun-ft", "--transparent", "--job", job, "-np", "4"));
            command.addAll(program);
            UserAttempt refused = UserAttempt.run(cluster, alice, "head", command.toArray(String[]::new));
            assertRefused(refused, "transparent jobs of users other than root cannot run on head: its daemon lacks CAP_SYS_RESOURCE");
            assertTrue(cluster.processesOn("node1").stream().noneMatch(p -> p.command().contains("prted")), "nothing of it started");
            org.junit.jupiter.api.Assumptions.assumeTrue(false, "this machine's root has no CAP_SYS_RESOURCE, so no daemon here can"
                    + " dump another user's processes: " + alice + "'s job was refused at its start with one line (" + refused.output().strip()
                    + "); its checkpoint, restore and /proc checks need a root with that capability");
        }
        survivesTheLossOfNode2(cluster, job, alice, ITERATIONS, program, new UserChecks(alice, bob));
    }

    /** Whether root here holds CAP_SYS_RESOURCE (its bounding set, which the daemons inherit), from /proc/self/status. */
    private static boolean rootHasCapSysResource() throws IOException {
        String bounding = JobProcesses.field(Files.readString(Path.of("/proc/self/status")), "CapBnd");
        return (Long.parseUnsignedLong(bounding, 16) >>> 24 & 1) == 1;
    }

    /**
     * What a test checks besides the run: that no other user (and no owner but root) can reach
     * the images while the job runs, and, for a user's job, its processes after the restore.
     */
    private record UserChecks(String owner, String other) {
        /**
         * The job's kept epoch is root's alone, in root's directory of the shared storage (and the
         * nodes' images in root's directory of each node), and none is in the owner's own
         * checkpoint directory.
         */
        void imagesAreRootsAlone(SimulatedCluster cluster, String job, int epoch, String node) throws Exception {
            String images = "/shared/mpirun-ft/.transparent";
            String part = images + "/" + owner + "/" + job + "/epoch-" + epoch + "/" + node;
            Path onHost = cluster.stateDirectory().resolve("shared/mpirun-ft/.transparent");
            assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(onHost)), "root's directory of images");
            assertEquals(0, ((Number) Files.getAttribute(onHost, "unix:uid")).intValue(), "owned by root");
            assertTrue(Files.exists(onHost.resolve(owner).resolve(job).resolve("epoch-" + epoch).resolve("manifest.json")),
                    "the epoch is in root's directory under its owner's name");
            Path own = cluster.stateDirectory().resolve("shared/mpirun-ft").resolve(owner).resolve(job);
            try (Stream<Path> files = Files.walk(own)) {
                List<String> names = files.map(p -> own.relativize(p).toString()).toList();
                assertTrue(names.stream().noneMatch(n -> n.contains("transparent") || n.endsWith(".img")),
                        "no image in the owner's checkpoint directory, which the owner writes: " + names);
            }
            assertRefused(UserAttempt.run(cluster, other, "head", "ls", images), "Permission denied");
            assertRefused(UserAttempt.run(cluster, other, "head", "cat", part + "/pstree.img"), "Permission denied");
            assertRefused(UserAttempt.run(cluster, other, "head", "cp", "/bin/true", part + "/pstree.img"), "Permission denied");
            assertRefused(UserAttempt.run(cluster, other, "head", "mv", images, "/shared/mpirun-ft/" + other + "-images"), "Operation not permitted");
            assertRefused(UserAttempt.run(cluster, other, "node1", "ls", "/local/ftd-images"), "Permission denied");
            // No user may make a directory of their own in it, where a job of theirs would be kept.
            assertRefused(UserAttempt.run(cluster, other, "head", "mkdir", images + "/" + other), "Permission denied");
            if (!owner.equals("root")) {
                // Nor the owner: the daemon restores what is there as root, so no user writes there.
                assertRefused(UserAttempt.run(cluster, owner, "head", "cp", "/bin/true", part + "/pstree.img"), "Permission denied");
                assertRefused(UserAttempt.run(cluster, owner, "node3", "ls", "/local/ftd-images"), "Permission denied");
                assertRefused(UserAttempt.run(cluster, owner, "head", "mkdir", images + "/" + owner + "/x"), "Permission denied");
            }
        }

        /** Once the job resumed: every process of it, the spare's part included, runs as its owner. */
        void restoredTreeRunsAsOwner(SimulatedCluster cluster, String job) throws IOException {
            String[] ids = cluster.execAs(owner, "head", "sh", "-c", "id -u; id -g; id -G").strip().split("\n");
            String uid = ids[0].strip();
            String gid = ids[1].strip();
            Set<String> groups = Set.of(ids[2].strip().split("\\s+"));
            Set<Long> onSpare = new java.util.HashSet<>();
            cluster.processesOn("spare1").forEach(p -> onSpare.add(p.pid()));
            Map<String, Integer> counts = new TreeMap<>();
            for (JobProcesses.Process process : JobProcesses.of(job)) {
                boolean spare = onSpare.contains(process.pid());
                counts.merge(process.name() + (spare ? "@spare1" : ""), 1, Integer::sum);
                String where = process.name() + " pid " + process.pid() + (spare ? " on spare1" : "") + " of " + job + " after the restore";
                process.assertRunsAs(uid, gid, where + " (" + owner + ")");
                assertEquals(groups, Set.of(process.field("Groups").split("\\s+")), where + "'s supplementary groups");
            }
            assertTrue(counts.getOrDefault("prted@spare1", 0) == 1 && counts.keySet().stream().anyMatch(n -> n.startsWith("transparent-r")
                    && n.endsWith("@spare1")), "node2's part restored on spare1, its node daemon and its rank: " + counts);
            assertTrue(counts.getOrDefault("prted", 0) == 3, "the survivors' node daemons: " + counts);
            System.out.println("TransparentIT user " + owner + "'s job after the restore, every process uid " + uid + " gid " + gid
                    + " groups " + groups + ": " + counts);
        }
    }

    private void survivesTheLossOfNode2(SimulatedCluster cluster, String name, List<String> program) throws Exception {
        survivesTheLossOfNode2(cluster, name, "root", ITERATIONS, program, null);
    }

    /** {@code user}'s job (root's, or an ordinary user's with {@code checks}) of {@code iterations} loses node2 past a committed epoch. */
    private void survivesTheLossOfNode2(SimulatedCluster cluster, String name, String user, int iterations, List<String> program,
                                        UserChecks checks) throws Exception {
        String expected = TransparentRing.expectedChecksum(4, iterations);
        Run run = Run.start(cluster, name, user, unpacedWhen(cluster, name, program));
        // Lost once an epoch is committed mid-run: one ordered after the ring printed ITER 1, so
        // that its dump holds a ring past its first iteration (an earlier one, taken while the
        // JVMs still start, would rightly print ITER 0 again after the restore).
        try {
            FakeMpirun.waitUntil(60_000, "the ring's ITER 1", () -> ClusterJob.lastIteration(ITER, run.output()) >= 1);
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + "\noutput:\n" + run.output() + "\nevents:\n" + run.eventsText() + "\ndaemons:\n"
                    + cluster.daemonDigest(60, 300), e);
        }
        java.time.Instant iterating = java.time.Instant.now();
        int committed = run.awaitCommittedEpoch(iterating);
        // Two iterations past the commit, so that the restore has some to redo: killed at once,
        // the ring may not have printed one since the dump.
        int atCommit = ClusterJob.lastIteration(ITER, run.output());
        // Bounded loosely: on a loaded machine each checkpoint stalls the ring for seconds.
        FakeMpirun.waitUntil(60_000, "two iterations after epoch " + committed + " committed",
                () -> ClusterJob.lastIteration(ITER, run.output()) >= atCommit + 2);
        int lastBeforeKill = ClusterJob.lastIteration(ITER, run.output());
        String node2Address = jobAddress(cluster, "node2");
        cluster.kill("node2");
        if (checks != null && !user.equals("root")) {
            FakeMpirun.waitUntil(60_000, "the job resumed after the restore", () -> run.eventsText().contains("\"type\":\"resume\""));
            checks.restoredTreeRunsAsOwner(cluster, name);
        }
        unpace(cluster, name);
        int exit = run.awaitExit();
        String output = run.output();
        List<JsonNode> events = run.events();
        String context = "\noutput:\n" + output + "\nevents:\n" + run.eventsText() + "\ndaemons:\n" + cluster.daemonDigest(60, 240);
        assertEquals(0, exit, "mpirun-ft's exit" + context);
        assertEquals(expected, checksum(output), "the failure-free run's checksum" + context);

        JsonNode decision = only(events, "decision");
        assertEquals("restore", decision.get("action").asText(), context);
        JsonNode replacement = only(events, "replacement");
        assertEquals("node2", replacement.get("fromNode").asText());
        assertEquals("spare1", replacement.get("toNode").asText(), "node2's part restored on the spare" + context);
        assertEquals("restore", replacement.get("start").asText());
        JsonNode resume = only(events, "resume");
        int epoch = resume.get("epoch").asInt();
        assertTrue(epoch >= committed, "restored from the last committed epoch " + committed + " or a later one: " + epoch + context);

        // Where it resumed: the iterations after the restore start again below the last one
        // printed before the kill, never at 0, and run on one by one to the end.
        List<Integer> iterationsSeen = new ArrayList<>();
        Matcher m = ITER.matcher(output);
        while (m.find()) {
            iterationsSeen.add(Integer.parseInt(m.group(1)));
        }
        assertEquals(1, iterationsSeen.stream().filter(i -> i == 0).count(), "started once, not again from the beginning" + context);
        int rollback = -1;
        for (int i = 1; i < iterationsSeen.size(); i++) {
            if (iterationsSeen.get(i) <= iterationsSeen.get(i - 1)) {
                assertEquals(-1, rollback, "one rollback" + context);
                rollback = i;
            } else {
                assertEquals(iterationsSeen.get(i - 1) + 1, iterationsSeen.get(i), "iterations in order" + context);
            }
        }
        assertTrue(rollback > 0, "the job was rolled back to its epoch and redid iterations" + context);
        int resumedAt = iterationsSeen.get(rollback);
        assertTrue(resumedAt > 0 && resumedAt <= lastBeforeKill + 1,
                "resumed at iteration " + resumedAt + ", after the epoch's and no later than the kill's (" + lastBeforeKill + ")" + context);
        assertEquals(iterations - 1, iterationsSeen.getLast().intValue(), context);
        // The epochs kept: the last committed, and the one after it if that committed too (each
        // checkpoint deletes those before the committed one first). The newest manifest: every
        // part whole, with its checksums.
        // In root's own directory of the shared storage, under the job's owner's name.
        Path transparent = cluster.stateDirectory().resolve("shared/mpirun-ft/.transparent").resolve(user).resolve(name);
        List<Integer> kept;
        try (var entries = Files.list(transparent)) {
            kept = entries.map(p -> p.getFileName().toString()).filter(f -> f.startsWith("epoch-"))
                    .map(f -> Integer.parseInt(f.substring("epoch-".length()))).sorted().toList();
        }
        long committedEpochs = events.stream().filter(e -> e.get("type").asText().equals("checkpoint")
                && e.get("phase").asText().equals("committed")).count();
        assertTrue(kept.size() <= 2 && (committedEpochs <= 2 || !kept.contains(1)),
                "epochs kept on shared storage: " + kept + " of " + committedEpochs + " committed" + context);
        // The job may have ended in the middle of the newest one's staging.
        int newest = kept.reversed().stream().filter(e -> Files.exists(transparent.resolve("epoch-" + e + "/manifest.json")))
                .findFirst().orElseThrow(() -> new AssertionError("no manifest kept in " + transparent + context));
        JsonNode manifest = new ObjectMapper().readTree(transparent.resolve("epoch-" + newest + "/manifest.json").toFile());
        // Dumped after the restore, node2's part is the spare's.
        assertEquals(java.util.Set.of("head", "node1", newest > epoch ? "spare1" : "node2", "node3", "node4"), fieldNames(manifest.get("parts")),
                "epoch " + newest + "'s parts" + context);
        if (checks != null) {
            // After the job, not while it runs: the tries would hold the kill back past later epochs.
            checks.imagesAreRootsAlone(cluster, name, newest, newest > epoch ? "spare1" : "node2");
        }
        if (newest > epoch) {
            // The spare's tree runs on node2's address, not the spare's own: a later restore of this
            // part, on another spare, takes it again.
            assertEquals(node2Address, manifest.get("parts").get("spare1").get("address").asText(), "spare1's part's address" + context);
        }
        long bytes = 0;
        for (JsonNode part : manifest.get("parts")) {
            assertTrue(part.get("sha256").size() > 5, "a checksum per image file: " + part);
            bytes += part.get("bytes").asLong();
        }
        double stallMs = events.stream().filter(e -> e.get("type").asText().equals("checkpoint") && e.get("epoch").asInt() == epoch
                && e.get("phase").asText().equals("committed")).findFirst().orElseThrow().get("durationMs").asDouble();
        System.out.printf("TransparentIT %s: node2 lost at ITER %d, restored from epoch %d on spare1 in %.0f ms (stop %.0f ms, restore %.0f ms),"
                + " resumed at ITER %d; checksum %s; epoch %d stalled the job %.0f ms; epoch %d: 5 parts, %.1f MB of images; epochs kept %s"
                + " of %d committed%n", name, lastBeforeKill, epoch, resume.get("recoveryMs").asDouble(),
                resume.get("split").get("shrinkMillis").asDouble(), resume.get("split").get("loadMillis").asDouble(), resumedAt, expected,
                epoch, stallMs, newest, bytes / 1e6, kept, committedEpochs);

        for (String node : cluster.nodes()) {
            FakeMpirun.waitUntil(15_000, "nothing of " + name + " left on " + node, () -> cluster.processesOn(node).stream()
                    .noneMatch(p -> p.command().contains("prted") || p.command().contains("prterun") || p.command().contains("ring")
                            || p.command().contains("criu")));
            // Each dump is as large as the node's part of the job: the job's end takes them away.
            Path images = cluster.stateDirectory().resolve("nodes").resolve(node).resolve("local/ftd-images").resolve(name);
            try {
                FakeMpirun.waitUntil(15_000, "no images of " + name + " left on " + node + " in " + images, () -> Files.notExists(images));
            } catch (AssertionError e) {
                // Which epochs stayed, and what the daemons said of the job's dumps and prunes.
                String left;
                try (Stream<Path> tree = Files.walk(images, 2)) {
                    left = tree.map(p -> images.relativize(p).toString()).sorted().collect(java.util.stream.Collectors.joining(" "));
                }
                throw new AssertionError(e.getMessage() + "; left: " + left + "\ndaemons:\n" + cluster.daemonDigest(120, 400), e);
            }
        }
        // The spare took node2's floating address for the restore; the job over, it gives it back,
        // or node2, repaired, would come back with an address another node answers for.
        FakeMpirun.waitUntil(15_000, "spare1 gave back node2's floating address " + node2Address + ", taken over for " + name,
                () -> !cluster.exec("spare1", "ip", "-4", "-o", "addr", "show", "dev", "job0").contains(" " + node2Address + " "));
        assertNotEquals(node2Address, jobAddress(cluster, "spare1"), "spare1 keeps its own job address");
    }

    /** {@code node}'s own address on the job network (CIDR), the first of its job interface's. */
    private static String jobAddress(SimulatedCluster cluster, String node) {
        return java.util.Arrays.stream(cluster.exec(node, "ip", "-4", "-o", "addr", "show", "dev", "job0").split("\\s+"))
                .filter(w -> w.matches("\\d+\\.\\d+\\.\\d+\\.\\d+/\\d+")).findFirst()
                .orElseThrow(() -> new AssertionError(node + " has no address on job0"));
    }

    private static java.util.Set<String> fieldNames(JsonNode node) {
        java.util.Set<String> names = new java.util.TreeSet<>();
        node.fieldNames().forEachRemaining(names::add);
        return names;
    }

    /**
     * {@code program} (a ring) with the file that unpaces it as its last argument: on the shared
     * directory, where every node and every user's rank sees it. Once the test has seen the loss
     * and the restore, the rest of the ring need not be paced ({@link #unpace}).
     */
    private static List<String> unpacedWhen(SimulatedCluster cluster, String job, List<String> program) throws IOException {
        Files.deleteIfExists(unpacedFile(cluster, job));
        List<String> args = new ArrayList<>(program);
        args.add("/shared/unpaced-" + job);
        return args;
    }

    private static void unpace(SimulatedCluster cluster, String job) throws IOException {
        Files.writeString(unpacedFile(cluster, job), "");
    }

    private static Path unpacedFile(SimulatedCluster cluster, String job) {
        return cluster.stateDirectory().resolve("shared/unpaced-" + job);
    }

    private static String checksum(String output) {
        Matcher m = CHECKSUM.matcher(output);
        assertTrue(m.find(), "no CHECKSUM line in:\n" + output);
        return m.group(1);
    }

    private static JsonNode only(List<JsonNode> events, String type) {
        List<JsonNode> found = events.stream().filter(e -> e.get("type").asText().equals(type)).toList();
        assertEquals(1, found.size(), "one '" + type + "' event: " + found);
        return found.getFirst();
    }

    /** One mpirun-ft job started on the head node, its output (stdout and stderr) collected. */
    private record Run(SimulatedCluster cluster, String job, String user, Process process, ProcessOutput out) {
        /** Started as {@code user}: root, or an ordinary user, as a user runs it (no sudo). */
        static Run start(SimulatedCluster cluster, String job, String user, List<String> program) {
            return start(cluster, job, user, program, "4s");
        }

        static Run start(SimulatedCluster cluster, String job, String user, List<String> program, String interval) {
            List<String> command = new ArrayList<>(List.of("mpirun-ft", "--transparent", "--job", job, "-np", "4",
                    "--checkpoint-interval", interval, "--exit-timeout", "15s"));
            command.addAll(program);
            Process process = user.equals("root") ? cluster.start("head", command) : cluster.startAs(user, "head", command);
            return new Run(cluster, job, user, process, ProcessOutput.of(process));
        }

        String output() {
            return out.toString();
        }

        int awaitExit() throws InterruptedException {
            return out.awaitExit(process, job);
        }

        Path eventLog() {
            return cluster.stateDirectory().resolve("shared/mpirun-ft").resolve(user).resolve(job).resolve(LaunchSettings.EVENT_LOG_NAME);
        }

        String eventsText() {
            try {
                return Files.exists(eventLog()) ? Files.readString(eventLog()) : "(no event log)";
            } catch (IOException e) {
                return "(" + e.getMessage() + ")";
            }
        }

        List<JsonNode> events() throws IOException {
            ObjectMapper mapper = new ObjectMapper();
            List<JsonNode> events = new ArrayList<>();
            for (String line : Files.readAllLines(eventLog())) {
                if (!line.isBlank()) {
                    events.add(mapper.readTree(line));
                }
            }
            return events;
        }

        /** Waits for the first epoch committed of those ordered after {@code after}; returns its number. */
        int awaitCommittedEpoch(java.time.Instant after) throws Exception {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (System.nanoTime() < deadline && process.isAlive()) {
                if (Files.exists(eventLog())) {
                    java.util.Set<Integer> orderedAfter = new java.util.HashSet<>();
                    for (JsonNode event : events()) {
                        if (!event.get("type").asText().equals("checkpoint")) {
                            continue;
                        }
                        int epoch = event.get("epoch").asInt();
                        String phase = event.get("phase").asText();
                        if (phase.equals("ordered") && java.time.Instant.parse(event.get("time").asText()).isAfter(after)) {
                            orderedAfter.add(epoch);
                        } else if (phase.equals("committed") && orderedAfter.contains(epoch)) {
                            return epoch;
                        }
                    }
                }
                Thread.sleep(50);
            }
            throw new AssertionError("no epoch of " + job + " committed; output:\n" + output() + "\nevents:\n" + eventsText());
        }
    }
}
