package org.mpirunft.scheduler.internal;

import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.mpirunft.membership.ClusterView;
import org.mpirunft.membership.Member;
import org.mpirunft.membership.Membership;
import org.mpirunft.membership.MembershipEvent;
import org.mpirunft.membership.MembershipListener;
import org.mpirunft.membership.MessageListener;
import org.mpirunft.membership.ReplicatedLog;
import org.mpirunft.common.CheckpointSchedule;
import org.mpirunft.common.JobOwner;
import org.mpirunft.common.rank.RankMessage;
import org.mpirunft.scheduler.FailureReport;
import org.mpirunft.scheduler.JobRecord;
import org.mpirunft.scheduler.JobState;
import org.mpirunft.scheduler.JobTransition;
import org.mpirunft.scheduler.RecoveryMode;
import org.mpirunft.scheduler.JobTable;
import org.mpirunft.scheduler.HostProbe;
import org.mpirunft.scheduler.SchedulerCore;
import org.mpirunft.scheduler.SchedulerException;
import org.mpirunft.scheduler.SchedulerService;
import org.mpirunft.scheduler.SchedulerUpdate;
import org.mpirunft.scheduler.UnknownJobException;
import org.mpirunft.scheduler.config.SchedulerConfig;
import org.mpirunft.scheduler.policy.Placement;
import org.mpirunft.scheduler.policy.ReplacementPolicies;

/**
 * A {@link SchedulerCore} replicated on the group's log ({@link ReplicatedLog}, Raft).
 *
 * <p><b>The log.</b> Only the log's leader decides. Each decision, and each request it grants,
 * is an entry ({@link LogEntry.Update}) that a majority of the voting daemons must store before
 * any daemon applies it; every daemon, the leader included, applies the committed entries in log
 * order, and the core's transitions, which become the orders to ranks, come only from there. So
 * a leader cut off with a minority may decide, but nothing it decides reaches a rank: its entries
 * never commit, and the majority's leader overwrites them when the sides merge.
 *
 * <p><b>Leader change.</b> A new leader's table may lack entries an earlier leader committed
 * until it applies an entry of its own term. So it appends {@link LogEntry.LeaderStarted} first
 * and decides only once that entry is applied; a leader that lost the role stops deciding at
 * once. A log that never held a table takes the one a file holds (an older release's, or the
 * disaster copy) as its first leader's {@link LogEntry.Imported}.
 *
 * <p><b>Start.</b> Joining replays the daemon's own copy of the log (under the membership's log
 * directory) into the core without transitions: those orders were given before. The leader
 * writes the table to the file after each change, for operators and for a cluster whose logs
 * are lost.
 *
 * <p><b>Threads.</b> Membership events and messages arrive on the membership service's thread;
 * entries and leadership on the log's; requests on the callers'; ticks and writes of the table
 * on this service's one scheduled executor. Each takes {@link #lock}; transitions and request
 * completions are handed out after it is released. The core is only called under the lock, so
 * the core's outputs run under it too.
 *
 * <p>Why one class of about 800 lines: half of it is the public requests, one short method
 * each, which check their arguments and say when the table shows them done; the other half is
 * the log's machine, the leadership and the tick. All of it runs under the one lock that keeps
 * the core, the table and the pending requests consistent; the decisions are in
 * {@link SchedulerCore}, the request bookkeeping in {@link PendingRequests}.
 */
public final class SchedulerServiceImpl implements SchedulerService {
    private static final Logger LOG = Logger.getLogger(SchedulerService.class.getName());

    private enum State { NEW, STARTED, CLOSED }

    private final String self;
    private final SchedulerConfig config;
    private final Membership membership;
    private final ReplicatedLog log;
    private final JobTableStore store;
    private final Clock wallClock;
    private final LongSupplier nanoTime;
    private final Duration tickPeriod;
    private final List<Consumer<JobTransition>> transitionListeners = new CopyOnWriteArrayList<>();
    private final MembershipListener eventListener = this::onEvent;
    private final MessageListener messageListener = this::onMessage;

    private final Object lock = new Object();
    // Guarded by lock: everything below.
    private State state = State.NEW;
    private ScheduledExecutorService executor;
    private SchedulerCore core;
    private ClusterView view = ClusterView.NONE;
    /** Leads: the log's leader, and its own {@link LogEntry.LeaderStarted} is applied. */
    private boolean leading;
    /** Expelled from the group: act on nothing until a newer view takes this daemon back. */
    private boolean fenced;
    /** Whether the log took a table in ({@link LogEntry.Imported}); part of the replicated state. */
    private boolean imported;
    /** The table the file held at start, for the first leader of a log that never held one. */
    private List<JobRecord> fileTable = List.of();
    /** Entries applied since the log was last replayed from its start; the file's position. */
    private long applied;
    private final PendingRequests pending = new PendingRequests();
    /** Transitions of the current call, handed to the listeners once the lock is released. */
    private final List<JobTransition> transitionsOut = new ArrayList<>();
    private boolean flushScheduled;
    private boolean writeFailing;

    /** Made by {@link SchedulerService.Builder#build()}, which checked the arguments. */
    public SchedulerServiceImpl(SchedulerConfig config, Membership membership, JobTableStore store, Clock wallClock, LongSupplier nanoTime,
                                Duration tickPeriod) {
        this.config = config;
        this.membership = membership;
        this.log = membership.replicatedLog();
        this.self = membership.metadata().name();
        this.store = store;
        this.wallClock = wallClock;
        this.nanoTime = nanoTime;
        this.tickPeriod = tickPeriod;
        ReplacementPolicies.byName(config.replacementPolicy()); // fails now, not at the first failure
    }

    // ---------------------------------------------------------------- lifecycle

    @Override
    public void start() {
        synchronized (lock) {
            if (state == State.STARTED) {
                return;
            }
            if (state == State.CLOSED) {
                throw new IllegalStateException(self + ": scheduler service is closed");
            }
        }
        JobTableStore.Saved saved = store.load().orElse(JobTableStore.Saved.EMPTY); // refuses a bad file: the caller reports it
        synchronized (lock) {
            if (state != State.NEW) {
                return;
            }
            fileTable = List.copyOf(saved.jobs());
            Placement placement = new Placement(ReplacementPolicies.byName(config.replacementPolicy()), config.whenNoSpare());
            // The table comes from the log, replayed as the membership joins.
            core = new SchedulerCore(self, config, placement, new JobTable(), wallClock::millis, nanoTime, outputs);
            core.loadsFrom(membership::view);
            // A failed daemon whose host still answers crashed: its node keeps its ranks for a restart's grace.
            core.probeFailedNodes(HostProbe.tcp(PROBE_CONNECT_BOUND), SchedulerCore.DAEMON_RESTART_GRACE);
            core.onNodeLost(member -> nodeLostListeners.forEach(listener -> listener.accept(member)));
            executor = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "scheduler-" + self);
                t.setDaemon(true);
                return t;
            });
            executor.scheduleWithFixedDelay(this::tick, tickPeriod.toNanos(), tickPeriod.toNanos(), TimeUnit.NANOSECONDS);
            // The first failure report and decision must not be the messages that build their codecs.
            Thread.ofPlatform().daemon().priority(Thread.MIN_PRIORITY).name("scheduler-prepare-codecs").start(SchedulerCodec::prepare);
            state = State.STARTED;
            LOG.info(() -> self + ": scheduler started, ticking every " + tickPeriod.toMillis() + " ms; the table comes from the "
                    + "group's log" + (saved.jobs().isEmpty() ? "" : ", or from " + store.file() + " (" + saved.jobs().size()
                    + " jobs) if the log never held one"));
        }
        log.attach(machine);
        log.addLeadershipListener(this::leadershipChanged);
        membership.addListener(eventListener);
        membership.addMessageListener(messageListener);
        // The membership may have joined already: its view is the first (a later one wins by id).
        ClusterView current = membership.view();
        if (current.size() > 0) {
            onView(current, Optional.empty());
        }
    }

    @Override
    public void close() {
        List<Runnable> failures;
        ScheduledExecutorService exec;
        boolean write;
        synchronized (lock) {
            if (state == State.CLOSED) {
                return;
            }
            write = state == State.STARTED && leading && !fenced;
            state = State.CLOSED;
            failures = pending.failAll(new SchedulerException(self + ": scheduler service closed before the request took effect"));
            exec = executor;
        }
        membership.removeListener(eventListener);
        membership.removeMessageListener(messageListener);
        if (exec != null) {
            exec.shutdown();
            try {
                if (!exec.awaitTermination(5, TimeUnit.SECONDS)) {
                    LOG.warning(() -> self + ": scheduler tasks did not end within 5 s of close");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (write) {
            writeTable(); // the last state this leader applied, on disk before it goes
        }
        failures.forEach(Runnable::run);
    }

    // ---------------------------------------------------------------- requests

    @Override
    public CompletableFuture<Void> registerJob(String job, String launcherNode, List<String> rankNodes, List<String> spares,
                                               RecoveryMode mode, Optional<CheckpointSchedule> schedule, int maxRestarts,
                                               JobOwner owner) {
        requireName("job", job);
        Objects.requireNonNull(owner, "owner");
        requireName("launcherNode", launcherNode);
        if (Objects.requireNonNull(rankNodes, "rankNodes").isEmpty()) {
            throw new IllegalArgumentException("job '" + job + "' needs at least one rank node");
        }
        rankNodes.forEach(n -> requireName("rank node", n));
        Objects.requireNonNull(mode, "mode");
        if (maxRestarts < 0) {
            throw new IllegalArgumentException("maxRestarts must be >= 0, got " + maxRestarts);
        }
        // The cluster's interval stands in for a job that names none: one knob per job, set at registration.
        CheckpointSchedule resolved = schedule.orElseGet(() -> config.checkpointInterval().map(CheckpointSchedule::every)
                .orElse(CheckpointSchedule.AUTO));
        return proposeUntil(new SchedulerUpdate.JobRegistered(SchedulerUpdate.VERSION, job, launcherNode, List.copyOf(rankNodes),
                List.copyOf(spares), mode, resolved, maxRestarts, 0, owner), table -> table.job(job).isPresent());
    }

    @Override
    public CompletableFuture<Void> epochCommitted(String job, long epoch, long order, Duration checkpointCost) {
        Objects.requireNonNull(checkpointCost, "checkpointCost");
        requireJob(job);
        return proposeUntil(new SchedulerUpdate.EpochCommitted(SchedulerUpdate.VERSION, job, epoch, order,
                Math.max(0, checkpointCost.toNanos())), table -> table.job(job).map(j -> j.committedEpoch() >= epoch).orElse(true));
    }

    @Override
    public CompletableFuture<Void> checkpointAbandoned(String job, long order, long epoch, String reason) {
        Objects.requireNonNull(reason, "reason");
        requireJob(job);
        return proposeUntil(new SchedulerUpdate.CheckpointAbandoned(SchedulerUpdate.VERSION, job, order, epoch, reason),
                table -> table.job(job).map(j -> j.servedOrder() >= order).orElse(true));
    }

    @Override
    public CompletableFuture<Void> flushRequested(String job, long epoch, String node) {
        requireName("node", node);
        requireJob(job);
        // Done once the table knows the request; or a newer epoch, or a recovery, made it moot.
        return proposeUntil(new SchedulerUpdate.FlushRequested(SchedulerUpdate.VERSION, job, epoch, node),
                table -> table.job(job).map(j -> j.flush().epoch() > epoch || j.flush().knows(epoch, node) || !j.state().isLive())
                        .orElse(true));
    }

    @Override
    public CompletableFuture<Void> flushDone(String job, long epoch, String node) {
        requireName("node", node);
        requireJob(job);
        return proposeUntil(new SchedulerUpdate.FlushDone(SchedulerUpdate.VERSION, job, epoch, node),
                table -> table.job(job).map(j -> j.flush().epoch() != epoch || j.flush().done().contains(node)).orElse(true));
    }

    @Override
    public int flushWriters() {
        return config.flushWriters();
    }

    @Override
    public CompletableFuture<Void> failureReported(String job, FailureReport report) {
        Objects.requireNonNull(report, "report");
        requireJob(job);
        return requestUntil(new GroupMessage.FailureRequest(GroupMessage.VERSION, job, report), table -> handled(table, job, report));
    }

    /**
     * Whether the table shows {@code report} dealt with: the job is gone or stopped, or every
     * rank it names is being repaired or runs elsewhere now, and no spare it names is still
     * promised to the job.
     */
    static boolean handled(JobTable table, String job, FailureReport report) {
        Optional<JobRecord> record = table.job(job);
        if (record.isEmpty() || record.get().stopped()) {
            return true;
        }
        JobRecord j = record.get();
        if (report.isStaleFor(j)) {
            return true;
        }
        Set<Integer> repairing = j.recovery().map(r -> r.lostRanks().keySet()).orElse(Set.of());
        Set<String> promised = new HashSet<>(j.recovery().map(r -> r.placement().values()).orElse(List.of()));
        for (Map.Entry<Integer, String> lost : report.lostRanks().entrySet()) {
            int rank = lost.getKey();
            boolean stillThere = rank < j.rankNodes().size() && j.rankNodes().get(rank).equals(lost.getValue());
            if (stillThere && !repairing.contains(rank) || promised.contains(lost.getValue())) {
                return false;
            }
        }
        for (String node : report.lostNodes()) {
            for (int rank = 0; rank < j.rankNodes().size(); rank++) {
                if (j.rankNodes().get(rank).equals(node) && !repairing.contains(rank)) {
                    return false;
                }
            }
            if (promised.contains(node)) {
                return false;
            }
        }
        return true;
    }

    @Override
    public CompletableFuture<Void> recoveryCompleted(String job, String failureId, List<String> rankNodes, long epoch, long iteration,
                                                     RankMessage.RecoverySplit split) {
        Objects.requireNonNull(failureId, "failureId");
        requireJob(job);
        return proposeUntil(new SchedulerUpdate.RecoveryCompleted(SchedulerUpdate.VERSION, job, failureId, List.copyOf(rankNodes),
                epoch, iteration, split), table -> !table.job(job).map(j -> j.state() == JobState.PAUSING).orElse(false));
    }

    @Override
    public CompletableFuture<Void> restartNeeded(String job, String source, String reason, FailureReport.Reporter reporter) {
        int attempt = requireJob(job).attempt();
        return requestUntil(new GroupMessage.RestartRequest(GroupMessage.VERSION, job, source, reason, reporter), table -> table.job(job)
                .map(j -> j.stopped() || j.state() == JobState.RESTARTING || j.attempt() > attempt
                        || FailureReport.Reporter.isStale(reporter, j)).orElse(true));
    }

    @Override
    public CompletableFuture<Void> jobRelaunched(String job, int attempt, List<String> rankNodes) {
        requireJob(job);
        return proposeUntil(new SchedulerUpdate.JobRelaunched(SchedulerUpdate.VERSION, job, attempt, List.copyOf(rankNodes)),
                table -> table.job(job).map(j -> j.state() != JobState.RESTARTING).orElse(true));
    }

    @Override
    public CompletableFuture<Void> programFinished(String job) {
        requireJob(job);
        return proposeUntil(new SchedulerUpdate.ProgramFinished(SchedulerUpdate.VERSION, job),
                table -> table.job(job).map(JobRecord::programFinished).orElse(true));
    }

    @Override
    public CompletableFuture<Void> stopJob(String job, String cause, String reason) {
        requireJob(job);
        return proposeUntil(new SchedulerUpdate.JobStopped(SchedulerUpdate.VERSION, job, cause, reason),
                table -> table.job(job).map(JobRecord::stopped).orElse(true));
    }

    @Override
    public CompletableFuture<Void> jobFinished(String job) {
        requireName("job", job);
        return proposeUntil(new SchedulerUpdate.JobFinished(SchedulerUpdate.VERSION, job), table -> table.job(job).isEmpty());
    }

    @Override
    public CompletableFuture<Long> checkpointNow(String job) {
        CompletableFuture<Long> future = new CompletableFuture<>();
        JobRecord known = requireJob(job);
        // An outstanding order is a checkpoint still to come: it answers this request.
        long after = known.orderOutstanding() ? known.servedOrder() : known.orderedEpoch();
        request(new GroupMessage.CheckpointRequest(GroupMessage.VERSION, job, after), table -> {
            Optional<JobRecord> record = table.job(job);
            if (record.isEmpty() || record.get().stopped()) {
                return Optional.of(() -> future.completeExceptionally(gone(job, record)));
            }
            long ordered = record.get().orderedEpoch();
            return ordered > after ? Optional.of(() -> future.complete(ordered)) : Optional.empty();
        }, future);
        return future;
    }

    @Override
    public CompletableFuture<Long> migrate(String job, String node, String reason) {
        requireName("node", node);
        JobRecord known = requireJob(job);
        Optional<String> refusal;
        synchronized (lock) {
            refusal = core.migrationRefusal(job, node);
        }
        if (refusal.isPresent()) {
            return CompletableFuture.failedFuture(new SchedulerException(refusal.get()));
        }
        long after = known.migrations();
        CompletableFuture<Long> future = new CompletableFuture<>();
        request(new GroupMessage.MigrationRequest(GroupMessage.VERSION, job, node, reason == null ? "" : reason), table -> {
            Optional<JobRecord> record = table.job(job);
            if (record.isEmpty() || record.get().stopped()) {
                return Optional.of(() -> future.completeExceptionally(gone(job, record)));
            }
            // Done once a migration after the request moves the node's ranks, or none is left there.
            Optional<JobRecord.Migration> ordered = record.get().migration().filter(m -> m.seq() > after && m.moving().containsValue(node));
            if (ordered.isPresent()) {
                return Optional.of(() -> future.complete(ordered.get().seq()));
            }
            if (!record.get().rankNodes().contains(node)) {
                long last = record.get().migrations();
                return Optional.of(() -> future.complete(last));
            }
            return Optional.empty();
        }, future);
        return future;
    }

    @Override
    public CompletableFuture<Void> migrationCompleted(String job, long seq, List<String> rankNodes, long iteration,
                                                      RankMessage.MigrationSplit split) {
        requireJob(job);
        return proposeUntil(new SchedulerUpdate.MigrationCompleted(SchedulerUpdate.VERSION, job, seq, List.copyOf(rankNodes), iteration,
                split), table -> !table.job(job).map(j -> j.isMigrating(seq)).orElse(false));
    }

    @Override
    public CompletableFuture<Void> migrationAbandoned(String job, long seq, String reason) {
        requireJob(job);
        return proposeUntil(new SchedulerUpdate.MigrationAbandoned(SchedulerUpdate.VERSION, job, seq, reason),
                table -> !table.job(job).map(j -> j.isMigrating(seq)).orElse(false));
    }

    @Override
    public Optional<Duration> checkpointInterval(String job) {
        synchronized (lock) {
            return core == null ? Optional.empty() : core.checkpointInterval(job);
        }
    }

    /** Why a request about {@code job} cannot be answered: the job left the table, or was stopped. */
    private static RuntimeException gone(String job, Optional<JobRecord> record) {
        return record.isEmpty() ? new UnknownJobException(job) : new SchedulerException("job '" + job + "' was stopped: "
                + record.get().stop().map(JobRecord.Stop::reason).orElse(""));
    }

    private void request(GroupMessage message, PendingRequests.Check check, CompletableFuture<?> future) {
        locked(true, () -> {
            pending.add(message, check, future, nanoTime.getAsLong());
            sendToLeader(message);
        });
    }

    /** Asks the leader for {@code update} until this daemon's table shows {@code done}; the future completes then. */
    private CompletableFuture<Void> proposeUntil(SchedulerUpdate update, Predicate<JobTable> done) {
        return requestUntil(new GroupMessage.Request(GroupMessage.VERSION, update), done);
    }

    /** Sends {@code message} to the leader, again each tick, until this daemon's table shows {@code done}. */
    private CompletableFuture<Void> requestUntil(GroupMessage message, Predicate<JobTable> done) {
        CompletableFuture<Void> future = new CompletableFuture<>();
        request(message, table -> done.test(table) ? Optional.of(() -> future.complete(null)) : Optional.empty(), future);
        return future;
    }

    private JobRecord requireJob(String job) {
        requireName("job", job);
        synchronized (lock) {
            requireStarted();
            return core.table().job(job).orElseThrow(() -> new UnknownJobException(job));
        }
    }

    // ---------------------------------------------------------------- queries and listeners

    /** How long a probe of a failed daemon's host waits for an answer (a live host on the cluster network answers in a millisecond). */
    private static final java.time.Duration PROBE_CONNECT_BOUND = java.time.Duration.ofMillis(500);
    private final List<java.util.function.Consumer<Member>> nodeLostListeners = new java.util.concurrent.CopyOnWriteArrayList<>();

    @Override
    public void addNodeLostListener(java.util.function.Consumer<Member> listener) {
        nodeLostListeners.add(listener);
    }

    @Override
    public void addTransitionListener(Consumer<JobTransition> listener) {
        transitionListeners.add(Objects.requireNonNull(listener, "listener"));
    }

    @Override
    public void removeTransitionListener(Consumer<JobTransition> listener) {
        transitionListeners.remove(listener);
    }

    @Override
    public JobTable table() {
        synchronized (lock) {
            return core == null ? new JobTable() : core.table();
        }
    }

    @Override
    public boolean isLeader() {
        synchronized (lock) {
            return state == State.STARTED && leading && !fenced;
        }
    }

    @Override
    public String leader() {
        return log.leader().orElse("");
    }

    @Override
    public long logTerm() {
        return log.term();
    }

    @Override
    public List<String> logVoters() {
        return log.voters();
    }

    @Override
    public List<Long> decisionNanos() {
        synchronized (lock) {
            return core == null ? List.of() : core.decisionNanos();
        }
    }

    // ---------------------------------------------------------------- membership

    private void onEvent(MembershipEvent event) {
        if (event instanceof MembershipEvent.Expelled) {
            locked(false, () -> {
                fenced = true;
                leading = false;
                core.onView(view, false);
                LOG.warning(() -> self + ": expelled from the group; the scheduler acts on nothing until the group takes this node back");
            });
            return;
        }
        onView(event.view(), Optional.of(event));
    }

    private void onView(ClusterView newView, Optional<MembershipEvent> event) {
        locked(false, () -> {
            // Events of one view come one by one, and start() may have taken the view already: only
            // a newer view counts, or any view of a new incarnation of this member (after a
            // leave and a join, in a group that may have started afresh and numbers from 0).
            boolean newer = view == ClusterView.NONE || newView.id() > view.id()
                    || !newView.member(self).map(Member::id).equals(view.member(self).map(Member::id));
            if (newer) {
                view = newView;
                if (fenced && log.isLeader() && !leading) {
                    // Taken back while still the log's leader (no majority elected another while
                    // it was out): its leadership never changed, so nothing else would tell it to
                    // act again. It starts as a new leader does, with an entry of its term.
                    LOG.info(() -> self + ": taken back in view " + newView.id() + " as the log's leader; leading the scheduler again");
                    startLeading();
                }
                fenced = false; // a view that holds this daemon took it back
            }
            boolean lead = leading && !fenced;
            if (event.isPresent()) {
                core.onMembershipEvent(event.get(), lead);
            } else {
                core.onView(newView, lead);
            }
        });
    }

    /** The log's leadership came or went (on the log's thread). */
    private void leadershipChanged(boolean isLeader) {
        locked(false, () -> {
            if (!isLeader) {
                if (leading) {
                    leading = false;
                    LOG.info(() -> self + ": no longer leads the scheduler");
                    core.onView(view, false);
                }
                return;
            }
            startLeading();
        });
    }

    /** As the log's leader, under the lock: the entries that make this daemon lead once applied (see {@link LogEntry.LeaderStarted}). */
    private void startLeading() {
        if (!imported) {
            // Applied only if the log has no table yet when it commits: a second one is ignored.
            appendEntry(new LogEntry.Imported(LogEntry.VERSION, fileTable));
        }
        appendEntry(new LogEntry.LeaderStarted(LogEntry.VERSION, self, log.term()));
    }

    // ---------------------------------------------------------------- the log

    /** The core as the log's state: called on the log's thread, one call at a time. */
    private final ReplicatedLog.Machine machine = new ReplicatedLog.Machine() {
        @Override
        public void reset() {
            locked(false, () -> {
                leading = false;
                imported = false;
                applied = 0;
                core.install(List.of());
                transitionsOut.clear(); // nothing ended: the log is about to be read again
            });
        }

        @Override
        public void apply(byte[] bytes, boolean replayed) {
            LogEntry entry;
            try {
                entry = SchedulerCodec.decodeEntry(bytes);
            } catch (SchedulerCodec.MalformedMessageException e) {
                // A newer release's entry: every daemon of this release skips it alike.
                LOG.warning(() -> self + ": skipping a log entry: " + e.getMessage());
                return;
            }
            locked(false, () -> {
                applied++;
                switch (entry) {
                    case LogEntry.Update u -> {
                        core.apply(u.update());
                        if (leading) {
                            persistSoon();
                        }
                    }
                    case LogEntry.Imported i -> {
                        if (!imported) {
                            imported = true;
                            core.install(i.jobs());
                            LOG.info(() -> self + ": the log took the table of " + store.file() + ": " + i.jobs().size() + " jobs");
                        }
                    }
                    case LogEntry.LeaderStarted l -> {
                        if (l.node().equals(self) && l.term() == log.term() && log.isLeader() && !leading) {
                            leading = true;
                            LOG.info(() -> self + ": leading the scheduler, term " + l.term() + ", voters " + log.voters());
                            core.onView(view, !fenced);
                            persistSoon();
                        }
                        if (!replayed) {
                            resendPendingTo(l.node());
                        }
                    }
                }
                if (replayed) {
                    transitionsOut.clear(); // acted on before this daemon restarted
                }
            });
        }

        @Override
        public byte[] snapshot() {
            synchronized (lock) {
                return SchedulerCodec.encode(new LogEntry.Snapshot(LogEntry.VERSION, imported, List.copyOf(core.table().jobs())));
            }
        }

        @Override
        public void install(byte[] bytes) {
            LogEntry.Snapshot snapshot = SchedulerCodec.decodeSnapshot(bytes);
            locked(false, () -> {
                imported = snapshot.imported();
                core.install(snapshot.jobs());
            });
        }
    };

    private void appendEntry(LogEntry entry) {
        log.append(SchedulerCodec.encode(entry)).exceptionally(failure -> {
            // Not the leader any more: the entry is dropped, or the next leader commits it; the table says which.
            LOG.fine(() -> self + ": " + entry.getClass().getSimpleName() + " not committed: " + failure.getMessage());
            return null;
        });
    }

    // ---------------------------------------------------------------- messages

    private void onMessage(String sender, byte[] payload) {
        GroupMessage message;
        try {
            message = SchedulerCodec.decode(payload);
        } catch (SchedulerCodec.MalformedMessageException e) {
            LOG.warning(() -> self + ": dropping a message from " + sender + ": " + e.getMessage());
            return;
        }
        locked(false, () -> {
            if (!leading || fenced) {
                return; // the requester sends it again, to the leader it knows then
            }
            switch (message) {
                case GroupMessage.Request r -> core.request(r.update());
                case GroupMessage.CheckpointRequest r -> core.checkpointNow(r.job(), r.afterEpoch());
                case GroupMessage.FailureRequest r -> core.failureReported(r.job(), r.report());
                case GroupMessage.RestartRequest r -> core.restartNeeded(r.job(), r.source(), r.reason(), r.reporter());
                case GroupMessage.MigrationRequest r -> core.migrationRequested(r.job(), r.node(), r.reason());
            }
        });
    }

    // ---------------------------------------------------------------- periodic work

    /** The periodic work; package-private so that tests with a manual clock tick by hand. */
    void tick() {
        try {
            locked(false, () -> {
                long now = nanoTime.getAsLong();
                core.expireHolds();
                if (leading && !fenced) {
                    core.tick();
                }
                for (GroupMessage message : pending.due(now, tickPeriod.toNanos())) {
                    sendToLeader(message);
                }
            });
        } catch (RuntimeException e) {
            // A scheduled task that throws is never run again: log, and tick on.
            LOG.log(Level.SEVERE, self + ": scheduler tick failed", e);
        }
    }

    /** Schedules a write of the table; writes coalesce, so the newest table is written soon after the last change. */
    private void persistSoon() {
        if (!flushScheduled && state == State.STARTED) {
            flushScheduled = true;
            executor.execute(this::writeTable);
        }
    }

    /** Writes the table as it is now; runs on the executor (or in close, after it stopped). */
    private void writeTable() {
        JobTableStore.Saved saved;
        synchronized (lock) {
            flushScheduled = false;
            saved = new JobTableStore.Saved(log.term(), applied, List.copyOf(core.table().jobs()));
        }
        try {
            store.save(saved, wallClock.instant());
            if (writeFailing) {
                writeFailing = false;
                LOG.info(() -> self + ": job table written to " + store.file() + " again");
            }
        } catch (IOException | RuntimeException e) {
            if (!writeFailing) {
                LOG.warning(() -> self + ": cannot write the job table to " + store.file() + ": " + e
                        + "; the table is in the group's log, this copy is behind until the next change is written");
            }
            writeFailing = true;
        }
    }

    // ---------------------------------------------------------------- plumbing

    /** The core's outputs; called by the core, so always under {@link #lock}. */
    private final SchedulerCore.Outputs outputs = new SchedulerCore.Outputs() {
        @Override
        public void replicate(SchedulerUpdate update) {
            if (!leading || fenced) {
                LOG.fine(() -> self + ": not leading, not proposing " + update);
                return;
            }
            appendEntry(new LogEntry.Update(LogEntry.VERSION, update));
        }

        @Override
        public void transition(JobTransition transition) {
            transitionsOut.add(transition);
        }
    };

    /**
     * Runs {@code body} under the lock, then hands out the transitions it produced and completes
     * the requests that took effect, with no lock held. {@code api}: a caller's request, which
     * fails when the service is not running; otherwise a callback, dropped then.
     */
    private void locked(boolean api, Runnable body) {
        List<JobTransition> transitions;
        List<Runnable> completions = List.of();
        synchronized (lock) {
            if (api) {
                requireStarted();
            } else if (state != State.STARTED) {
                return;
            }
            try {
                body.run();
            } finally {
                if (!pending.isEmpty()) {
                    completions = pending.settle(core.table());
                }
                transitions = List.copyOf(transitionsOut);
                transitionsOut.clear();
            }
        }
        for (JobTransition transition : transitions) {
            for (Consumer<JobTransition> listener : transitionListeners) {
                try {
                    listener.accept(transition);
                } catch (RuntimeException e) {
                    LOG.log(Level.SEVERE, self + ": transition listener failed on " + transition, e);
                }
            }
        }
        completions.forEach(Runnable::run);
    }

    private void requireStarted() {
        if (state != State.STARTED) {
            throw new IllegalStateException(self + ": scheduler service is " + state.name().toLowerCase(java.util.Locale.ROOT)
                    + ", not started");
        }
    }

    /**
     * Sends every request still pending to {@code leader}, whose first entry this daemon just
     * applied: it leads now (a leader acts from its own entry on). A request sent to the leader
     * before (or to nobody, during the election) may have been lost with it; waiting for the tick
     * would hold it up to a tick period, and a rank's failure report held that long holds the pause.
     */
    private void resendPendingTo(String leader) {
        List<GroupMessage> all = pending.due(nanoTime.getAsLong(), 0);
        if (!all.isEmpty()) {
            LOG.fine(() -> self + ": " + all.size() + " pending request(s) to the new leader " + leader);
            all.forEach(message -> send(leader, message));
        }
    }

    /** To the log's leader as this daemon knows it; during an election to nobody, and the tick sends it again. */
    private void sendToLeader(GroupMessage message) {
        log.leader().ifPresent(to -> send(to, message));
    }

    private void send(String to, GroupMessage message) {
        if (!membership.send(to, SchedulerCodec.encode(message))) {
            LOG.fine(() -> self + ": could not send " + message.getClass().getSimpleName() + " to " + to);
        }
    }

    private static void requireName(String what, String value) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(what + " must be a non-empty name, got '" + value + "'");
        }
    }
}
