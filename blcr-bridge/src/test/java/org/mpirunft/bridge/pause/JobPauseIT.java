package org.mpirunft.bridge.pause;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.mpirunft.bridge.FtConfig;
import org.mpirunft.testkit.MpiJobs;
import org.mpirunft.testkit.OutputWatcher;
import org.mpirunft.testkit.SimulatedCluster;

/**
 * Job pause end to end on 4 compute nodes and 2 spares, one rank per node: real kills of
 * whole nodes or single rank processes, and damaged checkpoints. Every run must finish with
 * the bit-identical result of a failure-free run; survivors must keep their PIDs.
 */
class JobPauseIT {
    private static final String HOSTS = "node1:1,node2:1,node3:1,node4:1,spare1:1,spare2:1";
    /** 4 MB of state per rank, 100 iterations of 25 ms or more. */
    private static final Load NORMAL = new Load(500_000, 100, 25, 1);
    /**
     * 64 MB per rank, so writing a part takes long enough to kill a node during it. The sine of
     * every 16th double only: the parts are as large, the iterations 16 times lighter; the pace
     * keeps several iterations between the epochs' writes.
     */
    private static final Load BIG = new Load(8_000_000, 40, 80, 16);
    private static final Pattern WHERE = Pattern.compile("^(START|END) rank=(\\d+) pid=(\\d+) host=(\\S+)");
    private static final Pattern RESULT = Pattern.compile("^RESULT bits=(\\S+) value=(\\S+) recoveries=(\\d+)");
    private static final Pattern REPORT = Pattern.compile("^REPORT \\[mpirun-ft\\] recovered replaced=\\[([0-9,]*)\\] epoch=(\\d+).*");
    private static final Duration RUN_BOUND = Duration.ofSeconds(120);

    private static String referenceBits;

    @BeforeAll
    static void failureFreeRun() throws Exception {
        referenceBits = referenceRun("reference", NORMAL);
    }

    @Test
    void rollsBackSurvivorsInPlaceWhenNodeIsKilled() throws Exception {
        try (SimulatedCluster cluster = SimulatedCluster.up(4, 2)) {
            Job job = Job.start(cluster, "nodekill", NORMAL);
            List<Long> node3 = pidsOn(cluster, "node3", job);
            job.awaitIteration(41); // mid-run, between the checkpoints at 40 and 50
            // Epoch 4, taken before iteration 40, commits at a later safe point, once every part is written.
            waitForFile(Duration.ofSeconds(60), () -> manifestOf(cluster.stateDirectory().resolve("shared/ckpt").resolve(job.id), 4));
            long killedAt = System.currentTimeMillis();
            killNow(cluster, "node3", node3);
            job.finish();
            assertEquals(referenceBits, job.resultBits(), "result after a node loss must be bit-identical");
            job.assertSurvivorsKeptPids(List.of(0, 1, 3));
            assertEquals("spare1", job.where("END", 2).host(), "rank 2 must run on the spare it was given");
            assertEquals(1, job.reports().size(), "exactly one recovery");
            Matcher report = job.reports().getFirst();
            assertEquals("2", report.group(1), "replaced ranks");
            assertEquals("4", report.group(2), "rollback epoch: the checkpoint at iteration 40");
            job.printRecovery(killedAt);
        }
    }

    @Test
    void recoversWhenOnlyTheRankProcessIsKilled() throws Exception {
        try (SimulatedCluster cluster = SimulatedCluster.up(4, 2)) {
            Job job = Job.start(cluster, "rankkill", NORMAL);
            job.awaitIteration(35);
            long pid = cluster.processesOn("node2").stream().filter(p -> p.command().equals("java")).findFirst()
                    .orElseThrow().pid();
            // The node stays up: its Open MPI daemon runs on (looked at for 10 s at most: once, in
            // a suite run, one listing of node2's processes had the rank and not its daemon).
            List<SimulatedCluster.NodeProcess> seen = cluster.processesOn("node2");
            for (long until = System.nanoTime() + 10_000_000_000L; seen.stream().noneMatch(p -> p.command().equals("prted"))
                    && System.nanoTime() < until; seen = cluster.processesOn("node2")) {
                Thread.sleep(200);
            }
            List<SimulatedCluster.NodeProcess> node2 = seen;
            assertTrue(node2.stream().anyMatch(p -> p.command().equals("prted")), () -> "node2's prted runs beside its rank: " + node2);
            long killedAt = System.currentTimeMillis();
            new ProcessBuilder("kill", "-9", Long.toString(pid)).start().waitFor();
            job.finish();
            assertEquals(referenceBits, job.resultBits());
            job.assertSurvivorsKeptPids(List.of(0, 2, 3));
            assertEquals("spare1", job.where("END", 1).host());
            assertEquals(1, job.reports().size(), "exactly one recovery");
            job.printRecovery(killedAt);
        }
    }

    @Test
    void survivesTwoFailuresOneAfterTheOther() throws Exception {
        try (SimulatedCluster cluster = SimulatedCluster.up(4, 2)) {
            Job job = Job.start(cluster, "twokills", NORMAL);
            job.awaitIteration(25);
            cluster.kill("node2");
            job.awaitReports(1);
            job.awaitIteration(65);
            cluster.kill("node4");
            job.finish();
            assertEquals(referenceBits, job.resultBits());
            job.assertSurvivorsKeptPids(List.of(0, 2));
            assertEquals("spare1", job.where("END", 1).host(), "first replacement on the first spare");
            assertEquals("spare2", job.where("END", 3).host(), "second replacement on its own spare");
            assertEquals(2, job.reports().size());
        }
    }

    @Test
    void ignoresTheEpochWhoseWriteTheKillInterrupted() throws Exception {
        try (SimulatedCluster cluster = SimulatedCluster.up(4, 2)) {
            Job job = Job.start(cluster, "killwrite", BIG);
            Path localJob = cluster.localStorage("node2").resolve("ckpt").resolve(job.id);
            Path sharedJob = cluster.stateDirectory().resolve("shared/ckpt").resolve(job.id);
            List<Long> node2 = pidsOn(cluster, "node2", job);
            Path partial = waitForFile(Duration.ofSeconds(90), () -> findPartial(localJob, sharedJob, 1, 2));
            long epoch = epochOf(partial);
            killNow(cluster, "node2", node2);
            assertTrue(!Files.exists(sharedJob.resolve(String.format("epoch-%010d", epoch)).resolve("manifest.json")),
                    "the interrupted epoch " + epoch + " must not have committed");
            job.finish();
            assertEquals(bigReferenceBits(), job.resultBits());
            assertEquals(1, job.reports().size(), "exactly one recovery");
            assertEquals(Long.toString(epoch - 1), job.reports().getFirst().group(2),
                    "recovery must use the epoch before the interrupted one (" + partial + ")");
        }
    }

    @Test
    void fallsBackToThePreviousEpochWhenThePartIsCorrupt() throws Exception {
        try (SimulatedCluster cluster = SimulatedCluster.up(4, 2)) {
            Job job = Job.start(cluster, "corrupt", NORMAL);
            corruptRank2PartThenKillItsNode(cluster, job, 2);
            job.finish();
            assertEquals(referenceBits, job.resultBits(), "a corrupt part must never be used");
            assertEquals(1, job.reports().size(), "exactly one recovery");
            assertEquals("1", job.reports().getFirst().group(2), "recovery must fall back to epoch 1");
        }
    }

    @Test
    void stopsWithAClearErrorWhenNoEpochIsUsable() throws Exception {
        try (SimulatedCluster cluster = SimulatedCluster.up(4, 2)) {
            Job job = Job.start(cluster, "nousable", NORMAL);
            corruptRank2PartThenKillItsNode(cluster, job, 1);
            assertTrue(job.process.waitFor(RUN_BOUND.toSeconds(), TimeUnit.SECONDS), "job must stop, not hang");
            assertNotEquals(0, job.process.exitValue(), "a job that cannot roll back must fail");
            assertTrue(job.output.text().contains("no committed checkpoint of job " + job.id + " can be loaded by every rank"),
                    "the error must say why; output:\n" + job.output.text());
        }
    }

    private static String bigReference;

    private static String bigReferenceBits() throws Exception {
        if (bigReference == null) {
            bigReference = referenceRun("bigreference", BIG);
        }
        return bigReference;
    }

    /**
     * The result bits of a failure-free run: what every recovered run must reproduce. It takes no
     * checkpoint (they change nothing of the computation, and BIG's parts of 64 MB would
     * cost the run most of its time).
     */
    private static String referenceRun(String id, Load load) throws Exception {
        try (SimulatedCluster cluster = SimulatedCluster.up(4, 2)) {
            Job job = Job.start(cluster, id, load, List.of("-D" + FtConfig.CHECKPOINT_EVERY + "=0"));
            job.finish();
            assertEquals("0", job.result().group(3), "a failure-free run must not recover");
            return job.resultBits();
        }
    }

    /** {@link RollbackRank}'s arguments: doubles per rank, iterations, sleep per iteration, and which doubles take a sine. */
    record Load(int doubles, int iterations, int sleepMillis, int stride) {
    }

    /** One run of {@link RollbackRank} under mpirun on the cluster's head node. */
    static final class Job {
        final String id;
        final Process process;
        final OutputWatcher output;

        private Job(String id, Process process) {
            this.id = id;
            this.process = process;
            this.output = OutputWatcher.watch(process.getInputStream(), id);
        }

        static Job start(SimulatedCluster cluster, String id, Load load) {
            return start(cluster, id, load, List.of());
        }

        static Job start(SimulatedCluster cluster, String id, Load load, List<String> extraOptions) {
            List<String> options = new java.util.ArrayList<>(List.of("-Dmpirunft.job=" + id, "-Dmpirunft.shared.dir=/shared/ckpt",
                    "-Dmpirunft.local.dir=/local/ckpt", "-Dmpirunft.checkpoint.every=10", "-Dmpirunft.spares=spare1,spare2"));
            options.addAll(extraOptions);
            List<String> program = MpiJobs.java(options, RollbackRank.class, Integer.toString(load.doubles()),
                    Integer.toString(load.iterations()), Integer.toString(load.sleepMillis()), "stride=" + load.stride());
            return new Job(id, cluster.start("head", MpiJobs.mpirun(true, HOSTS, 4, program)));
        }

        void awaitIteration(int iteration) throws InterruptedException {
            assertTrue(output.await(Pattern.compile("^ITER " + iteration + "$"), RUN_BOUND).isPresent(),
                    id + " never reached iteration " + iteration + "; output:\n" + output.text());
        }

        void awaitReports(int count) throws InterruptedException {
            Pattern recovered = Pattern.compile("^\\[mpirun-ft\\] recovered");
            long deadline = System.nanoTime() + RUN_BOUND.toNanos();
            while (output.all(recovered).size() < count) {
                assertTrue(System.nanoTime() < deadline, id + ": fewer than " + count + " recoveries; output:\n" + output.text());
                Thread.sleep(20);
            }
        }

        void finish() throws InterruptedException {
            assertTrue(process.waitFor(RUN_BOUND.toSeconds(), TimeUnit.SECONDS), id + " did not finish; output:\n" + output.text());
            assertEquals(0, process.exitValue(), id + " exit status; output:\n" + output.text());
            output.await(RESULT, Duration.ofSeconds(5));
        }

        Matcher result() {
            List<Matcher> results = output.all(RESULT);
            assertEquals(1, results.size(), id + " must print one result; output:\n" + output.text());
            return results.getFirst();
        }

        String resultBits() {
            return result().group(1);
        }

        List<Matcher> reports() {
            return output.all(REPORT);
        }

        record Where(long pid, String host) {
        }

        Where where(String tag, int rank) {
            for (Matcher m : output.all(WHERE)) {
                if (m.group(1).equals(tag) && Integer.parseInt(m.group(2)) == rank) {
                    return new Where(Long.parseLong(m.group(3)), m.group(4));
                }
            }
            throw new AssertionError(id + ": no " + tag + " line for rank " + rank + "; output:\n" + output.text());
        }

        void assertSurvivorsKeptPids(List<Integer> survivors) {
            for (int rank : survivors) {
                Where start = where("START", rank);
                Where end = where("END", rank);
                assertEquals(start.pid(), end.pid(), "survivor rank " + rank + " must not be restarted");
                assertEquals(start.host(), end.host(), "survivor rank " + rank + " must stay on its node");
            }
        }

        void printRecovery(long killedAtMillis) {
            for (String line : output.text().split("\n")) {
                if (line.startsWith("[mpirun-ft] recovered")) {
                    Matcher seen = Pattern.compile("seen_at_ms=(\\d+)").matcher(line);
                    long detection = seen.find() ? Long.parseLong(seen.group(1)) - killedAtMillis : -1;
                    System.out.println(id + ": kill -> failure seen " + detection + " ms; " + line);
                }
            }
        }
    }

    interface FileProbe {
        Path find() throws IOException;
    }

    private static Path waitForFile(Duration timeout, FileProbe probe) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            Path found = probe.find();
            if (found != null) {
                return found;
            }
            Thread.sleep(2);
        }
        throw new AssertionError("no file appeared within " + timeout);
    }

    /**
     * Once {@code epoch} has committed, kills node3's processes, flips a byte in rank 2's part of
     * that epoch and of every later one on shared storage, and kills the node (its local copy
     * goes with it): the replacement can only read bad parts from {@code epoch} on. The later
     * ones count because a loaded machine can commit the next epoch between the manifest's appearance and the kill
     * (seen: epoch 2 committed, the kill at iteration 24, and the job recovered from epoch 2).
     * Once rank 2's processes are killed no epoch can gain its part, and the replacement reads its
     * part seconds later, after detection and spawn; the node itself is killed after the flips.
     */
    private static void corruptRank2PartThenKillItsNode(SimulatedCluster cluster, Job job, long epoch) throws Exception {
        Path sharedJob = cluster.stateDirectory().resolve("shared/ckpt").resolve(job.id);
        List<Long> node3 = pidsOn(cluster, "node3", job);
        waitForFile(Duration.ofSeconds(60), () -> manifestOf(sharedJob, epoch));
        // Rank 2's processes die first, so no later epoch commits; its parts are flipped before
        // the node goes (the script takes seconds on a loaded machine), well before a replacement
        // (a JVM start away) reads one: the part is mapped, and a flip after its CRC check would
        // change what the check passed (see the module README's known limits).
        killProcesses(node3);
        try (Stream<Path> epochs = Files.list(sharedJob)) {
            for (Path part : epochs.filter(e -> e.getFileName().toString().matches("epoch-\\d+"))
                    .map(e -> e.resolve("rank-000002.part")).toList()) {
                if (epochOf(part) >= epoch && Files.exists(part)) {
                    flipByte(part);
                }
            }
        }
        cluster.kill("node3");
    }

    /**
     * Kills the node's job processes at once (SIGKILL by pid), then the node itself ({@code cluster
     * kill}: everything else, its storage wiped). The script takes longer (a shell, the storage wiped),
     * during which the job, at tens of milliseconds an iteration, could pass the next checkpoint
     * the test counts on.
     */
    private static void killNow(SimulatedCluster cluster, String node, List<Long> pids) {
        killProcesses(pids);
        cluster.kill(node);
    }

    /** SIGKILL to each of {@code pids} still alive. */
    private static void killProcesses(List<Long> pids) {
        pids.forEach(pid -> ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly));
    }

    /** The node's processes once the job's rank runs there: looked up ahead, so the kill itself is immediate. */
    private static List<Long> pidsOn(SimulatedCluster cluster, String node, Job job) throws InterruptedException {
        job.awaitIteration(1);
        return cluster.processesOn(node).stream().map(SimulatedCluster.NodeProcess::pid).toList();
    }

    private static Path manifestOf(Path sharedJob, long epoch) {
        Path manifest = sharedJob.resolve(String.format("epoch-%010d", epoch)).resolve("manifest.json");
        return Files.exists(manifest) ? manifest : null;
    }

    /** A temporary part file of {@code rank} in an epoch of at least {@code minEpoch}: a write in progress. */
    private static Path findPartial(Path localJob, Path sharedJob, int rank, long minEpoch) throws IOException {
        String name = String.format("rank-%06d.part.tmp", rank);
        for (Path job : List.of(localJob, sharedJob)) {
            if (!Files.isDirectory(job)) {
                continue;
            }
            try (Stream<Path> epochs = Files.list(job)) {
                for (Path epoch : epochs.toList()) {
                    if (epochOf(epoch.resolve(name)) >= minEpoch && Files.exists(epoch.resolve(name))) {
                        return epoch.resolve(name);
                    }
                }
            } catch (java.nio.file.NoSuchFileException raced) {
                // An epoch directory vanished while listing: retention at work.
            }
        }
        return null;
    }

    private static long epochOf(Path part) {
        return Long.parseLong(part.getParent().getFileName().toString().substring("epoch-".length()));
    }

    private static void flipByte(Path file) throws IOException {
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            long position = raf.length() / 2;
            raf.seek(position);
            int b = raf.read();
            raf.seek(position);
            raf.write(b ^ 0xff);
        }
    }
}
