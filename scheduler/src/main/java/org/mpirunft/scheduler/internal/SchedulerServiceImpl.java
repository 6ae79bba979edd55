package org.mpirunft.scheduler.internal;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
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
import org.mpirunft.scheduler.JobTransition;
import org.mpirunft.scheduler.RecoveryMode;
import org.mpirunft.scheduler.JobTable;
import org.mpirunft.scheduler.HostProbe;
import org.mpirunft.scheduler.SchedulerCore;
import org.mpirunft.scheduler.SchedulerException;
import org.mpirunft.scheduler.SchedulerService;
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
 * <p>This class owns the lifecycle, the threads' way in, the lock and when the table is written;
 * the parts it guards with the lock have one owner each: {@link LogReplica} (the log's entries,
 * a leader's change, the views, the core), {@link JobRequests} (the requests' arguments and when
 * each is done), {@link PendingRequests} (the requests on their way to the leader), and
 * {@link TableCopy} writes the table. It is about 500 lines because each of the sixteen requests
 * of {@link SchedulerService} needs its override here, which hands it to {@link JobRequests}.
 */
public final class SchedulerServiceImpl implements SchedulerService {
    private static final Logger LOG = Logger.getLogger(SchedulerService.class.getName());
    /** How long a probe of a failed daemon's host waits for an answer (a live host on the cluster network answers in a millisecond). */
    private static final Duration PROBE_CONNECT_BOUND = Duration.ofMillis(500);

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
    private final List<Consumer<Member>> nodeLostListeners = new CopyOnWriteArrayList<>();
    private final MembershipListener eventListener = this::onEvent;
    private final MessageListener messageListener = this::onMessage;
    private final JobRequests requests;
    private final TableCopy tableCopy;

    private final Object lock = new Object();
    // Guarded by lock: everything below.
    private State state = State.NEW;
    private ScheduledExecutorService executor;
    private SchedulerCore core;
    private LogReplica replica;
    private final PendingRequests pending;
    private boolean flushScheduled;

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
        this.pending = new PendingRequests(self, membership, log);
        this.requests = new JobRequests(config, this::knownJob, this::migrationRefusal, this::request);
        this.tableCopy = new TableCopy(self, store, wallClock);
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
            Placement placement = new Placement(ReplacementPolicies.byName(config.replacementPolicy()), config.whenNoSpare());
            // The table comes from the log, replayed as the membership joins.
            replica = new LogReplica(self, log, store, pending, nanoTime, List.copyOf(saved.jobs()),
                    outputs -> new SchedulerCore(self, config, placement, new JobTable(), wallClock::millis, nanoTime, outputs));
            core = replica.core();
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
            write = state == State.STARTED && replica.leads();
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

    // ---------------------------------------------------------------- requests (JobRequests)

    @Override
    public CompletableFuture<Void> registerJob(String job, String launcherNode, List<String> rankNodes, List<String> spares,
                                               RecoveryMode mode, Optional<CheckpointSchedule> schedule, int maxRestarts,
                                               JobOwner owner) {
        return requests.registerJob(job, launcherNode, rankNodes, spares, mode, schedule, maxRestarts, owner);
    }

    @Override
    public CompletableFuture<Void> epochCommitted(String job, long epoch, long order, Duration checkpointCost) {
        return requests.epochCommitted(job, epoch, order, checkpointCost);
    }

    @Override
    public CompletableFuture<Void> checkpointAbandoned(String job, long order, long epoch, String reason) {
        return requests.checkpointAbandoned(job, order, epoch, reason);
    }

    @Override
    public CompletableFuture<Void> flushRequested(String job, long epoch, String node) {
        return requests.flushRequested(job, epoch, node);
    }

    @Override
    public CompletableFuture<Void> flushDone(String job, long epoch, String node) {
        return requests.flushDone(job, epoch, node);
    }

    @Override
    public CompletableFuture<Void> failureReported(String job, FailureReport report) {
        return requests.failureReported(job, report);
    }

    @Override
    public CompletableFuture<Void> recoveryCompleted(String job, String failureId, List<String> rankNodes, long epoch, long iteration,
                                                     RankMessage.RecoverySplit split) {
        return requests.recoveryCompleted(job, failureId, rankNodes, epoch, iteration, split);
    }

    @Override
    public CompletableFuture<Void> restartNeeded(String job, String source, String reason, FailureReport.Reporter reporter) {
        return requests.restartNeeded(job, source, reason, reporter);
    }

    @Override
    public CompletableFuture<Void> jobRelaunched(String job, int attempt, List<String> rankNodes) {
        return requests.jobRelaunched(job, attempt, rankNodes);
    }

    @Override
    public CompletableFuture<Void> programFinished(String job) {
        return requests.programFinished(job);
    }

    @Override
    public CompletableFuture<Void> stopJob(String job, String cause, String reason) {
        return requests.stopJob(job, cause, reason);
    }

    @Override
    public CompletableFuture<Void> jobFinished(String job) {
        return requests.jobFinished(job);
    }

    @Override
    public CompletableFuture<Long> checkpointNow(String job) {
        return requests.checkpointNow(job);
    }

    @Override
    public CompletableFuture<Long> migrate(String job, String node, String reason) {
        return requests.migrate(job, node, reason);
    }

    @Override
    public CompletableFuture<Void> migrationCompleted(String job, long seq, List<String> rankNodes, long iteration,
                                                      RankMessage.MigrationSplit split) {
        return requests.migrationCompleted(job, seq, rankNodes, iteration, split);
    }

    @Override
    public CompletableFuture<Void> migrationAbandoned(String job, long seq, String reason) {
        return requests.migrationAbandoned(job, seq, reason);
    }

    /** For {@link JobRequests}: the job in this daemon's table. */
    private JobRecord knownJob(String job) {
        synchronized (lock) {
            requireStarted();
            return core.table().job(job).orElseThrow(() -> new UnknownJobException(job));
        }
    }

    /** For {@link JobRequests}: why the job's ranks cannot leave {@code node} now, on this daemon's table. */
    private Optional<String> migrationRefusal(String job, String node) {
        synchronized (lock) {
            return core.migrationRefusal(job, node);
        }
    }

    /** For {@link JobRequests}: a request on its way to the leader until {@code check} sees it done. */
    private void request(GroupMessage message, PendingRequests.Check check, CompletableFuture<?> future) {
        locked(true, () -> pending.send(message, check, future, nanoTime.getAsLong()));
    }

    // ---------------------------------------------------------------- queries and listeners

    @Override
    public int flushWriters() {
        return config.flushWriters();
    }

    @Override
    public Optional<Duration> checkpointInterval(String job) {
        synchronized (lock) {
            return core == null ? Optional.empty() : core.checkpointInterval(job);
        }
    }

    @Override
    public void addNodeLostListener(Consumer<Member> listener) {
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
            return state == State.STARTED && replica.leads();
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

    // ---------------------------------------------------------------- the group's threads in (LogReplica)

    private void onEvent(MembershipEvent event) {
        if (event instanceof MembershipEvent.Expelled) {
            locked(false, () -> replica.expelled());
            return;
        }
        onView(event.view(), Optional.of(event));
    }

    private void onView(ClusterView newView, Optional<MembershipEvent> event) {
        locked(false, () -> replica.viewChanged(newView, event));
    }

    /** The log's leadership came or went (on the log's thread). */
    private void leadershipChanged(boolean isLeader) {
        locked(false, () -> replica.leadershipChanged(isLeader));
    }

    /** The core as the log's state: called on the log's thread, one call at a time. */
    private final ReplicatedLog.Machine machine = new ReplicatedLog.Machine() {
        @Override
        public void reset() {
            locked(false, () -> replica.reset());
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
                if (replica.apply(entry, replayed)) {
                    persistSoon();
                }
            });
        }

        @Override
        public byte[] snapshot() {
            synchronized (lock) {
                return SchedulerCodec.encode(replica.snapshot());
            }
        }

        @Override
        public void install(byte[] bytes) {
            LogEntry.Snapshot snapshot = SchedulerCodec.decodeSnapshot(bytes);
            locked(false, () -> replica.install(snapshot));
        }
    };

    private void onMessage(String sender, byte[] payload) {
        GroupMessage message;
        try {
            message = SchedulerCodec.decode(payload);
        } catch (SchedulerCodec.MalformedMessageException e) {
            LOG.warning(() -> self + ": dropping a message from " + sender + ": " + e.getMessage());
            return;
        }
        locked(false, () -> replica.onMessage(message));
    }

    // ---------------------------------------------------------------- periodic work

    /** The periodic work; package-private so that tests with a manual clock tick by hand. */
    void tick() {
        try {
            locked(false, () -> {
                long now = nanoTime.getAsLong();
                replica.tick();
                pending.repeat(now, tickPeriod.toNanos());
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
            saved = replica.saved();
        }
        tableCopy.write(saved);
    }

    // ---------------------------------------------------------------- plumbing

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
                transitions = replica.takeTransitions();
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
            throw new IllegalStateException(self + ": scheduler service is " + state.name().toLowerCase(Locale.ROOT)
                    + ", not started");
        }
    }
}
