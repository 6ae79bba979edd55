package org.mpirunft.daemon.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpirunft.common.CheckpointSchedule;
import org.mpirunft.common.JobOwner;
import org.mpirunft.common.JsonLines;
import org.mpirunft.common.rank.RankMessage;
import org.mpirunft.daemon.protocol.ControlReply;
import org.mpirunft.daemon.protocol.ErrorCode;
import org.mpirunft.daemon.protocol.PeerMessage;
import org.mpirunft.daemon.protocol.PeerMessage.Step;
import org.mpirunft.daemon.protocol.PeerMessage.TransparentPart;
import org.mpirunft.scheduler.FailureReport;
import org.mpirunft.scheduler.JobRecord;
import org.mpirunft.scheduler.JobState;
import org.mpirunft.scheduler.JobTransition;
import org.mpirunft.scheduler.RecoveryMode;
import org.mpirunft.scheduler.SchedulerUpdate;

/**
 * The launcher daemon's coordination of a transparent job, with the nodes' steps recorded
 * instead of run: the order of the steps across nodes is what keeps the job's TCP state
 * consistent, and the manifest is what makes an epoch count.
 */
class TransparentCoordinatorTest {
    private static final int V = SchedulerUpdate.VERSION;
    private static final String NETWORK = "10.213.1.0/24";
    /** The failure the restore tests recover from: node2 lost with rank 1, spare1 placed for it. */
    private static final JobRecord.Recovery NODE2_LOST = new JobRecord.Recovery("1@node2", 1, "detector", Map.of(1, "node2"),
            Map.of(1, "spare1"));
    @TempDir
    Path shared;

    private final List<String> calls = Collections.synchronizedList(new ArrayList<>());
    /** Lets the dump that {@link #dumpingEpochOne} holds go on. */
    private final java.util.concurrent.CountDownLatch dumpRelease = new java.util.concurrent.CountDownLatch(1);

    /** What the nodes were asked so far: a copy, since the coordinator's threads add while a test reads. */
    private List<String> calls() {
        synchronized (calls) {
            return List.copyOf(calls);
        }
    }

    @Test
    void everyNodeIsLockedBeforeAnyDumpsAndUnlockedAfterAllDidThenTheManifestCommitsTheEpoch() throws Exception {
        Scheduler scheduler = new Scheduler(job(JobState.RUNNING, 0, 1, Optional.empty()));
        TransparentCoordinator coordinator = coordinator(scheduler, step -> null);
        coordinator.onTransition(new JobTransition(new SchedulerUpdate.CheckpointOrdered(V, "job", 1, 0), scheduler.record, false));
        assertEquals(List.of("epoch 1 committed"), scheduler.reports.get(10, TimeUnit.SECONDS));
        List<String> steps = List.copyOf(calls);
        assertEquals(4 * 3, steps.size(), "four steps on three nodes: " + steps);
        assertTrue(steps.subList(0, 3).stream().allMatch(s -> s.startsWith("LOCK")), steps.toString());
        assertTrue(steps.subList(3, 6).stream().allMatch(s -> s.startsWith("DUMP")), steps.toString());
        assertTrue(steps.subList(6, 9).stream().allMatch(s -> s.startsWith("UNLOCK")), steps.toString());
        assertTrue(steps.subList(9, 12).stream().allMatch(s -> s.startsWith("STAGE")), steps.toString());
        Path manifest = TransparentImages.epochDirectory(images(), "root", "job", 1).resolve(TransparentCoordinator.MANIFEST);
        TransparentCoordinator.Manifest written = JsonLines.decode(Files.readString(manifest).strip(), TransparentCoordinator.Manifest.class);
        assertEquals(java.util.Set.of("head", "node1", "node2"), written.parts().keySet());
        coordinator.close();
    }

    @Test
    void aCheckpointFirstDeletesTheEpochsBeforeTheCommittedOneAndTheJobsEndItsNodesImages() throws Exception {
        // Epoch 2 is the committed one; 3, ordered before a failure, never committed.
        Scheduler scheduler = new Scheduler(job(JobState.RUNNING, 2, 4, Optional.empty()));
        for (long epoch = 1; epoch <= 3; epoch++) {
            writeManifest(epoch);
        }
        TransparentCoordinator coordinator = coordinator(scheduler, step -> null);
        coordinator.onTransition(new JobTransition(new SchedulerUpdate.CheckpointOrdered(V, "job", 4, 0), scheduler.record, false));
        assertEquals(List.of("epoch 4 committed"), scheduler.reports.get(10, TimeUnit.SECONDS));
        assertEquals(List.of("PRUNE head before 2", "PRUNE node1 before 2", "PRUNE node2 before 2"),
                calls.subList(0, 3).stream().sorted().toList(), "each node's images, before the lock: " + calls);
        assertTrue(calls.get(3).startsWith("LOCK"), calls.toString());
        Path transparent = images().resolve("root/job");
        assertTrue(Files.notExists(transparent.resolve("epoch-1")), "older than the committed epoch");
        assertTrue(Files.exists(transparent.resolve("epoch-2").resolve(TransparentCoordinator.MANIFEST)), "the committed epoch stays");
        assertTrue(Files.exists(transparent.resolve("epoch-3")), "kept until an epoch after it commits");
        assertTrue(Files.exists(transparent.resolve("epoch-4").resolve(TransparentCoordinator.MANIFEST)));
        calls.clear();
        coordinator.jobFinished("job", Duration.ofSeconds(10));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (calls.size() < 3 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertEquals(List.of("PRUNE head before all", "PRUNE node1 before all", "PRUNE node2 before all"),
                calls().stream().sorted().toList(), "the job is over: its nodes' images go");
        assertTrue(Files.exists(transparent.resolve("epoch-4").resolve(TransparentCoordinator.MANIFEST)),
                "shared storage keeps the job's last epoch, as it keeps other modes' checkpoints");
        coordinator.close();
    }

    @Test
    void aUsersEpochsGoToRootsOwnDirectoryUnderTheUsersNameAndEveryStepNamesTheOwner() throws Exception {
        JobOwner alice = new JobOwner(1001, "alice");
        Scheduler scheduler = new Scheduler(job(JobState.RUNNING, 0, 1, Optional.empty(), alice));
        List<PeerMessage.TransparentStep> sent = Collections.synchronizedList(new ArrayList<>());
        TransparentCoordinator coordinator = coordinator(scheduler, step -> {
            sent.add(step);
            return null;
        });
        coordinator.onTransition(new JobTransition(new SchedulerUpdate.CheckpointOrdered(V, "job", 1, 0), scheduler.record, false));
        assertEquals(List.of("epoch 1 committed"), scheduler.reports.get(10, TimeUnit.SECONDS));
        assertTrue(Files.exists(TransparentImages.epochDirectory(images(), "alice", "job", 1).resolve(TransparentCoordinator.MANIFEST)));
        assertEquals("rwx------", java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(images())),
                "root's alone");
        assertEquals(images().getFileName().toString().charAt(0), '.', "a name no user's directory in the storage can have");
        assertTrue(sent.stream().allMatch(step -> step.owner().equals(alice) && step.storage().equals(images().toString())),
                "every node is told the owner and root's directory: " + sent);
        coordinator.close();
    }

    @Test
    void aCheckpointIsAbandonedAndNothingLockedWhenRootsDirectoryIsOpenToOthers() throws Exception {
        Files.createDirectory(images(), java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
                java.nio.file.attribute.PosixFilePermissions.fromString("rwxrwxrwx")));
        Files.setPosixFilePermissions(images(), java.nio.file.attribute.PosixFilePermissions.fromString("rwxrwxrwx"));
        Scheduler scheduler = new Scheduler(job(JobState.RUNNING, 0, 1, Optional.empty()));
        TransparentCoordinator coordinator = coordinator(scheduler, step -> null);
        coordinator.onTransition(new JobTransition(new SchedulerUpdate.CheckpointOrdered(V, "job", 1, 0), scheduler.record, false));
        String report = scheduler.reports.get(10, TimeUnit.SECONDS).getFirst();
        assertTrue(report.startsWith("epoch 1 abandoned: transparent jobs cannot run: " + images() + " is open to others (mode "), report);
        assertTrue(report.contains("rwxrwxrwx") && !report.contains("\n"), "one line naming the mode: " + report);
        assertTrue(calls.isEmpty(), "no node locked or dumped: " + calls);
        IllegalStateException refused = org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class, coordinator::requireImages);
        assertTrue(refused.getMessage().startsWith("transparent jobs cannot run: "), refused.getMessage());
        coordinator.close();
    }

    @Test
    void aUsersJobIsRefusedAtRegistrationWhereCriuCannotDumpAnotherUsersProcesses() throws Exception {
        Scheduler scheduler = new Scheduler(job(JobState.RUNNING, 0, 1, Optional.empty()));
        TransparentCoordinator confined = new TransparentCoordinator("head", scheduler, (node, step) -> null, shared, () -> NETWORK,
                () -> false);
        String refused = org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class,
                () -> confined.accept(new JobOwner(1001, "alice"))).getMessage();
        assertEquals("transparent jobs of users other than root cannot run on head: its daemon lacks CAP_SYS_RESOURCE, without which"
                + " CRIU cannot read another user's resource limits; run ftd as root with its full capabilities, or run the job with"
                + " --recovery pause", refused);
        confined.accept(JobOwner.ROOT);
        assertEquals("rwx------", java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(images())),
                "accepting a job makes root's directory of the epochs");
        new TransparentCoordinator("head", scheduler, (node, step) -> null, shared, () -> NETWORK, () -> true)
                .accept(new JobOwner(1001, "alice"));
        confined.close();
    }

    @Test
    void aRestoreReadsNothingOnceRootsDirectoryIsNoLongerRootsAlone() throws Exception {
        Scheduler scheduler = pausingForNode2(1);
        writeManifest(1);
        Files.setPosixFilePermissions(images(), java.nio.file.attribute.PosixFilePermissions.fromString("rwxrwx---"));
        TransparentCoordinator coordinator = coordinator(scheduler, step -> null);
        recoveryStarted(coordinator, scheduler);
        String report = scheduler.reports.get(10, TimeUnit.SECONDS).getFirst();
        assertTrue(report.startsWith("restart: restore from epoch 1 failed: " + images() + " is open to others (mode "), report);
        assertTrue(calls.isEmpty(), "nothing stopped or restored: " + calls);
        coordinator.close();
    }

    @Test
    void aFailedDumpStillUnlocksEveryNodeAndAbandonsTheCheckpoint() throws Exception {
        Scheduler scheduler = new Scheduler(job(JobState.RUNNING, 0, 1, Optional.empty()));
        TransparentCoordinator coordinator = coordinator(scheduler, step -> step.step() == Step.DUMP ? "CRIU dump failed" : null);
        coordinator.onTransition(new JobTransition(new SchedulerUpdate.CheckpointOrdered(V, "job", 1, 0), scheduler.record, false));
        List<String> reports = scheduler.reports.get(10, TimeUnit.SECONDS);
        assertTrue(reports.getFirst().startsWith("epoch 1 abandoned"), reports.toString());
        assertEquals(3, calls().stream().filter(s -> s.startsWith("UNLOCK")).count(), calls.toString());
        assertTrue(calls().stream().noneMatch(s -> s.startsWith("STAGE")), "a failed epoch is not staged: " + calls);
        assertTrue(Files.notExists(TransparentImages.epochDirectory(images(), "root", "job", 1).resolve(TransparentCoordinator.MANIFEST)));
        coordinator.close();
    }

    @Test
    void aRestoreStopsTheLiveNodesAndPutsTheLostNodesPartOnItsSpare() throws Exception {
        Scheduler scheduler = pausingForNode2(1);
        writeManifest(1);
        TransparentCoordinator coordinator = coordinator(scheduler, step -> null);
        recoveryStarted(coordinator, scheduler);
        assertEquals(List.of("recovered 1@node2 from epoch 1 on [node1, spare1]"), scheduler.reports.get(10, TimeUnit.SECONDS));
        assertTrue(calls.contains("STOP node1") && calls.contains("STOP head") && !calls.contains("STOP spare1"), calls.toString());
        assertTrue(calls.contains("RESTORE spare1 as node2") && calls.contains("RESTORE node1 as node1") && calls.contains("RESTORE head as head"),
                calls.toString());
        int lastStop = calls.lastIndexOf(calls().stream().filter(s -> s.startsWith("STOP")).reduce((a, b) -> b).orElseThrow());
        int firstRestore = calls.indexOf(calls().stream().filter(s -> s.startsWith("RESTORE")).findFirst().orElseThrow());
        assertTrue(lastStop < firstRestore, "every live node stopped before any restores: " + calls);
        assertTrue(Files.readString(images().resolve("root/job/restores.jsonl")).contains("\"onto\":{\"node2\":\"spare1\"}"));
        coordinator.close();
    }

    @Test
    void nothingOfAJobIsWrittenOnceItsLauncherSaidItFinished() throws Exception {
        Scheduler scheduler = new Scheduler(job(JobState.RUNNING, 0, 1, Optional.empty()));
        TransparentCoordinator coordinator = dumpingEpochOne(scheduler);
        CompletableFuture<Void> finish = CompletableFuture.runAsync(() -> coordinator.jobFinished("job", Duration.ofSeconds(10)));
        Thread.sleep(100);
        assertTrue(!finish.isDone(), "the launcher's exit waits for the dump under way");
        dumpRelease.countDown();
        finish.get(10, TimeUnit.SECONDS);
        assertTrue(calls().stream().noneMatch(s -> s.startsWith("STAGE")), "not staged after the job finished: " + calls);
        assertTrue(Files.notExists(TransparentImages.epochDirectory(images(), "root", "job", 1).resolve(TransparentCoordinator.MANIFEST)));
        assertTrue(!scheduler.reports.isDone(), "no epoch committed or abandoned for a finished job");
        coordinator.close();
    }

    @Test
    void theJobsEndPrunesEveryNodesImagesThoughTheSchedulerHasForgottenTheJobBeforeThePruneRuns() throws Exception {
        // A dump outlasts the launcher's exit: the prune waits behind it, and the daemon takes the
        // job out of the scheduler's table meanwhile, as it does right after jobFinished returns.
        Scheduler scheduler = new Scheduler(job(JobState.RUNNING, 0, 1, Optional.empty()));
        TransparentCoordinator coordinator = dumpingEpochOne(scheduler);
        coordinator.jobFinished("job", Duration.ofMillis(50));
        scheduler.jobFinished("job");
        dumpRelease.countDown();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (calls().stream().filter(s -> s.startsWith("PRUNE")).count() < 3 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertEquals(List.of("PRUNE head before all", "PRUNE node1 before all", "PRUNE node2 before all"),
                calls().stream().filter(s -> s.startsWith("PRUNE")).sorted().toList(), "every node's images of the job go: " + calls);
        coordinator.close();
    }

    @Test
    void aLossBeforeAnyCommittedEpochAsksForARestart() throws Exception {
        Scheduler scheduler = pausingForNode2(0);
        TransparentCoordinator coordinator = coordinator(scheduler, step -> null);
        recoveryStarted(coordinator, scheduler);
        List<String> reports = scheduler.reports.get(10, TimeUnit.SECONDS);
        assertTrue(reports.getFirst().startsWith("restart: restore from epoch 0 failed: no transparent epoch committed yet"), reports.toString());
        assertTrue(calls.isEmpty(), "nothing stopped: " + calls);
        coordinator.close();
    }

    /** The scheduler of a job pausing for {@link #NODE2_LOST}, whose last committed epoch is {@code committed}. */
    private static Scheduler pausingForNode2(long committed) {
        return new Scheduler(job(JobState.PAUSING, committed, 1, Optional.of(NODE2_LOST)));
    }

    /** Hands the coordinator the scheduler's decision to recover from {@link #NODE2_LOST}. */
    private static void recoveryStarted(TransparentCoordinator coordinator, Scheduler scheduler) {
        coordinator.onTransition(new JobTransition(new SchedulerUpdate.RecoveryStarted(V, "job", NODE2_LOST.failureId(), NODE2_LOST.source(),
                NODE2_LOST.lostRanks(), NODE2_LOST.placement(), ""), scheduler.record, false));
    }

    /** A coordinator whose checkpoint of epoch 1 is in its dump, until {@link #dumpRelease} opens; every step succeeds. */
    private TransparentCoordinator dumpingEpochOne(Scheduler scheduler) throws Exception {
        java.util.concurrent.CountDownLatch dumping = new java.util.concurrent.CountDownLatch(1);
        TransparentCoordinator coordinator = coordinator(scheduler, step -> {
            if (step.step() == Step.DUMP) {
                dumping.countDown();
                try {
                    dumpRelease.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return null;
        });
        coordinator.onTransition(new JobTransition(new SchedulerUpdate.CheckpointOrdered(V, "job", 1, 0), scheduler.record, false));
        assertTrue(dumping.await(10, TimeUnit.SECONDS), "the dump started");
        return coordinator;
    }

    /** Root's directory of the epochs: the daemon makes it, mode 0700. */
    private Path images() {
        return TransparentImages.imagesOnShared(shared);
    }

    private void writeManifest(long epoch) throws Exception {
        Map<String, TransparentPart> parts = Map.of(
                "node1", part("node1"), "node2", part("node2"), "head", part("head"));
        RootOnlyDirectory.ensure(images());
        Path dir = TransparentImages.epochDirectory(images(), "root", "job", epoch);
        Files.createDirectories(dir);
        Files.writeString(dir.resolve(TransparentCoordinator.MANIFEST),
                JsonLines.encode(new TransparentCoordinator.Manifest(TransparentCoordinator.Manifest.VERSION, "job", epoch, parts)));
    }

    private static TransparentPart part(String node) {
        return new TransparentPart(node, node, "10.213.1.9/24", 100, 1000, Map.of("pages-1.img", "00"), List.of(100L), 5.0,
                List.of("127.0.0.1:42665"));
    }

    private TransparentCoordinator coordinator(Scheduler scheduler, java.util.function.Function<PeerMessage.TransparentStep, String> failure) {
        return new TransparentCoordinator("head", scheduler, (node, step) -> {
            calls.add(step.step() + " " + node + (step.part() == null || step.step() != Step.RESTORE ? "" : " as " + step.part().node())
                    + (step.step() != Step.PRUNE ? "" : " before " + (step.epoch() == Long.MAX_VALUE ? "all" : step.epoch())));
            assertEquals(NETWORK, step.network());
            String failed = failure.apply(step);
            if (failed != null) {
                return new ControlReply.Failed(ControlReply.VERSION, ErrorCode.INTERNAL, node + ": " + failed);
            }
            TransparentPart part = step.step() == Step.DUMP || step.step() == Step.STAGE ? part(node) : null;
            return new ControlReply.StepDone(ControlReply.VERSION, node, step.step(), 1.0, part);
        }, shared, () -> NETWORK);
    }

    private static JobRecord job(JobState state, long committed, long ordered, Optional<JobRecord.Recovery> recovery) {
        return job(state, committed, ordered, recovery, JobOwner.ROOT);
    }

    private static JobRecord job(JobState state, long committed, long ordered, Optional<JobRecord.Recovery> recovery, JobOwner owner) {
        return new JobRecord("job", "head", List.of("node1", "node2"), List.of("spare1"), state, RecoveryMode.TRANSPARENT,
                CheckpointSchedule.parse("schedule", "2s"), 10, 1, committed, ordered, committed, 0, recovery, Optional.empty(), false,
                JobRecord.Flush.NONE, 0, Optional.empty(), owner, List.of());
    }

    /** The scheduler as the coordinator sees it: the job's record, and its reports, the first of which completes {@link #reports}. */
    private static final class Scheduler implements SchedulerPort {
        final JobRecord record;
        final CompletableFuture<List<String>> reports = new CompletableFuture<>();
        /** Set by {@link #jobFinished}, as the real scheduler takes the job out of its table. */
        volatile boolean gone;

        Scheduler(JobRecord record) {
            this.record = record;
        }

        private void report(String what) {
            reports.complete(List.of(what));
        }

        @Override
        public Optional<JobRecord> job(String job) {
            return gone ? Optional.empty() : Optional.of(record);
        }

        @Override
        public void epochCommitted(String job, long epoch, long order, Duration cost) {
            report("epoch " + epoch + " committed");
        }

        @Override
        public void checkpointAbandoned(String job, long order, long epoch, String reason) {
            report("epoch " + epoch + " abandoned: " + reason);
        }

        @Override
        public void recoveryCompleted(String job, String failureId, List<String> rankNodes, long epoch, long iteration,
                                      RankMessage.RecoverySplit split) {
            report("recovered " + failureId + " from epoch " + epoch + " on " + rankNodes);
        }

        @Override
        public void restartNeeded(String job, String source, String reason, FailureReport.Reporter reporter) {
            report("restart: " + reason);
        }

        @Override
        public void start() {
        }

        @Override
        public void registerJob(String job, String launcherNode, List<String> rankNodes, List<String> spares, String mode, String schedule,
                                int maxRestarts, JobOwner owner) {
        }

        @Override
        public void failureReported(String job, String source, Map<Integer, String> lostRanks, List<String> lostNodes, String detail,
                                    FailureReport.Reporter reporter) {
        }

        @Override
        public void stopJob(String job, String cause, String reason) {
        }

        @Override
        public void jobRelaunched(String job, int attempt, List<String> rankNodes) {
        }

        @Override
        public void programFinished(String job) {
        }

        @Override
        public void flushRequested(String job, long epoch, String node) {
        }

        @Override
        public void flushDone(String job, long epoch, String node) {
        }

        @Override
        public int flushWriters() {
            return 0;
        }

        @Override
        public void jobFinished(String job) {
            gone = true;
        }

        @Override
        public void checkpointNow(String job) {
        }

        @Override
        public long migrate(String job, String node, String reason) {
            return 0;
        }

        @Override
        public void migrationCompleted(String job, long seq, List<String> rankNodes, long iteration, RankMessage.MigrationSplit split) {
        }

        @Override
        public void migrationAbandoned(String job, long seq, String reason) {
        }

        @Override
        public Path sharedStorage() {
            return Path.of("/shared/mpirun-ft");
        }

        @Override
        public String leader() {
            return "head";
        }

        @Override
        public List<ControlReply.JobStatus> jobs() {
            return List.of();
        }

        @Override
        public ControlReply.JobStatus status(JobRecord job) {
            return null;
        }

        @Override
        public void onTransition(Consumer<JobTransition> listener) {
        }

        @Override
        public void close() {
        }
    }
}
