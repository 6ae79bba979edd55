package org.mpirunft.scheduler.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mpirunft.membership.Await.waitUntil;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpirunft.common.PrivateDirectories;
import org.mpirunft.common.JobOwner;
import org.mpirunft.common.NoSpareAction;
import org.mpirunft.membership.NodeRole;
import org.mpirunft.scheduler.JobRecord;
import org.mpirunft.scheduler.JobState;
import org.mpirunft.scheduler.JobTableFileException;
import org.mpirunft.scheduler.JobTransition;
import org.mpirunft.scheduler.RecoveryMode;
import org.mpirunft.scheduler.SchedulerService;
import org.mpirunft.scheduler.SchedulerUpdate;
import org.mpirunft.scheduler.UnknownJobException;
import org.mpirunft.scheduler.config.SchedulerConfig;
import org.mpirunft.scheduler.policy.LeastLoadedSpare;

/**
 * The scheduler service over a {@link FakeGroup}: daemons d1 (the leader, oldest), d2, d3 (where
 * the jobs' mpirun-ft runs) and more, a manual clock and manual ticks. Crashes can cut a dead
 * leader's last broadcast short, so that it reached some daemons and not others.
 */
class SchedulerServiceTest {
    private static final Duration INTERVAL = Duration.ofMinutes(1);

    @TempDir
    Path shared;

    private FakeGroup group = new FakeGroup();
    private final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
    private final Map<String, SchedulerServiceImpl> daemons = new LinkedHashMap<>();
    /** What each daemon handed out that a launcher acts on, for the jobs it launches (as mpirun-ft would see them). */
    private final Map<String, List<Command>> commands = new LinkedHashMap<>();

    /** A checkpoint order or a pause, as the launcher's daemon hands it out. */
    record Command(String kind, String job, long epoch, String failureId, Map<Integer, String> placement) {
    }

    private static Command checkpoint(String job, long epoch) {
        return new Command("checkpoint", job, epoch, "", Map.of());
    }

    private static Command pause(String job, String failureId, Map<Integer, String> placement) {
        return new Command("pause", job, 0, failureId, placement);
    }

    private static Command commandOf(JobTransition t) {
        return switch (t.update()) {
            case SchedulerUpdate.CheckpointOrdered u -> checkpoint(u.job(), u.epoch());
            case SchedulerUpdate.RecoveryStarted u -> pause(u.job(), u.failureId(), u.placement());
            case SchedulerUpdate.RecoveryExtended u -> pause(u.job(), u.failureId(), u.placement());
            default -> null;
        };
    }

    @AfterEach
    void closeAll() {
        daemons.values().forEach(SchedulerService::close);
    }

    @Test
    void theOldestDaemonLeadsAndTheLaunchersDaemonGetsTheCommands() throws Exception {
        startDaemons("d1", "d2", "d3");
        assertTrue(daemons.get("d1").isLeader(), "the oldest member leads");
        assertFalse(daemons.get("d2").isLeader() || daemons.get("d3").isLeader(), "one leader");
        daemons.values().forEach(d -> assertEquals("d1", d.leader()));

        CompletableFuture<Void> registered = daemons.get("d3").registerJob("job", "d3", List.of("d2", "d3"), List.of(), RecoveryMode.PAUSE, Optional.empty(), 10, JobOwner.ROOT);
        group.drain();
        assertTrue(registered.isDone(), "d3 sees its registration applied");
        daemons.values().forEach(d -> assertEquals(List.of("d2", "d3"), d.table().job("job").orElseThrow().rankNodes()));

        advance(INTERVAL.minusSeconds(1));
        tickAll();
        assertTrue(commands.get("d3").isEmpty(), "not due yet");
        advance(Duration.ofSeconds(1));
        tickAll();
        assertEquals(List.of(checkpoint("job", 1)), commands.get("d3"));
        assertTrue(commands.get("d1").isEmpty() && commands.get("d2").isEmpty(), "only the launcher's daemon: " + commands);
    }

    @Test
    void theLeaderDyingInTheMiddleOfARecoveryCompletesItExactlyOnce() throws Exception {
        startDaemons("d1", "d2", "d3", "d4");
        startDaemon("s1", NodeRole.SPARE);
        group.drain();
        register("job", "d2", "d4");
        // d4 dies; d1 decides the recovery, which the log commits, and d1 dies too.
        group.crash("d4");
        group.drain();
        List<Command> pause = List.of(pause("job", "1@d4", Map.of(1, "s1")));
        assertEquals(pause, commands.get("d3"), "the launcher is pausing the job");
        group.crash("d1");
        group.drain();
        assertTrue(daemons.get("d2").isLeader());
        assertEquals(pause, commands.get("d3"), "the new leader found the recovery in the log and started none");

        CompletableFuture<Void> completed = daemons.get("d3").recoveryCompleted("job", "1@d4", List.of("d2", "s1"), 1, 10, null);
        group.drain();
        assertTrue(completed.isDone(), "the completion was applied");
        for (SchedulerServiceImpl daemon : live()) {
            JobRecord job = daemon.table().job("job").orElseThrow();
            assertEquals(List.of("d2", "s1"), job.rankNodes(), "rank 1 runs on the spare now");
            assertTrue(job.recovery().isEmpty(), "recovery over");
        }
        assertEquals(pause, commands.get("d3"), "exactly one pause in all");
    }

    /**
     * Regression: the oldest daemon hung, was expelled, woke up fenced and merged back as the
     * coordinator. It stayed fenced, since the merged view had no member it had not seen before,
     * so nobody led: requests went unanswered and the job's end was never recorded.
     */
    @Test
    void anExpelledDaemonMergedBackAsTheCoordinatorLeadsWithTheGroupsTable() throws Exception {
        startDaemons("d1", "d2", "d3");
        register("job", "d2", "d3");
        group.expel("d1");
        group.drain();
        assertTrue(daemons.get("d2").isLeader(), "d2 leads while d1 is out");
        advance(INTERVAL);
        tickAll();
        assertEquals(List.of(checkpoint("job", 1)), commands.get("d3"), "d2 orders epoch 1");
        served("job", 1);
        group.mergeBack("d1");
        group.drain();
        assertTrue(daemons.get("d1").isLeader(), "the merged-back coordinator leads again");
        assertEquals(1, daemons.get("d1").table().job("job").orElseThrow().orderedEpoch(), "with the table of the side that went on");
        advance(INTERVAL);
        tickAll();
        assertEquals(List.of(checkpoint("job", 1), checkpoint("job", 2)), commands.get("d3"), "and orders the next epoch");
        assertTablesEqual();
    }

    /**
     * The log's leader is told by another side that it was expelled, stops acting, and is taken
     * back by a merge while still the log's leader (no majority elected another meanwhile). Its
     * log leadership never changed, so nothing but the merge says it may act again; without it,
     * the group had a log leader that decided nothing and no request was answered for minutes
     * (scripts/chaos seed 401, after job 2: every registration refused, "no scheduler leader answered").
     */
    @Test
    void aLogLeaderTakenBackAfterAnExpelledNoticeLeadsTheSchedulerAgain() throws Exception {
        startDaemons("d1", "d2", "d3");
        register("job", "d2", "d3");
        assertTrue(daemons.get("d1").isLeader(), "the coordinator leads");
        group.expelledNotice("d1");
        group.drain();
        assertFalse(daemons.get("d1").isLeader(), "expelled, it acts on nothing");
        advance(INTERVAL);
        tickAll();
        assertEquals(List.of(), commands.get("d3"), "no order while nobody acts");
        group.takenBack("d1");
        group.drain();
        assertTrue(daemons.get("d1").isLeader(), "taken back as the log's leader, it leads the scheduler again");
        advance(INTERVAL);
        tickAll();
        assertEquals(List.of(checkpoint("job", 1)), commands.get("d3"), "and orders the job's epoch");
        assertTablesEqual();
    }

    /**
     * Regression (HangAndCutIT, cut, seen in a kept daemon log): the leader itself was cut off. Its
     * view dropped the members it had suspected, the leader went on at once, found the job's
     * ranks on the dropped members lost and stopped the job for want of a spare. Now the cut-off
     * leader may still believe it leads and decide, but it acts only on what the log commits,
     * and its entries never commit: no order of its reaches a rank, and its table stays.
     */
    @Test
    void aLeaderCutOffWithHalfTheGroupInItsViewDecidesNothingOnItsOwn() throws Exception {
        startDaemons("d1", "d2", "d3", "d4");
        register("job", "d3", "d4");
        List<JobTransition> fromD1 = new CopyOnWriteArrayList<>();
        daemons.get("d1").addTransitionListener(fromD1::add);
        group.isolate("d1", List.of("d2"));
        group.drain();
        advance(Duration.ofHours(2));
        tickAll();
        assertEquals(JobState.RUNNING, daemons.get("d1").table().job("job").orElseThrow().state(),
                "the cut-off leader stopped nothing: its view's losses are its own");
        assertTrue(fromD1.isEmpty(), "no transition, so no order, came out of the cut-off leader: " + fromD1);
        assertTrue(daemons.get("d2").isLeader(), "the majority's new leader goes on");
        group.mergeBack("d1");
        group.drain();
        advance(Duration.ofHours(2));
        tickAll();
        assertEquals(JobState.RUNNING, daemons.get("d1").table().job("job").orElseThrow().state(),
                "the merged group keeps the majority's table: the job runs on");
        assertTablesEqual();
    }

    @Test
    void aRequestLostWithTheLeaderIsRepeatedToTheNextOneOnceItLeadsWithoutWaitingForATick() throws Exception {
        startDaemons("d1", "d2", "d3");
        CompletableFuture<Void> registered = daemons.get("d3").registerJob("job", "d3", List.of("d2", "d3"), List.of(), RecoveryMode.PAUSE, Optional.empty(), 10, JobOwner.ROOT);
        group.crash("d1"); // with d3's request still on its way
        group.drain();
        // No tick: d3 sent its request again when it applied d2's first entry as leader.
        assertTrue(registered.isDone(), "d3 repeated its request to d2 once d2 led, and d2 registered the job");
        live().forEach(d -> assertTrue(d.table().job("job").isPresent(), "the job is in every table"));
    }

    @Test
    void checkpointNowOrdersAnImmediateCheckpointAndGivesItsEpoch() throws Exception {
        startDaemons("d1", "d2", "d3");
        register("job", "d2", "d3");
        CompletableFuture<Long> epoch = daemons.get("d2").checkpointNow("job");
        group.drain();
        assertEquals(1L, epoch.getNow(-1L), "epoch ordered");
        assertEquals(List.of(checkpoint("job", 1)), commands.get("d3"));
        assertThrows(UnknownJobException.class, () -> daemons.get("d2").checkpointNow("nosuchjob"));
    }

    @Test
    void aDaemonThatJoinsLaterGetsTheTable() throws Exception {
        startDaemons("d1", "d2");
        CompletableFuture<Void> registered = daemons.get("d2").registerJob("job", "d2", List.of("d1", "d2"), List.of(), RecoveryMode.PAUSE, Optional.empty(), 10, JobOwner.ROOT);
        group.drain();
        assertTrue(registered.isDone());
        startDaemons("d3");
        assertEquals(Optional.of(List.of("d1", "d2")), daemons.get("d3").table().job("job").map(JobRecord::rankNodes));
        assertTrue(daemons.get("d1").isLeader(), "still d1");
        assertTablesEqual();
    }

    @Test
    void aWholeClusterRestartKeepsTheJobAndItsCommittedEpoch() throws Exception {
        startDaemons("d1", "d2", "d3");
        register("job", "d2", "d3");
        for (int i = 1; i <= 2; i++) {
            advance(INTERVAL);
            tickAll();
            if (i == 1) {
                served("job", 1);
            }
        }
        CompletableFuture<Void> committed = daemons.get("d3").epochCommitted("job", 2, 2, Duration.ofSeconds(3));
        group.drain();
        assertTrue(committed.isDone());
        Path file = JobTableStore.directoryIn(shared).resolve(JobTableStore.FILE_NAME);
        // The leader writes after each change, not only when it stops.
        waitUntil(Duration.ofSeconds(10), () -> savedCommittedEpoch(file) == 2, () -> "file " + file + " has epoch 2");

        daemons.values().forEach(SchedulerService::close);
        daemons.clear();
        group = new FakeGroup();
        startDaemons("d1", "d2", "d3");
        for (SchedulerServiceImpl daemon : daemons.values()) {
            JobRecord job = daemon.table().job("job").orElseThrow();
            assertEquals(2, job.committedEpoch(), "committed epoch after the restart");
            assertEquals(2, job.orderedEpoch(), "ordered epoch after the restart");
        }
        tickAll();
        advance(INTERVAL);
        tickAll();
        assertEquals(List.of(checkpoint("job", 1), checkpoint("job", 2),
                checkpoint("job", 3)), commands.get("d3"), "orders go on from epoch 3");
    }

    @Test
    void aCorruptOrUnknownVersionTableFileIsRefusedNamingItAndIsKept() throws Exception {
        Path dir = PrivateDirectories.createPrivate(JobTableStore.directoryIn(shared));
        Path file = dir.resolve(JobTableStore.FILE_NAME);
        assertRefused(file, "{\"format\": \"mpirun-ft-job-table\", \"version\": 1, \"jobs\": [{\"job\": ", "corrupt job table, not JSON");
        assertRefused(file, "{\"format\": \"mpirun-ft-job-table\", \"version\": 2, \"jobs\": []}",
                "job table of version 2, this daemon reads version 3");
        assertRefused(file, "{\"jobs\": []}", "not a job table");
        assertRefused(file, "{\"format\": \"mpirun-ft-job-table\", \"version\": 3, \"jobs\": [{\"job\": \"j\"}]}", "corrupt job table");
    }

    @Test
    void theTableIsKeptWhereOnlyTheDaemonsCanChangeIt() throws Exception {
        Path dir = JobTableStore.directoryIn(shared);
        startDaemons("d1");
        assertEquals(PrivateDirectories.OWNER_ONLY, Files.getPosixFilePermissions(dir.getParent()), "the daemons' directory");
        assertEquals(PrivateDirectories.OWNER_ONLY, Files.getPosixFilePermissions(dir));
        daemons.values().forEach(SchedulerService::close);
        daemons.clear();

        // A user who made the daemons' directory first, open to others, in storage everyone writes to.
        Files.setPosixFilePermissions(dir.getParent(), PosixFilePermissions.fromString("rwxrwxrwx"));
        assertStartRefused(dir.getParent().toRealPath() + " is writable by others and not sticky (mode 777)");
        Files.setPosixFilePermissions(dir.getParent(), PrivateDirectories.OWNER_ONLY);
        // Storage that anyone may rename entries in: not sticky.
        Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwxrwxrwx"));
        assertStartRefused(shared.toRealPath() + " is writable by others and not sticky (mode 777)");
    }

    private static boolean fileHas(Path file, String text) {
        try {
            return Files.readString(file).contains(text);
        } catch (java.io.IOException e) {
            return false; // not written yet
        }
    }

    private void assertStartRefused(String problem) {
        group = new FakeGroup();
        SchedulerServiceImpl daemon = newDaemon("d1", NodeRole.COMPUTE);
        JobTableFileException e = assertThrows(JobTableFileException.class, daemon::start);
        assertTrue(e.getMessage().contains(problem), e.getMessage());
        assertEquals(1, e.getMessage().lines().count(), "one line: " + e.getMessage());
        daemon.close();
    }

    @Test
    void aTableWhereAnOlderReleaseKeptItIsReadAndThenWrittenToTheDaemonsDirectory() throws Exception {
        startDaemons("d1", "d2", "d3");
        register("job", "d2", "d3");
        Path file = JobTableStore.directoryIn(shared).resolve(JobTableStore.FILE_NAME);
        waitUntil(Duration.ofSeconds(10), () -> Files.exists(file), () -> file + " written");
        daemons.values().forEach(SchedulerService::close);
        daemons.clear();
        Path legacy = PrivateDirectories.createPrivate(JobTableStore.legacyDirectoryIn(shared)).resolve(JobTableStore.FILE_NAME);
        Files.move(file, legacy);

        group = new FakeGroup();
        startDaemons("d1", "d2", "d3");
        for (SchedulerServiceImpl daemon : daemons.values()) {
            assertTrue(daemon.table().job("job").isPresent(), "the older release's table was read");
        }
        register("job2", "d2", "d3");
        waitUntil(Duration.ofSeconds(10), () -> fileHas(file, "\"job2\""),
                () -> "the next change went to " + file);
    }

    private void assertRefused(Path file, String content, String problem) throws Exception {
        Files.writeString(file, content);
        group = new FakeGroup();
        SchedulerServiceImpl daemon = newDaemon("d1", NodeRole.COMPUTE);
        JobTableFileException e = assertThrows(JobTableFileException.class, daemon::start);
        assertTrue(e.getMessage().startsWith(file + ": " + problem), e.getMessage());
        assertEquals(1, e.getMessage().lines().count(), "one line: " + e.getMessage());
        assertEquals(content, Files.readString(file), "the file is left as it was");
        daemon.close();
    }

    private long savedCommittedEpoch(Path file) {
        try {
            return new JobTableStore(file.getParent(), "test").load().flatMap(s -> s.jobs().stream().findFirst())
                    .map(JobRecord::committedEpoch).orElse(-1L);
        } catch (RuntimeException e) {
            return -1; // not written yet
        }
    }

    private void startDaemons(String... names) {
        for (String name : names) {
            startDaemon(name, NodeRole.COMPUTE);
        }
        group.drain();
    }

    private void startDaemon(String name, NodeRole role) {
        SchedulerServiceImpl daemon = newDaemon(name, role);
        daemon.start();
    }

    private SchedulerServiceImpl newDaemon(String name, NodeRole role) {
        FakeGroup.FakeMember member = group.member(name, role);
        SchedulerServiceImpl daemon = (SchedulerServiceImpl) SchedulerService.builder(config(), member)
                .wallClock(clock)
                .nanoTime(nanos::get)
                .tickPeriod(Duration.ofHours(1)) // no ticks but the test's own
                .build();
        List<Command> received = commands.computeIfAbsent(name, n -> new CopyOnWriteArrayList<>());
        // A launcher acts on each order once: a transition handed out again (a newer table installed) is not a new order.
        daemon.addTransitionListener(t -> {
            Command command = commandOf(t);
            if (command != null && t.after().launcher().equals(name) && !received.contains(command)) {
                received.add(command);
            }
        });
        member.start();
        daemons.put(name, daemon);
        return daemon;
    }

    private SchedulerConfig config() {
        return new SchedulerConfig(Optional.of(INTERVAL), Duration.ofHours(24), Duration.ofMinutes(1), shared, LeastLoadedSpare.NAME,
                NoSpareAction.STOP_JOB);
    }

    /** Registers {@code job} at d3, with its launcher on d3. */
    private void register(String job, String... rankNodes) {
        CompletableFuture<Void> done = daemons.get("d3").registerJob(job, "d3", List.of(rankNodes), List.of(), RecoveryMode.PAUSE, Optional.empty(), 10, JobOwner.ROOT);
        group.drain();
        assertTrue(done.isDone(), "registered");
    }

    private void advance(Duration d) {
        clock.advance(d);
        nanos.addAndGet(d.toNanos());
    }

    private void tickAll() {
        new ArrayList<>(daemons.values()).forEach(SchedulerServiceImpl::tick);
        group.drain();
    }

    private List<SchedulerServiceImpl> live() {
        return daemons.entrySet().stream().filter(e -> group.view().contains(e.getKey())).map(Map.Entry::getValue).toList();
    }

    private void assertTablesEqual() {
        List<JobRecord> first = null;
        for (Map.Entry<String, SchedulerServiceImpl> e : daemons.entrySet()) {
            if (!group.view().contains(e.getKey())) {
                continue;
            }
            List<JobRecord> jobs = List.copyOf(e.getValue().table().jobs());
            if (first == null) {
                first = jobs;
            }
            assertEquals(first, jobs, e.getKey() + "'s table");
        }
    }

    /** Rank 0's report, through the launcher's daemon, that epoch {@code order} served checkpoint order {@code order}. */
    private void served(String job, long order) {
        daemons.get("d2").epochCommitted(job, order, order, Duration.ZERO);
        group.drain();
    }
}
