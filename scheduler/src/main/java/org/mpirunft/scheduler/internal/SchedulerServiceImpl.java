package org.mpirunft.scheduler.internal;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
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
 * A {@link SchedulerCore} replicated over the membership group.
 *
 * <p><b>The leaders' log.</b> Only the leader proposes updates. It broadcasts each one as
 * {@link GroupMessage.Replicated} numbered ({@code term}, {@code seq}), and every daemon, the
 * leader included, applies it when the broadcast comes back, in the leader's sending order
 * (JGroups gives per-sender FIFO, which suffices because there is one proposer). A daemon applies
 * only the next update of its own term, and only from the coordinator of its current view: once
 * it has seen a view without the old leader, nothing the old leader sent can change its table.
 *
 * <p><b>Leader change.</b> A crashed leader's last broadcast may have reached some daemons and
 * not others. So a daemon that becomes coordinator (or whose view gained members, which may
 * bring other tables) first synchronizes: on such a view every other daemon sends it its
 * ({@code term}, {@code seq}, table) ({@link GroupMessage.StateReport}); once all have (or
 * after {@code syncTimeout}, if a strict majority of the view has, itself included), the new
 * leader takes the most advanced table, which holds every
 * update any survivor applied, starts term max+1 with a {@link GroupMessage.Snapshot} of it, and
 * only then acts. Transitions come out of applied updates at every daemon (see
 * {@link SchedulerCore}), so every order given is backed by an update some survivor holds: a
 * new leader neither repeats an order nor forgets a recovery. A daemon that finds a gap in the
 * log (it missed a snapshot) reports itself {@code behind}, and the leader broadcasts a snapshot.
 *
 * <p><b>Threads.</b> Membership events and messages arrive on the membership service's thread;
 * requests on the callers'; ticks and writes of the table on this service's one scheduled
 * executor. Each takes {@link #lock}; transitions and request completions are handed out after it is
 * released. The core is only called under the lock, so the core's outputs run under it too.
 */
public final class SchedulerServiceImpl implements SchedulerService {
    private static final Logger LOG = Logger.getLogger(SchedulerService.class.getName());

    private enum State { NEW, STARTED, CLOSED }

    /** This daemon's part: follows the leader's log, collects the tables before leading, or leads. */
    private enum Role { FOLLOWER, SYNCING, LEADING }

    private final String self;
    private final SchedulerConfig config;
    private final Membership membership;
    private final JobTableStore store;
    private final Clock wallClock;
    private final LongSupplier nanoTime;
    private final Duration tickPeriod;
    private final Duration syncTimeout;
    private final List<Consumer<JobTransition>> transitionListeners = new CopyOnWriteArrayList<>();
    private final MembershipListener eventListener = this::onEvent;
    private final MessageListener messageListener = this::onMessage;

    private final Object lock = new Object();
    // Guarded by lock: everything below.
    private State state = State.NEW;
    private ScheduledExecutorService executor;
    private SchedulerCore core;
    private ClusterView view = ClusterView.NONE;
    /** The position in the leaders' log of this daemon's table. */
    private long term;
    private long seq;
    private Role role = Role.FOLLOWER;
    /** Expelled from the group: act on nothing until a newer view takes this daemon back. */
    private boolean fenced;
    /** The last update this daemon sent as leader, so it synchronizes only after its own came back. */
    private long sentTerm = -1;
    private long sentSeq;
    private ClusterView syncView;
    /** The view in which the current synchronization began; reports from it on count. */
    private long syncSinceViewId;
    private long syncStartedNanos;
    private final Map<String, GroupMessage.StateReport> reports = new HashMap<>();
    /** Reports for a view this daemon has not installed yet. */
    private final Map<String, GroupMessage.StateReport> earlyReports = new HashMap<>();
    private boolean behind;
    private long behindReportedNanos;
    private final PendingRequests pending = new PendingRequests();
    /** Transitions of the current call, handed to the listeners once the lock is released. */
    private final List<JobTransition> transitionsOut = new ArrayList<>();
    private boolean dirty;
    private boolean flushScheduled;
    private boolean writeFailing;

    /** Made by {@link SchedulerService.Builder#build()}, which checked the arguments. */
    public SchedulerServiceImpl(SchedulerConfig config, Membership membership, JobTableStore store, Clock wallClock, LongSupplier nanoTime,
                                Duration tickPeriod, Duration syncTimeout) {
        this.config = config;
        this.membership = membership;
        this.self = membership.metadata().name();
        this.store = store;
        this.wallClock = wallClock;
        this.nanoTime = nanoTime;
        this.tickPeriod = tickPeriod;
        this.syncTimeout = syncTimeout;
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
            term = saved.term();
            seq = saved.seq();
            Placement placement = new Placement(ReplacementPolicies.byName(config.replacementPolicy()), config.whenNoSpare());
            core = new SchedulerCore(self, config, placement, new JobTable(saved.jobs()), wallClock::millis, nanoTime, outputs);
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
            LOG.info(() -> self + ": scheduler started with " + saved.jobs().size() + " jobs from " + store.file()
                    + " (term " + saved.term() + ", seq " + saved.seq() + "), ticking every " + tickPeriod.toMillis() + " ms");
        }
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
            write = state == State.STARTED && role == Role.LEADING && !fenced;
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
            return state == State.STARTED && role == Role.LEADING && !fenced;
        }
    }

    @Override
    public String leader() {
        synchronized (lock) {
            return coordinator();
        }
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
                role = Role.FOLLOWER;
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
            boolean merged = event.map(e -> e instanceof MembershipEvent.PartitionHealed).orElse(false);
            boolean report = newer && beginView(newView, merged);
            boolean lead = role == Role.LEADING && !fenced;
            if (event.isPresent()) {
                core.onMembershipEvent(event.get(), lead);
            } else {
                core.onView(newView, lead);
            }
            if (report && role == Role.FOLLOWER) {
                sendReport(false);
            } else if (newer) {
                maybeCompleteSync();
            }
        });
    }

    /**
     * Takes {@code next} as the view and decides whether this daemon leads at once, synchronizes
     * first, or follows. Returns whether the view calls for a synchronization: a new coordinator,
     * or new members (who may bring other tables), or a merge ({@code merged}: the sides may hold
     * different tables; an expelled daemon merged back may see the same members as before it was
     * expelled, and may even be the coordinator). Every member decides that alike from the
     * same two views, so followers report exactly when the leader waits for reports. A view that
     * only removes members needs none: every survivor holds a prefix of the same leader's log, so
     * the leader acts at once; this is the failure path, whose latency counts. Unless it keeps at
     * most half of the group ({@link Membership#quorumBase()}): a cut-off leader's view can list
     * members it has not suspected yet, which it cannot reach, and their tables never come.
     */
    private boolean beginView(ClusterView next, boolean merged) {
        ClusterView previous = view;
        view = next;
        boolean newCoordinator = !previous.coordinator().map(Member::id).equals(next.coordinator().map(Member::id));
        Set<String> before = new HashSet<>();
        previous.members().forEach(m -> before.add(m.id()));
        boolean gained = merged || next.members().stream().anyMatch(m -> !before.contains(m.id()));
        earlyReports.values().removeIf(r -> r.viewId() < next.id());
        if (fenced && !gained) {
            // Only a view that takes this daemon back (a merge, a join) ends the fence. The
            // views of a cut-off minority must not start a term: its stale table would then
            // win over the majority's when the sides merge.
            role = Role.FOLLOWER;
            reports.clear();
            return false;
        }
        fenced = false;
        // A view that keeps at most half of the group may be a cut-off member's, listing members it
        // has not suspected yet; the leader of such a view would decide on losses that are its own.
        // It settles nothing until the members of its view send their tables, as to a new leader.
        boolean halfOrLess = 2 * next.members().size() <= membership.quorumBase();
        if (!coordinator().equals(self)) {
            role = Role.FOLLOWER;
            reports.clear();
            return newCoordinator || gained || halfOrLess;
        }
        if (!gained && role == Role.LEADING && !halfOrLess) {
            return false;
        }
        if (!gained && role == Role.SYNCING) {
            // Members left during the synchronization: the reports of those still here still hold
            // (nobody proposes meanwhile), and the others will not report again.
            syncView = next;
            reports.keySet().retainAll(next.names());
            return false;
        }
        role = Role.SYNCING;
        syncView = next;
        syncSinceViewId = next.id();
        syncStartedNanos = nanoTime.getAsLong();
        reports.clear();
        reports.putAll(earlyReports);
        earlyReports.clear();
        LOG.fine(() -> self + ": view " + next.id() + " " + next.names() + ": collecting the tables before leading");
        return true;
    }

    private void maybeCompleteSync() {
        if (role != Role.SYNCING) {
            return;
        }
        if (sentTerm == term && sentSeq > seq) {
            return; // this daemon's own last updates are still on their way back to it
        }
        if (missingReports().isEmpty()) {
            completeSync(Set.of());
        }
    }

    private Set<String> missingReports() {
        Set<String> missing = new TreeSet<>(syncView.names());
        missing.remove(self);
        missing.removeAll(reports.keySet());
        return missing;
    }

    /** Leads from the most advanced table of the reports and this daemon's own, in a new term. */
    private void completeSync(Set<String> missing) {
        long maxTerm = term;
        String bestFrom = self;
        GroupMessage.StateReport best = null;
        for (Map.Entry<String, GroupMessage.StateReport> e : reports.entrySet()) {
            GroupMessage.StateReport r = e.getValue();
            maxTerm = Math.max(maxTerm, r.term());
            long bestTerm = best == null ? term : best.term();
            long bestSeq = best == null ? seq : best.seq();
            if (r.term() > bestTerm || r.term() == bestTerm && r.seq() > bestSeq) {
                best = r;
                bestFrom = e.getKey();
            }
        }
        String from = best == null ? self + " (own, term " + term + " seq " + seq + ")"
                : bestFrom + " (term " + best.term() + " seq " + best.seq() + ")";
        if (best != null) {
            core.install(best.jobs());
        }
        term = maxTerm + 1;
        seq = 0;
        sentTerm = term;
        sentSeq = 0;
        behind = false;
        broadcast(new GroupMessage.Snapshot(GroupMessage.VERSION, term, 0, List.copyOf(core.table().jobs())));
        role = Role.LEADING;
        reports.clear();
        long term0 = term;
        LOG.info(() -> self + ": leading the scheduler in view " + view.id() + ", term " + term0 + ", with the table of " + from
                + (missing.isEmpty() ? "" : "; no table from " + missing + " within " + syncTimeout.toMillis() + " ms"));
        core.onView(view, true);
        persistSoon();
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
            switch (message) {
                case GroupMessage.Replicated r -> onReplicated(sender, r);
                case GroupMessage.Snapshot s -> onSnapshot(sender, s);
                case GroupMessage.StateReport r -> onReport(sender, r);
                case GroupMessage.Request r -> {
                    if (role == Role.LEADING && !fenced) {
                        core.request(r.update());
                    }
                }
                case GroupMessage.CheckpointRequest r -> {
                    if (role == Role.LEADING && !fenced) {
                        core.checkpointNow(r.job(), r.afterEpoch());
                    }
                }
                case GroupMessage.FailureRequest r -> {
                    if (role == Role.LEADING && !fenced) {
                        core.failureReported(r.job(), r.report());
                    }
                }
                case GroupMessage.RestartRequest r -> {
                    if (role == Role.LEADING && !fenced) {
                        core.restartNeeded(r.job(), r.source(), r.reason(), r.reporter());
                    }
                }
                case GroupMessage.MigrationRequest r -> {
                    if (role == Role.LEADING && !fenced) {
                        core.migrationRequested(r.job(), r.node(), r.reason());
                    }
                }
            }
        });
    }

    private void onReplicated(String sender, GroupMessage.Replicated r) {
        if (fenced || !sender.equals(coordinator())) {
            LOG.fine(() -> self + ": ignoring update " + r.term() + "/" + r.seq() + " from " + sender + ", not the coordinator");
            return;
        }
        if (r.term() == term && r.seq() == seq + 1) {
            seq = r.seq();
            core.apply(r.update());
            if (role == Role.LEADING) {
                persistSoon();
            } else if (role == Role.SYNCING) {
                maybeCompleteSync();
            }
        } else if (r.term() == term && r.seq() <= seq) {
            LOG.fine(() -> self + ": update " + r.term() + "/" + r.seq() + " is in the table already");
        } else if (!sender.equals(self)) {
            reportBehind("update " + r.term() + "/" + r.seq() + " does not follow " + term + "/" + seq);
        }
    }

    private void onSnapshot(String sender, GroupMessage.Snapshot s) {
        if (fenced || !sender.equals(coordinator())) {
            return;
        }
        // Within a term the log only moves forward (the coordinator's messages come in order);
        // a table of another term from the coordinator replaces ours, whatever its number.
        if (s.term() == term && s.seq() <= seq) {
            return;
        }
        term = s.term();
        seq = s.seq();
        behind = false;
        core.install(s.jobs());
    }

    private void onReport(String sender, GroupMessage.StateReport r) {
        if (r.viewId() > view.id()) {
            earlyReports.put(sender, r);
            return;
        }
        if (!coordinator().equals(self)) {
            return;
        }
        if (role == Role.SYNCING && r.viewId() >= syncSinceViewId) {
            reports.put(sender, r);
            maybeCompleteSync();
        } else if (role == Role.LEADING && !fenced && (r.behind() || r.term() != term)) {
            LOG.info(() -> self + ": " + sender + " is at " + r.term() + "/" + r.seq() + ", sending the table at " + term + "/" + seq);
            broadcast(new GroupMessage.Snapshot(GroupMessage.VERSION, term, seq, List.copyOf(core.table().jobs())));
        }
    }

    /** Asks the leader for its table: at once when first found behind, then at most once a tick period. */
    private void reportBehind(String why) {
        long now = nanoTime.getAsLong();
        if (behind && now - behindReportedNanos < tickPeriod.toNanos()) {
            return;
        }
        if (!behind) {
            LOG.info(() -> self + ": behind the leader's log (" + why + "); asking for its table");
        }
        behind = true;
        behindReportedNanos = now;
        sendReport(true);
    }

    private void sendReport(boolean isBehind) {
        String to = coordinator();
        if (!to.isEmpty() && !to.equals(self)) {
            send(to, new GroupMessage.StateReport(GroupMessage.VERSION, view.id(), term, seq, isBehind, List.copyOf(core.table().jobs())));
        }
    }

    // ---------------------------------------------------------------- periodic work

    /** The periodic work; package-private so that tests with a manual clock tick by hand. */
    void tick() {
        try {
            locked(false, () -> {
                long now = nanoTime.getAsLong();
                if (role == Role.SYNCING && now - syncStartedNanos >= syncTimeout.toNanos()) {
                    Set<String> missing = missingReports();
                    int members = syncView.members().size();
                    if (2 * (members - missing.size()) > members) {
                        completeSync(missing);
                    } else {
                        // A cut-off node's view can still count members it cannot reach: led on its
                        // own table, in a new term, its decisions would win over the majority's when
                        // the sides merge. It leads only with the tables of a strict majority of its
                        // view; the others are waited for until they report or leave the view.
                        syncStartedNanos = now;
                        LOG.warning(() -> self + ": not leading in view " + syncView.id() + ": no table from " + missing
                                + " within " + syncTimeout.toMillis() + " ms, and " + (members - missing.size()) + " of "
                                + members + " is no majority; waiting for them or for a view without them");
                    }
                }
                core.expireHolds();
                if (role == Role.LEADING && !fenced) {
                    core.tick();
                }
                for (GroupMessage message : pending.due(now, tickPeriod.toNanos())) {
                    sendToLeader(message);
                }
                if (behind && now - behindReportedNanos >= tickPeriod.toNanos()) {
                    behindReportedNanos = now;
                    sendReport(true);
                }
            });
        } catch (RuntimeException e) {
            // A scheduled task that throws is never run again: log, and tick on.
            LOG.log(Level.SEVERE, self + ": scheduler tick failed", e);
        }
    }

    /** Schedules a write of the table; writes coalesce, so the newest table is written soon after the last change. */
    private void persistSoon() {
        dirty = true;
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
            dirty = false;
            saved = new JobTableStore.Saved(term, seq, List.copyOf(core.table().jobs()));
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
                        + "; a restart of the whole cluster would lose the latest changes; retrying with the next change");
            }
            writeFailing = true;
            synchronized (lock) {
                dirty = true;
            }
        }
    }

    // ---------------------------------------------------------------- plumbing

    /** The core's outputs; called by the core, so always under {@link #lock}. */
    private final SchedulerCore.Outputs outputs = new SchedulerCore.Outputs() {
        @Override
        public void replicate(SchedulerUpdate update) {
            if (role != Role.LEADING || fenced) {
                LOG.fine(() -> self + ": not leading, not proposing " + update);
                return;
            }
            if (broadcast(new GroupMessage.Replicated(GroupMessage.VERSION, term, sentSeq + 1, update))) {
                sentSeq++;
            }
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

    private String coordinator() {
        return view.coordinator().map(Member::name).orElse("");
    }

    private void sendToLeader(GroupMessage message) {
        String to = coordinator();
        if (!to.isEmpty()) {
            send(to, message);
        }
    }

    private void send(String to, GroupMessage message) {
        if (!membership.send(to, SchedulerCodec.encode(message))) {
            LOG.fine(() -> self + ": could not send " + message.getClass().getSimpleName() + " to " + to);
        }
    }

    private boolean broadcast(GroupMessage message) {
        if (!membership.broadcast(SchedulerCodec.encode(message))) {
            LOG.warning(() -> self + ": not joined, could not broadcast " + message.getClass().getSimpleName());
            return false;
        }
        return true;
    }

    private static void requireName(String what, String value) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(what + " must be a non-empty name, got '" + value + "'");
        }
    }
}
