package org.mpirunft.scheduler;

import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.logging.Logger;
import org.mpirunft.membership.ClusterView;
import org.mpirunft.membership.Member;
import org.mpirunft.membership.MembershipEvent;
import org.mpirunft.scheduler.config.SchedulerConfig;
import org.mpirunft.scheduler.policy.Placement;

/**
 * The jobs' recovery state machines ({@link JobState}), replicated. Every daemon runs one over
 * the same ordered membership events and the same ordered {@link SchedulerUpdate}s, so every
 * daemon holds the same {@link JobTable}. One daemon decides: the leader, the oldest member of
 * the view (its coordinator). The leader proposes updates ({@link Outputs#replicate}); every
 * daemon hands each update it applies to its listeners as a {@link JobTransition}
 * ({@link Outputs#transition}): the daemons of a job's nodes turn them into orders for their
 * ranks, the launcher's daemon streams them to mpirun-ft.
 *
 * <p><b>One owner for failures.</b> Ranks (ULFM), Open MPI (through mpirun-ft) and the daemons'
 * detector (the view) all report failures the same way ({@link #failureReported}). A failure is
 * its lost ranks and the nodes they were lost on, so the leader resolves every report against
 * the job's table: what is already being repaired, or was repaired (the rank runs elsewhere now),
 * changes nothing; what is new starts a recovery, or extends the one under way (more lost ranks,
 * or a spare lost before the ranks resumed gets replaced by the next one). While a decision of
 * the leader for a job is on its way through the group, later reports for that job wait
 * ({@link FailureReports}) and are judged against the table the decision produced.
 *
 * <p><b>Who owns what.</b> This class holds the table and the leadership, applies the updates
 * and takes the requests, in one order; each decision has one owner it hands to:
 * {@link FailureReports} (which reports bring a new loss), {@link RecoveryDecisions} (what a loss
 * does to the job), {@link Migrations} (moves off a node), {@link CheckpointOrders} and
 * {@link FlushTurns} (the checkpoints' rhythm and writers), {@link FailedNodes} (which node out of
 * the view is lost, probed and fenced), {@link Proposals} (what is on its way through the group),
 * {@link PlacementView} (where ranks may go) and {@link DecisionLatency}.
 *
 * <p>Thread-safe: every entry point takes the core's lock, which guards the parts above too (none
 * of them is thread-safe); outputs are called under it and must not block (they hand off to a
 * channel). A host probe answers on another thread and comes back through {@link #probed}, which
 * takes the lock.
 */
public final class SchedulerCore {
    private static final Logger LOG = Logger.getLogger(SchedulerCore.class.getName());

    /** Where the core's decisions go: to every daemon, in order, and to this daemon's listeners. */
    public interface Outputs {
        void replicate(SchedulerUpdate update);

        void transition(JobTransition transition);
    }

    /**
     * How long a crashed daemon's node keeps its ranks: a systemd restart (Restart=on-failure),
     * the new JVM's start and its join, with room for a loaded node.
     */
    public static final Duration DAEMON_RESTART_GRACE = Duration.ofSeconds(30);

    private final String self;
    private final LongSupplier wallMillis;
    private final Outputs outputs;
    // Everything below is guarded by this.
    private final JobTable table;
    private boolean leader;
    private final Proposals proposals;
    private final PlacementView views = new PlacementView();
    private final FailedNodes failedNodes;
    private final FailureReports reports;
    private final RecoveryDecisions recovery;
    private final Migrations migrations;
    private final CheckpointOrders checkpoints;
    private final FlushTurns flushTurns;
    private final DecisionLatency latency;

    public SchedulerCore(String self, SchedulerConfig config, Placement placement, JobTable table, LongSupplier wallMillis,
                         LongSupplier nanos, Outputs outputs) {
        this.self = self;
        this.table = table;
        this.wallMillis = wallMillis;
        this.outputs = outputs;
        this.proposals = new Proposals(self, outputs);
        this.failedNodes = new FailedNodes(self, table, nanos, this::probed);
        this.reports = new FailureReports(self, table, nanos, proposals);
        this.recovery = new RecoveryDecisions(self, table, placement, views, proposals);
        this.migrations = new Migrations(self, table, placement, views, proposals);
        this.checkpoints = new CheckpointOrders(config, table, wallMillis, proposals);
        this.flushTurns = new FlushTurns(config.flushWriters(), proposals);
        this.latency = new DecisionLatency(nanos);
    }

    /**
     * How this daemon tells a crashed daemon from a lost node ({@link FailedNodes}), and how long
     * a crashed daemon's node keeps its ranks; without a call, every failed node is lost at once.
     */
    public synchronized void probeFailedNodes(HostProbe probe, Duration grace) {
        failedNodes.probeWith(probe, grace);
    }

    /**
     * {@code listener} is told of each node that failed out of the view once it counts as lost:
     * at once, or when the probe finds its host gone, or when its crashed daemon's grace ran out,
     * or when a recovery replaced its ranks. Called with this core's lock held: it must not block.
     */
    public synchronized void onNodeLost(Consumer<Member> listener) {
        failedNodes.onNodeLost(listener);
    }

    /** Whether {@code node}'s daemon failed while its host answers, and its ranks are still kept. */
    public synchronized boolean keepsNodeOfCrashedDaemon(String node) {
        return failedNodes.holds(node);
    }

    /**
     * Ends the holds whose time ran out (their nodes are lost); called on every daemon, leader or
     * not, since each fences on its own.
     */
    public synchronized void expireHolds() {
        if (failedNodes.expire() && leader) {
            reconcile();
        }
    }

    /**
     * Where fresh loads come from: a view changes only when members come and go, but a spare's
     * load changes any time, and a placement must see it as it is now.
     */
    public synchronized void loadsFrom(Supplier<ClusterView> membershipView) {
        views.loadsFrom(membershipView);
    }

    public synchronized boolean isLeader() {
        return leader;
    }

    /** The view the core acts in. */
    synchronized ClusterView view() {
        return views.view();
    }

    public synchronized JobTable table() {
        return new JobTable(table.jobs());
    }

    /** Decision latencies, nanoseconds from a failure event to its decision, the last {@value DecisionLatency#KEPT}. */
    public synchronized List<Long> decisionNanos() {
        return latency.history();
    }

    /** A membership event; this daemon leads if it is the view's coordinator. */
    public synchronized void onMembershipEvent(MembershipEvent event) {
        onMembershipEvent(event, isCoordinator(event.view()));
    }

    /** A membership event; {@code lead} says whether this daemon acts as leader in the event's view. */
    public synchronized void onMembershipEvent(MembershipEvent event, boolean lead) {
        if (event instanceof MembershipEvent.NodeFailed failed) {
            latency.failureSeen(failed.member().name());
            failedNodes.failed(failed.member());
        } else if (event instanceof MembershipEvent.NodeLeft left) {
            failedNodes.left(left.member());
        }
        onView(event.view(), lead);
    }

    /**
     * The probe of {@code member}'s host answered, on the probe's thread or (a probe that knows at
     * once) within {@link #onMembershipEvent}: its daemon crashed ({@code up}), or the node is lost.
     */
    private synchronized void probed(Member member, boolean up) {
        if (failedNodes.probed(member, up) && leader) {
            reconcile();
        }
    }

    /** A new view; this daemon leads if it is the coordinator. */
    public synchronized void onView(ClusterView newView) {
        onView(newView, isCoordinator(newView));
    }

    /**
     * A new view, or the same view with leadership granted or withdrawn: the service holds
     * leadership back until the replicas are synchronized.
     */
    public synchronized void onView(ClusterView newView, boolean lead) {
        ClusterView view = views.view();
        // Older views are stale; but a new incarnation of this member may join a group that numbers afresh.
        boolean sameIncarnation = newView.member(self).map(Member::id).equals(view.member(self).map(Member::id));
        if (view != ClusterView.NONE && sameIncarnation && (newView.id() < view.id() || newView.id() == view.id() && lead == leader)) {
            return;
        }
        views.moveTo(newView);
        failedNodes.viewed(newView);
        boolean wasLeader = leader;
        leader = lead;
        if (leader && !wasLeader) {
            LOG.info(() -> self + ": leading the scheduler in view " + newView.id());
            // Proposals of an earlier stint may never have gone out: decide afresh from the table.
            proposals.forget();
        }
        if (!leader) {
            reports.forgetOpen();
            return;
        }
        reconcile();
    }

    /** An update delivered by the replication channel, in the same order at every daemon. */
    public synchronized void apply(SchedulerUpdate update) {
        if (update.version() != SchedulerUpdate.VERSION) {
            LOG.warning(() -> self + ": ignoring scheduler update of version " + update.version() + ": " + update);
            return;
        }
        proposals.applied(update);
        Optional<JobRecord> after = table.apply(update);
        if (after.isPresent()) {
            switch (update) {
                case SchedulerUpdate.RecoveryStarted u -> failedNodes.lostAfterAll(u.lostRanks());
                case SchedulerUpdate.RecoveryExtended u -> failedNodes.lostAfterAll(u.lostRanks());
                case SchedulerUpdate.RestartStarted u -> failedNodes.lostAfterAll(u.lostRanks());
                default -> {
                }
            }
            applied(update, after.get());
        } else {
            LOG.fine(() -> self + ": update " + update + " does not fit the table; ignored");
        }
        if (leader) {
            if (after.isPresent() && (update instanceof SchedulerUpdate.JobRegistered || update instanceof SchedulerUpdate.RecoveryCompleted
                    || update instanceof SchedulerUpdate.JobRelaunched)) {
                // A rank may sit on a node that is already gone.
                reconcile();
            }
            // A decision for the job came back, or was dropped: judge what waited for it.
            judgeOpenReports(update.job());
            if (update instanceof SchedulerUpdate.FlushRequested || update instanceof SchedulerUpdate.FlushDone) {
                table.job(update.job()).ifPresent(flushTurns::grant);
            }
        }
    }

    private void applied(SchedulerUpdate update, JobRecord after) {
        switch (update) {
            case SchedulerUpdate.EpochCommitted u -> checkpoints.committed(after.job(), u.costNanos());
            case SchedulerUpdate.RecoveryStarted u -> failureObserved(u.job(), u.failureId());
            case SchedulerUpdate.RestartStarted u -> failureObserved(u.job(), u.failureId());
            case SchedulerUpdate.JobRegistered u -> checkpoints.registered(u.job(), u.atMillis());
            case SchedulerUpdate.JobFinished u -> checkpoints.finished(u.job());
            default -> {
            }
        }
        LOG.fine(() -> self + ": job " + after.job() + " now " + after.state() + " after " + update.getClass().getSimpleName());
        outputs.transition(new JobTransition(update, after, false));
    }

    private void failureObserved(String job, String failureId) {
        checkpoints.failureObserved(job);
        if (leader) {
            latency.decided(failureId);
        }
    }

    /**
     * Replaces the whole table with {@code jobs}, a newer state from another replica. The
     * transitions the skipped updates would have given come out now, made up from the difference.
     */
    public synchronized void install(Collection<JobRecord> jobs) {
        Map<String, JobRecord> before = new HashMap<>();
        table.jobs().forEach(j -> before.put(j.job(), j));
        table.replaceAll(jobs);
        proposals.forget();
        for (JobRecord job : table.jobs()) {
            JobRecord old = before.remove(job.job());
            for (SchedulerUpdate update : TransitionDiff.between(old, job)) {
                outputs.transition(new JobTransition(update, job, true));
            }
        }
        for (JobRecord gone : before.values()) {
            outputs.transition(new JobTransition(new SchedulerUpdate.JobFinished(SchedulerUpdate.VERSION, gone.job()), gone, true));
        }
    }

    // ------------------------------------------------------------------ requests (leader)

    /**
     * A daemon asks the leader for a change. The leader proposes it if it still fits; requests
     * are repeated until the requester sees the change, so one may come many times.
     */
    public synchronized void request(SchedulerUpdate update) {
        if (!leader) {
            return;
        }
        Optional<JobRecord> job = table.job(update.job());
        switch (update) {
            case SchedulerUpdate.JobRegistered u -> {
                if (job.isEmpty()) {
                    // Stamped with the leader's clock: the checkpoint rhythm starts here.
                    proposals.propose(new SchedulerUpdate.JobRegistered(SchedulerUpdate.VERSION, u.job(), u.launcher(), u.rankNodes(), u.spares(),
                            u.mode(), u.schedule(), u.maxRestarts(), wallMillis.getAsLong(), u.owner()));
                }
            }
            case SchedulerUpdate.EpochCommitted u -> {
                if (job.isPresent() && u.epoch() > job.get().committedEpoch()) {
                    proposals.propose(u);
                }
            }
            case SchedulerUpdate.CheckpointAbandoned u -> {
                if (job.isPresent() && u.order() > job.get().servedOrder()) {
                    proposals.propose(u);
                }
            }
            case SchedulerUpdate.RecoveryCompleted u -> job.filter(j -> j.state() == JobState.PAUSING)
                    .ifPresent(j -> recovery.complete(j, u));
            case SchedulerUpdate.JobRelaunched u -> {
                if (job.map(j -> j.state() == JobState.RESTARTING).orElse(false)) {
                    proposals.propose(u);
                }
            }
            case SchedulerUpdate.JobStopped u -> {
                if (job.map(j -> !j.stopped()).orElse(false)) {
                    proposals.propose(u);
                }
            }
            case SchedulerUpdate.ProgramFinished u -> {
                if (job.map(j -> !j.programFinished()).orElse(false)) {
                    proposals.propose(u);
                }
            }
            case SchedulerUpdate.JobFinished u -> {
                if (job.isPresent()) {
                    proposals.propose(u);
                }
            }
            case SchedulerUpdate.FlushRequested u -> {
                if (job.map(j -> j.state().takesCheckpoints() && j.flush().takesRequest(u.epoch(), u.node())).orElse(false)) {
                    proposals.propose(u);
                }
            }
            case SchedulerUpdate.FlushDone u -> {
                if (job.map(j -> j.flush().takesDone(u.epoch(), u.node())).orElse(false)) {
                    proposals.propose(u);
                }
            }
            case SchedulerUpdate.MigrationCompleted u -> {
                if (job.map(j -> j.isMigrating(u.seq())).orElse(false)) {
                    proposals.propose(u);
                }
            }
            case SchedulerUpdate.MigrationAbandoned u -> {
                if (job.map(j -> j.isMigrating(u.seq())).orElse(false)) {
                    proposals.propose(u);
                }
            }
            default -> LOG.warning(() -> self + ": ignoring a request for " + update + ": only the leader decides that");
        }
    }

    /** A failure seen by {@code report.source()}; see the class comment. */
    public synchronized void failureReported(String job, FailureReport report) {
        if (!leader) {
            return;
        }
        if (reports.reported(job, report)) {
            judgeOpenReports(job);
        }
    }

    /** The job cannot go on in place (the ranks' recovery failed, mpirun ended early): restart it, or stop it. */
    public synchronized void restartNeeded(String job, String source, String reason, FailureReport.Reporter reporter) {
        if (!leader) {
            return;
        }
        recovery.restartNeeded(job, source, reason, reporter);
    }

    /**
     * An immediate checkpoint of {@code job}, unless one was ordered after epoch {@code afterEpoch}
     * already or an order is still outstanding (the ranks would serve both with one epoch; the
     * outstanding one is the checkpoint asked for).
     */
    public synchronized void checkpointNow(String job, long afterEpoch) {
        if (!leader) {
            return;
        }
        checkpoints.orderNow(job, afterEpoch);
    }

    /** The interval the scheduler orders {@code job}'s checkpoints at: fixed or Daly's; empty for {@code every N} or an unknown job. */
    public synchronized Optional<Duration> checkpointInterval(String job) {
        return table.job(job).flatMap(checkpoints::interval);
    }

    /** Called periodically; the leader orders the checkpoints that are due. */
    public synchronized void tick() {
        if (!leader) {
            return;
        }
        long now = wallMillis.getAsLong();
        // Exit reports whose hold ran out (FailureReports.EXIT_SETTLE).
        reports.held().forEach(this::judgeOpenReports);

        for (JobRecord job : table.jobs()) {
            // A new leader's first grants, and any a lost proposal held back.
            flushTurns.grant(job);
            if (job.state() != JobState.RUNNING || job.programFinished()) {
                continue;
            }
            if (migrations.offDrained(job)) {
                continue;
            }
            checkpoints.orderIfDue(job, now);
        }
    }

    // ------------------------------------------------------------------ decisions (leader)

    /**
     * The detector's part: nodes this daemon saw that left the view are lost ({@link
     * FailedNodes#departed}), with every rank and every placement a job has there; each live
     * job's open reports are judged then.
     */
    private void reconcile() {
        ClusterView view = views.view();
        List<String> departed = failedNodes.departed(views.alive());
        for (JobRecord job : table.jobs()) {
            if (!job.state().isLive()) {
                continue;
            }
            boolean touched = job.rankNodes().stream().anyMatch(departed::contains) || job.recovery()
                    .map(r -> r.placement().values().stream().anyMatch(departed::contains)).orElse(false)
                    || job.migration().map(m -> m.placement().values().stream().anyMatch(departed::contains)).orElse(false);
            if (touched) {
                reports.add(job.job(), FailureReport.nodes("detector", departed, "left the daemons' view " + view.id()));
            }
            judgeOpenReports(job.job());
        }
    }

    /** Judges the job's open reports against the table, unless a decision for the job is still on its way. */
    private void judgeOpenReports(String job) {
        reports.judge(job).ifPresent(failure -> {
            if (failure.isNew()) {
                recovery.decide(failure);
            } else {
                failure.migrationSpareLost().ifPresent(spare -> migrations.spareLost(failure.job(), spare));
            }
        });
    }

    /**
     * The operator asks to move {@code job}'s ranks off {@code node} ({@code mpirun-ft migrate}).
     * The leader orders it if it fits now: the job runs in pause mode, has ranks there, and a
     * spare of its allocation is free for each. Otherwise nothing happens; the request is
     * repeated until it fits, or its requester gives up ({@link #migrationRefusal} says why
     * not, at the requester, before it asks).
     */
    public synchronized void migrationRequested(String job, String node, String reason) {
        if (!leader) {
            return;
        }
        migrations.requested(job, node, reason);
    }

    /**
     * Why {@code job}'s ranks cannot be moved off {@code node} now, judged on this replica's
     * table and view; empty if they can (or will once the job runs again). For a clear answer at
     * the requester; the leader judges again.
     */
    public synchronized Optional<String> migrationRefusal(String job, String node) {
        return migrations.refusal(job, node);
    }

    private boolean isCoordinator(ClusterView v) {
        return v.coordinator().map(m -> m.name().equals(self)).orElse(false);
    }
}
