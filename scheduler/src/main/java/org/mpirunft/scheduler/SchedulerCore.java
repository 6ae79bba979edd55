package org.mpirunft.scheduler;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.logging.Logger;
import org.mpirunft.common.CheckpointSchedule;
import org.mpirunft.membership.ClusterView;
import org.mpirunft.membership.Member;
import org.mpirunft.membership.MembershipEvent;
import org.mpirunft.membership.NodeMetadata;
import org.mpirunft.membership.NodeRole;
import org.mpirunft.scheduler.config.SchedulerConfig;
import org.mpirunft.scheduler.policy.AutoInterval;
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
 * ({@link #openReports}) and are judged against the table the decision produced.
 *
 * <p>Thread-safe: every entry point takes the core's lock; outputs are called under it and
 * must not block (they hand off to a channel).
 */
public final class SchedulerCore {
    private static final Logger LOG = Logger.getLogger(SchedulerCore.class.getName());
    /** Decision latencies kept, most recent last (a bounded history, like JGroups' suspect history). */
    static final int DECISIONS_KEPT = 1024;

    /** Where the core's decisions go: to every daemon, in order, and to this daemon's listeners. */
    public interface Outputs {
        void replicate(SchedulerUpdate update);

        void transition(JobTransition transition);
    }

    private final String self;
    private final SchedulerConfig config;
    private final Placement placement;
    private final LongSupplier wallMillis;
    private final LongSupplier nanos;
    private final Outputs outputs;
    private final long startedAtMillis;
    // Everything below is guarded by this.
    private final JobTable table;
    /** Each job's {@code auto} interval, fed by the costs every replica applies. */
    private final Map<String, AutoInterval> auto = new HashMap<>();
    /** When each job registered, by the leader's clock: where its observed MTBF counts from. */
    private final Map<String, Long> jobStartedAtMillis = new HashMap<>();
    private ClusterView view = ClusterView.NONE;
    /** The membership's view as it is now: the same members as {@link #view}, with the loads they reported since. */
    private Supplier<ClusterView> currentLoads = () -> view;
    private boolean leader;
    /** Proposals of this leader not yet applied, so a tick or view does not propose twice. */
    private final Set<String> proposed = new HashSet<>();
    /** Failure reports the leader has not yet judged against a settled table, by job. */
    private final Map<String, List<FailureReport>> openReports = new LinkedHashMap<>();
    /**
     * How long the leader holds a job's reports while they are only rank exits ({@link
     * FailureReport#EXIT}): the ranks of one abort die within milliseconds of each other, and
     * their daemons each report one; judged one by one, the first would start a pause whose
     * spares the next ones use up, where all of them together are a relaunch. A death that a
     * surviving rank sees (ULFM) is judged at once, as before; the wait only delays a death no
     * survivor reported.
     */
    static final Duration EXIT_SETTLE = Duration.ofSeconds(1);
    /** Until when each job's exit reports are held ({@code nanos} scale), while they are all it has. */
    private final Map<String, Long> exitsHeldUntil = new HashMap<>();
    /** Every node this daemon saw in a view. */
    private final Set<String> seenNodes = new HashSet<>();
    /**
     * Nodes whose daemon left the group gracefully and has not joined again. A daemon leaves
     * so on a stop or restart (an upgrade) and leaves its node's job processes running: their
     * ranks are not lost. If the node itself goes down after, the job's ranks report the loss.
     */
    private final Set<String> leftGracefully = new HashSet<>();
    /**
     * Nodes whose daemon failed out of the view while their host runs on ({@link HostProbe}), and
     * until when their ranks are held as alive: a daemon crash, which systemd
     * follows with a new daemon that adopts the node's job processes, is no node loss. A node
     * stays here while it is probed ({@link #PROBE_BOUND}), then for the restart grace; it leaves
     * when a daemon of it joins again (nothing was lost), or when the time runs out (its ranks are
     * lost, as for any failed node). A report of its ranks (ULFM, Open MPI, a rank's exit) is
     * judged meanwhile as always.
     */
    private final Map<String, Held> daemonDown = new HashMap<>();

    /** A failed node held as a crashed daemon's, until {@code untilNanos} ({@code nanos} scale). */
    private record Held(Member member, long untilNanos) {
    }

    /** How long a probe of a failed node may take before the node counts as lost. */
    static final Duration PROBE_BOUND = Duration.ofSeconds(1);
    /**
     * How long a crashed daemon's node keeps its ranks: a systemd restart (Restart=on-failure),
     * the new JVM's start and its join, with room for a loaded node.
     */
    public static final Duration DAEMON_RESTART_GRACE = Duration.ofSeconds(30);
    private HostProbe hostProbe = HostProbe.NONE;
    private Duration restartGrace = DAEMON_RESTART_GRACE;
    /** Told of each failed node once it counts as lost (the daemon fences it off the MPI runtime then). */
    private java.util.function.Consumer<Member> nodeLost = member -> { };
    private final Map<String, Long> failureSeenAtNanos = new HashMap<>();
    private final Deque<Long> decisionNanos = new ArrayDeque<>();

    public SchedulerCore(String self, SchedulerConfig config, Placement placement, JobTable table, LongSupplier wallMillis,
                         LongSupplier nanos, Outputs outputs) {
        this.self = self;
        this.config = config;
        this.placement = placement;
        this.table = table;
        this.wallMillis = wallMillis;
        this.nanos = nanos;
        this.outputs = outputs;
        this.startedAtMillis = wallMillis.getAsLong();
    }

    /**
     * How this daemon tells a crashed daemon from a lost node ({@link #daemonDown}), and how long
     * a crashed daemon's node keeps its ranks; without a call, every failed node is lost at once.
     */
    public synchronized void probeFailedNodes(HostProbe probe, Duration grace) {
        this.hostProbe = probe;
        this.restartGrace = grace;
    }

    /**
     * {@code listener} is told of each node that failed out of the view once it counts as lost:
     * at once, or when the probe finds its host gone, or when its crashed daemon's grace ran out,
     * or when a recovery replaced its ranks. Called with this core's lock held: it must not block.
     */
    public synchronized void onNodeLost(java.util.function.Consumer<Member> listener) {
        this.nodeLost = listener;
    }

    /** Whether {@code node}'s daemon failed while its host answers, and its ranks are still kept. */
    public synchronized boolean keepsNodeOfCrashedDaemon(String node) {
        return daemonDown.containsKey(node);
    }

    /**
     * Ends the holds whose time ran out (their nodes are lost); called on every daemon, leader or
     * not, since each fences on its own.
     */
    public synchronized void expireHolds() {
        long now = nanos.getAsLong();
        List<Held> expired = daemonDown.values().stream().filter(held -> now - held.untilNanos() >= 0).toList();
        if (expired.isEmpty()) {
            return;
        }
        expired.forEach(held -> {
            daemonDown.remove(held.member().name());
            LOG.info(() -> self + ": " + held.member().name() + "'s daemon did not come back in time: the node is lost");
            nodeLost.accept(held.member());
        });
        if (leader) {
            reconcile();
        }
    }

    /**
     * Where fresh loads come from: a view changes only when members come and go, but a spare's
     * load changes any time, and a placement must see it as it is now.
     */
    public synchronized void loadsFrom(Supplier<ClusterView> membershipView) {
        this.currentLoads = membershipView;
    }

    /** The view's members, each with its load as reported now. */
    private List<Member> membersNow() {
        Map<String, Member> fresh = new HashMap<>();
        currentLoads.get().members().forEach(m -> fresh.put(m.name(), m));
        return view.members().stream().map(m -> fresh.getOrDefault(m.name(), m)).toList();
    }

    public synchronized boolean isLeader() {
        return leader;
    }

    /** The view the core acts in. */
    synchronized ClusterView view() {
        return view;
    }

    public synchronized JobTable table() {
        return new JobTable(table.jobs());
    }

    /** Decision latencies, nanoseconds from a failure event to its decision, the last {@value #DECISIONS_KEPT}. */
    public synchronized List<Long> decisionNanos() {
        return List.copyOf(decisionNanos);
    }

    /** A membership event; this daemon leads if it is the view's coordinator. */
    public synchronized void onMembershipEvent(MembershipEvent event) {
        onMembershipEvent(event, isCoordinator(event.view()));
    }

    /** A membership event; {@code lead} says whether this daemon acts as leader in the event's view. */
    public synchronized void onMembershipEvent(MembershipEvent event, boolean lead) {
        if (event instanceof MembershipEvent.NodeFailed failed) {
            failureSeenAtNanos.putIfAbsent(failed.member().name(), nanos.getAsLong());
            leftGracefully.remove(failed.member().name());
            probe(failed.member());
        } else if (event instanceof MembershipEvent.NodeLeft left) {
            LOG.info(() -> self + ": " + left.member().name() + "'s daemon left the group gracefully; the ranks on its node run on");
            leftGracefully.add(left.member().name());
        }
        onView(event.view(), lead);
    }

    /**
     * Holds {@code member}'s node while its host is probed, if a live job runs ranks there or its
     * mpirun (whatever the job's mode: a new daemon adopts them from the handover record, and a
     * node taken for lost is fenced off the MPI runtime, which kills the ranks there, or, on
     * mpirun's node, the whole job). A node with none of a job's processes has nothing to keep,
     * nor has one whose ranks were reported lost before its daemon failed: they are being
     * replaced already (the report came first; {@link #lostAfterAll} covers the other order).
     */
    private void probe(Member member) {
        String node = member.name();
        List<JobRecord> live = table.jobs().stream().filter(job -> job.state().isLive()).toList();
        boolean reportedLost = live.stream().anyMatch(job -> ranksReportedLost(job, node));
        boolean jobProcessesThere = live.stream().anyMatch(job -> job.launcher().equals(node)
                || job.rankNodes().contains(node) && !ranksReportedLost(job, node));
        if (hostProbe == HostProbe.NONE || !jobProcessesThere) {
            if (hostProbe != HostProbe.NONE && reportedLost) {
                LOG.info(() -> self + ": the ranks on " + node + " were reported lost before its daemon failed: its node is lost");
            }
            nodeLost.accept(member);
            return;
        }
        daemonDown.put(node, new Held(member, nanos.getAsLong() + PROBE_BOUND.toNanos()));
        hostProbe.daemonGoneHostUp(member).thenAccept(up -> probed(member, up));
    }

    /** Whether {@code job}'s ranks on {@code node} were reported lost: a recovery under way replaces them, or one did. */
    private static boolean ranksReportedLost(JobRecord job, String node) {
        return job.lostNodes().contains(node) || job.recovery().map(r -> r.lostRanks().containsValue(node)).orElse(false);
    }

    /** The probe of {@code member}'s host answered: its daemon crashed ({@code up}), or the node is lost. */
    private synchronized void probed(Member member, boolean up) {
        String node = member.name();
        Held held = daemonDown.get(node);
        if (held == null || !held.member().equals(member)) {
            return;
        }
        if (up) {
            daemonDown.put(node, new Held(member, nanos.getAsLong() + restartGrace.toNanos()));
            LOG.info(() -> self + ": " + node + "'s daemon failed but its host answers: a daemon crash; the ranks there are kept for "
                    + restartGrace.toSeconds() + " s, until a new daemon joins, unless they are reported lost");
        } else {
            daemonDown.remove(node);
            LOG.info(() -> self + ": " + node + "'s host does not answer either: the node is lost");
            nodeLost.accept(member);
        }
        if (leader) {
            reconcile();
        }
    }

    /** A recovery or restart that replaces ranks of a held node: the node is lost after all. */
    private void lostAfterAll(Map<Integer, String> lostRanks) {
        for (String node : java.util.Set.copyOf(lostRanks.values())) {
            Held held = daemonDown.remove(node);
            if (held != null) {
                LOG.info(() -> self + ": the ranks on " + node + " were reported lost: its node is lost, not only its daemon");
                nodeLost.accept(held.member());
            }
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
        // Older views are stale; but a new incarnation of this member may join a group that numbers afresh.
        boolean sameIncarnation = newView.member(self).map(Member::id).equals(view.member(self).map(Member::id));
        if (view != ClusterView.NONE && sameIncarnation && (newView.id() < view.id() || newView.id() == view.id() && lead == leader)) {
            return;
        }
        view = newView;
        seenNodes.addAll(newView.names());
        leftGracefully.removeAll(newView.names());
        newView.names().stream().filter(daemonDown::containsKey).forEach(node ->
                LOG.info(() -> self + ": " + node + "'s daemon is back; the ranks on its node were not lost"));
        daemonDown.keySet().removeAll(newView.names());
        boolean wasLeader = leader;
        leader = lead;
        if (leader && !wasLeader) {
            LOG.info(() -> self + ": leading the scheduler in view " + newView.id());
            // Proposals of an earlier stint may never have gone out: decide afresh from the table.
            proposed.clear();
        }
        if (!leader) {
            openReports.clear();
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
        proposed.remove(keyOf(update));
        Optional<JobRecord> after = table.apply(update);
        if (after.isPresent()) {
            switch (update) {
                case SchedulerUpdate.RecoveryStarted u -> lostAfterAll(u.lostRanks());
                case SchedulerUpdate.RecoveryExtended u -> lostAfterAll(u.lostRanks());
                case SchedulerUpdate.RestartStarted u -> lostAfterAll(u.lostRanks());
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
                table.job(update.job()).ifPresent(this::grantFlushes);
            }
        }
    }

    private void applied(SchedulerUpdate update, JobRecord after) {
        switch (update) {
            case SchedulerUpdate.EpochCommitted u -> {
                if (u.costNanos() > 0) {
                    autoOf(after.job()).checkpointMeasured(Duration.ofNanos(u.costNanos()));
                }
            }
            case SchedulerUpdate.RecoveryStarted u -> failureObserved(u.job(), u.failureId());
            case SchedulerUpdate.RestartStarted u -> failureObserved(u.job(), u.failureId());
            case SchedulerUpdate.JobRegistered u -> jobStartedAtMillis.put(u.job(), u.atMillis());
            case SchedulerUpdate.JobFinished u -> {
                auto.remove(u.job());
                jobStartedAtMillis.remove(u.job());
            }
            default -> {
            }
        }
        LOG.fine(() -> self + ": job " + after.job() + " now " + after.state() + " after " + update.getClass().getSimpleName());
        outputs.transition(new JobTransition(update, after, false));
    }

    private void failureObserved(String job, String failureId) {
        // The observed MTBF counts the job's own running time, from its registration (the leader's
        // clock); a replica that never saw the registration counts from its own start. Counting
        // from the daemon's start made a job's MTBF depend on how long the cluster had been up.
        long since = jobStartedAtMillis.getOrDefault(job, startedAtMillis);
        autoOf(job).failureObserved(Duration.ofMillis(Math.max(0, wallMillis.getAsLong() - since)));
        if (leader) {
            recordDecision(failureId);
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
        proposed.clear();
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
                    propose(new SchedulerUpdate.JobRegistered(SchedulerUpdate.VERSION, u.job(), u.launcher(), u.rankNodes(), u.spares(), u.mode(),
                            u.schedule(), u.maxRestarts(), wallMillis.getAsLong(), u.owner()));
                }
            }
            case SchedulerUpdate.EpochCommitted u -> {
                if (job.isPresent() && u.epoch() > job.get().committedEpoch()) {
                    propose(u);
                }
            }
            case SchedulerUpdate.CheckpointAbandoned u -> {
                if (job.isPresent() && u.order() > job.get().servedOrder()) {
                    propose(u);
                }
            }
            case SchedulerUpdate.RecoveryCompleted u -> job.filter(j -> j.state() == JobState.PAUSING)
                    .ifPresent(j -> completeRecovery(j, u));
            case SchedulerUpdate.JobRelaunched u -> {
                if (job.map(j -> j.state() == JobState.RESTARTING).orElse(false)) {
                    propose(u);
                }
            }
            case SchedulerUpdate.JobStopped u -> {
                if (job.map(j -> !j.stopped()).orElse(false)) {
                    propose(u);
                }
            }
            case SchedulerUpdate.ProgramFinished u -> {
                if (job.map(j -> !j.programFinished()).orElse(false)) {
                    propose(u);
                }
            }
            case SchedulerUpdate.JobFinished u -> {
                if (job.isPresent()) {
                    propose(u);
                }
            }
            case SchedulerUpdate.FlushRequested u -> {
                if (job.map(j -> j.state().takesCheckpoints() && j.flush().takesRequest(u.epoch(), u.node())).orElse(false)) {
                    propose(u);
                }
            }
            case SchedulerUpdate.FlushDone u -> {
                if (job.map(j -> j.flush().takesDone(u.epoch(), u.node())).orElse(false)) {
                    propose(u);
                }
            }
            case SchedulerUpdate.MigrationCompleted u -> {
                if (job.map(j -> j.isMigrating(u.seq())).orElse(false)) {
                    propose(u);
                }
            }
            case SchedulerUpdate.MigrationAbandoned u -> {
                if (job.map(j -> j.isMigrating(u.seq())).orElse(false)) {
                    propose(u);
                }
            }
            default -> LOG.warning(() -> self + ": ignoring a request for " + update + ": only the leader decides that");
        }
    }

    /**
     * The staggered flush: grants the job's waiting nodes their turn, in the order they asked,
     * while fewer than {@code storage.flush-writers} write (grants on their way count as writing).
     * A writer lost with its node holds its turn until the recovery, which drops the epoch.
     */
    private void grantFlushes(JobRecord job) {
        JobRecord.Flush flush = job.flush();
        if (!job.state().takesCheckpoints() || flush.waiting().isEmpty()) {
            return;
        }
        int limit = config.flushWriters() > 0 ? config.flushWriters() : Integer.MAX_VALUE;
        String granting = job.job() + "/flush-grant/" + flush.epoch() + "/";
        long writers = flush.writing().size() + proposed.stream().filter(key -> key.startsWith(granting)).count();
        for (String node : flush.waiting()) {
            if (writers >= limit) {
                return;
            }
            if (!proposed.contains(granting + node)) {
                propose(new SchedulerUpdate.FlushGranted(SchedulerUpdate.VERSION, job.job(), flush.epoch(), node));
                writers++;
            }
        }
    }

    /**
     * The ranks report a recovery done. It completes the recovery under way only if every lost
     * rank now runs on a live node other than the one it was lost on: ranks that finished an
     * earlier part of a recovery that was extended meanwhile (a spare lost, another rank lost)
     * still have the extended order to carry out. Without a rank-to-node table (an old reporter)
     * the failure id must match.
     */
    private void completeRecovery(JobRecord job, SchedulerUpdate.RecoveryCompleted done) {
        JobRecord.Recovery recovery = job.recovery().orElseThrow();
        List<String> nodes = done.rankNodes();
        boolean repaired;
        if (recovery.placement().isEmpty() && !recovery.lostRanks().isEmpty()) {
            // A shrink: the survivors, in their old order, on the nodes they ran on; the first of
            // them only if the program runs on fewer (the others left the world).
            List<String> survivors = new ArrayList<>();
            for (int rank = 0; rank < job.rankNodes().size(); rank++) {
                if (!recovery.lostRanks().containsKey(rank)) {
                    survivors.add(job.rankNodes().get(rank));
                }
            }
            repaired = !nodes.isEmpty() && nodes.size() <= survivors.size() && nodes.equals(survivors.subList(0, nodes.size()));
        } else if (nodes.size() == job.rankNodes().size()) {
            Set<String> alive = new HashSet<>(view.names());
            repaired = recovery.lostRanks().entrySet().stream()
                    .allMatch(e -> !nodes.get(e.getKey()).equals(e.getValue()) && alive.contains(nodes.get(e.getKey())));
        } else {
            repaired = nodes.isEmpty() && recovery.failureId().equals(done.failureId());
        }
        if (repaired) {
            propose(new SchedulerUpdate.RecoveryCompleted(SchedulerUpdate.VERSION, done.job(), recovery.failureId(), nodes,
                    done.epoch(), done.iteration(), done.split()));
        } else {
            LOG.info(() -> self + ": job " + job.job() + ": the ranks recovered from " + done.failureId() + " onto " + nodes
                    + ", but recovery " + recovery.failureId() + " (seq " + recovery.seq() + ") is not done yet; waiting for it");
        }
    }

    /** A failure seen by {@code report.source()}; see the class comment. */
    public synchronized void failureReported(String job, FailureReport report) {
        if (!leader) {
            return;
        }
        // At debug: one failure is reported by several sources; the decision it leads to is logged at info.
        LOG.fine(() -> self + ": job " + job + ": " + report.source() + " reports " + report.lostRanks() + report.lostNodes()
                + " lost: " + report.detail());
        if (table.job(job).map(report::isStaleFor).orElse(false)) {
            LOG.fine(() -> self + ": job " + job + ": ignoring that report: rank " + report.reporter().rank() + " on "
                    + report.reporter().node() + " is no longer the job's");
            return;
        }
        // A relaunch ends the old launch's processes, and a finished program its own: no failure.
        if (FailureReport.EXIT.equals(report.source())
                && table.job(job).map(j -> j.state() == JobState.RESTARTING || j.programFinished()).orElse(true)) {
            LOG.fine(() -> self + ": job " + job + ": a rank's exit while the job restarts or after its program finished: no failure");
            return;
        }
        openReports.computeIfAbsent(job, j -> new ArrayList<>()).add(report);
        if (FailureReport.EXIT.equals(report.source())) {
            exitsHeldUntil.putIfAbsent(job, nanos.getAsLong() + EXIT_SETTLE.toNanos());
        }
        judgeOpenReports(job);
    }

    /** The job cannot go on in place (the ranks' recovery failed, mpirun ended early): restart it, or stop it. */
    public synchronized void restartNeeded(String job, String source, String reason, FailureReport.Reporter reporter) {
        if (!leader) {
            return;
        }
        LOG.info(() -> self + ": job " + job + ": " + source + " asks for a restart: " + reason);
        if (table.job(job).map(j -> FailureReport.Reporter.isStale(reporter, j)).orElse(false)) {
            LOG.info(() -> self + ": job " + job + ": ignoring that: rank " + reporter.rank() + " on " + reporter.node()
                    + " is no longer the job's");
            return;
        }
        table.job(job).filter(j -> j.state() == JobState.RUNNING || j.state() == JobState.PAUSING)
                .filter(j -> !inFlight(j.job()))
                .ifPresent(j -> planRestart(j, lostOffView(j), j.recovery().map(JobRecord.Recovery::placement).orElse(Map.of()),
                        j.recovery().map(JobRecord.Recovery::failureId).orElse(""), source, reason));
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
        table.job(job).filter(j -> j.state() == JobState.RUNNING && j.orderedEpoch() <= afterEpoch && !j.orderOutstanding())
                .ifPresent(j -> propose(new SchedulerUpdate.CheckpointOrdered(SchedulerUpdate.VERSION, job, j.orderedEpoch() + 1,
                        wallMillis.getAsLong())));
    }

    /** The interval the scheduler orders {@code job}'s checkpoints at: fixed or Daly's; empty for {@code every N} or an unknown job. */
    public synchronized Optional<Duration> checkpointInterval(String job) {
        return table.job(job).flatMap(this::intervalOf);
    }

    private Optional<Duration> intervalOf(JobRecord job) {
        CheckpointSchedule schedule = job.schedule();
        if (schedule.everyIterations() > 0) {
            return Optional.empty();
        }
        return Optional.of(schedule.interval().orElseGet(() -> autoOf(job.job()).interval()));
    }

    /** Called periodically; the leader orders the checkpoints that are due. */
    public synchronized void tick() {
        if (!leader) {
            return;
        }
        long now = wallMillis.getAsLong();
        // Exit reports whose hold ran out (EXIT_SETTLE).
        List.copyOf(exitsHeldUntil.keySet()).forEach(this::judgeOpenReports);

        for (JobRecord job : table.jobs()) {
            // A new leader's first grants, and any a lost proposal held back.
            grantFlushes(job);
            if (job.state() != JobState.RUNNING || job.programFinished()) {
                continue;
            }
            if (migrateOffDrained(job)) {
                continue;
            }
            if (job.orderOutstanding()) {
                // Ranks serve every order they have seen with one epoch, so a second order before
                // the first committed would not be a second checkpoint. It waits (the ranks may
                // still be starting, or a safe point may be far off).
                continue;
            }
            // Counted from the last order, or the registration: a new leader keeps the rhythm.
            intervalOf(job).filter(interval -> now - job.lastOrderAtMillis() >= interval.toMillis())
                    .ifPresent(interval -> propose(new SchedulerUpdate.CheckpointOrdered(SchedulerUpdate.VERSION, job.job(),
                            job.orderedEpoch() + 1, now)));
        }
    }

    // ------------------------------------------------------------------ decisions (leader)

    /**
     * The detector's part: nodes this daemon saw that left the view are lost, with every rank and
     * every placement a job has there. A node counts as gone only once this daemon has seen it:
     * after a restart of the whole cluster the daemons come back one at a time, and the first
     * leader must not take the others for dead. A node whose daemon left gracefully is not gone
     * ({@link #leftGracefully}).
     */
    private void reconcile() {
        Set<String> alive = new HashSet<>(view.names());
        List<String> departed = seenNodes.stream().filter(n -> !alive.contains(n) && !leftGracefully.contains(n) && !daemonDown.containsKey(n))
                .sorted().toList();
        for (JobRecord job : table.jobs()) {
            if (!job.state().isLive()) {
                continue;
            }
            boolean touched = job.rankNodes().stream().anyMatch(departed::contains) || job.recovery()
                    .map(r -> r.placement().values().stream().anyMatch(departed::contains)).orElse(false)
                    || job.migration().map(m -> m.placement().values().stream().anyMatch(departed::contains)).orElse(false);
            if (touched) {
                openReports.computeIfAbsent(job.job(), j -> new ArrayList<>())
                        .add(FailureReport.nodes("detector", departed, "left the daemons' view " + view.id()));
            }
            judgeOpenReports(job.job());
        }
    }

    /** Judges the job's open reports against the table, unless a decision for the job is still on its way. */
    private void judgeOpenReports(String jobName) {
        List<FailureReport> reports = openReports.get(jobName);
        if (reports == null || reports.isEmpty() || inFlight(jobName)) {
            return;
        }
        boolean onlyExits = reports.stream().allMatch(r -> FailureReport.EXIT.equals(r.source()));
        Long heldUntil = exitsHeldUntil.get(jobName);
        if (onlyExits && heldUntil != null && nanos.getAsLong() - heldUntil < 0) {
            return;
        }
        exitsHeldUntil.remove(jobName);
        openReports.remove(jobName);
        Optional<JobRecord> found = table.job(jobName);
        if (found.isEmpty() || !found.get().state().isLive()) {
            LOG.fine(() -> self + ": job " + jobName + " is gone or stopped; " + reports.size() + " failure report(s) change nothing");
            return;
        }
        JobRecord job = found.get();
        // Judged against the job as it is now, not as it was when they came: a report held (exits
        // settle together) or kept behind a decision on its way may be of a launch that was
        // relaunched meanwhile, whose ranks are no longer the job's.
        reports.removeIf(report -> {
            boolean stale = report.isStaleFor(job);
            if (stale) {
                LOG.fine(() -> self + ": job " + jobName + ": ignoring a " + report.source() + " report of " + report.lostRanks()
                        + ": rank " + report.reporter().rank() + " on " + report.reporter().node() + " is no longer the job's");
            }
            return stale;
        });
        Map<Integer, String> lost = new TreeMap<>();
        Map<Integer, String> sparesLost = new TreeMap<>();
        List<String> sources = new ArrayList<>();
        List<String> details = new ArrayList<>();
        Optional<String> spareOfMigrationLost = job.migration().flatMap(m -> m.placement().values().stream()
                .filter(node -> reports.stream().anyMatch(r -> r.lostNodes().contains(node) || r.lostRanks().containsValue(node)))
                .findFirst());
        for (FailureReport report : reports) {
            Map<Integer, String> newLost = newlyLost(job, report);
            Map<Integer, String> newSpares = lostPlacements(job, report);
            if (newLost.isEmpty() && newSpares.isEmpty()) {
                LOG.fine(() -> self + ": job " + jobName + ": " + report.source() + " report " + report.lostRanks() + report.lostNodes()
                        + " is already being repaired or was repaired");
                continue;
            }
            lost.putAll(newLost);
            sparesLost.putAll(newSpares);
            if (!sources.contains(report.source())) {
                sources.add(report.source());
            }
            if (!report.detail().isEmpty()) {
                details.add(report.detail());
            }
        }
        if (lost.isEmpty() && sparesLost.isEmpty()) {
            // A spare chosen for a migration was lost before the ranks moved: they stay where
            // they are, and a drained node's ranks get another spare at the next tick.
            spareOfMigrationLost.ifPresent(spare -> propose(new SchedulerUpdate.MigrationAbandoned(SchedulerUpdate.VERSION, jobName,
                    job.migration().orElseThrow().seq(), "spare " + spare + " was lost before the ranks moved")));
            return;
        }
        String source = String.join("+", sources);
        String detail = String.join("; ", details);
        LOG.info(() -> self + ": job " + jobName + ": " + source + " reports rank(s) " + lost.keySet() + " lost"
                + (sparesLost.isEmpty() ? "" : ", and the placement(s) of " + sparesLost.keySet()) + ": " + detail);
        switch (job.state()) {
            case RUNNING, MIGRATING -> {
                // In MIGRATING, the move is dropped either way: a pause from the last committed
                // epoch, or a restart, repairs whatever it had done.
                if (noRankSurvives(job, lost.keySet())) {
                    relaunchWithNoSurvivor(job, lost, Map.of(), source, detail);
                } else if (job.mode().recoversInPlace()) {
                    startRecovery(job, lost, source, detail);
                } else {
                    planRestart(job, lost, Map.of(), JobRecord.failureIdOf(lost), source, detail);
                }
            }
            case PAUSING -> {
                JobRecord.Recovery recovery = job.recovery().orElseThrow();
                Map<Integer, String> allLost = new TreeMap<>(recovery.lostRanks());
                allLost.putAll(lost);
                if (noRankSurvives(job, allLost.keySet())) {
                    Map<Integer, String> kept = new TreeMap<>(recovery.placement());
                    kept.keySet().removeAll(sparesLost.keySet());
                    relaunchWithNoSurvivor(job, allLost, kept, source, detail);
                } else {
                    extendRecovery(job, lost, sparesLost, source, detail);
                }
            }
            case RESTARTING -> {
                JobRecord.Recovery restart = job.recovery().orElseThrow();
                Map<Integer, String> all = new TreeMap<>(restart.lostRanks());
                all.putAll(lost);
                Map<Integer, String> kept = new TreeMap<>(restart.placement());
                kept.keySet().removeAll(sparesLost.keySet());
                kept.keySet().removeAll(lost.keySet());
                planRestart(job, all, kept, JobRecord.failureIdOf(all), source, detail);
            }
            case STOPPED -> {
            }
        }
    }

    /** The ranks a report names that still run where it says they were lost. */
    private static Map<Integer, String> newlyLost(JobRecord job, FailureReport report) {
        Map<Integer, String> lost = new TreeMap<>();
        report.lostRanks().forEach((rank, node) -> {
            if (rank >= 0 && rank < job.rankNodes().size() && job.rankNodes().get(rank).equals(node)) {
                lost.put(rank, node);
            }
        });
        for (String node : report.lostNodes()) {
            for (int rank = 0; rank < job.rankNodes().size(); rank++) {
                if (job.rankNodes().get(rank).equals(node)) {
                    lost.put(rank, node);
                }
            }
        }
        job.recovery().ifPresent(r -> lost.keySet().removeAll(r.lostRanks().keySet()));
        return lost;
    }

    /** Ranks whose chosen replacement node the report names lost: their spare must be replaced. */
    private static Map<Integer, String> lostPlacements(JobRecord job, FailureReport report) {
        Map<Integer, String> lost = new TreeMap<>();
        job.recovery().ifPresent(recovery -> recovery.placement().forEach((rank, node) -> {
            if (report.lostNodes().contains(node) || node.equals(report.lostRanks().get(rank))) {
                lost.put(rank, node);
            }
        }));
        return lost;
    }

    private void startRecovery(JobRecord job, Map<Integer, String> lost, String source, String detail) {
        Set<String> booked = table.bookedNodes();
        // A migration under way is dropped by the pause: its spares are the job's to use again.
        job.migration().ifPresent(m -> m.placement().values().forEach(spare -> {
            if (!job.rankNodes().contains(spare)) {
                booked.remove(spare);
            }
        }));
        Placement.Result result = placement.place(List.copyOf(lost.keySet()), inAllocation(job), booked);
        if (!result.placed()) {
            stop(job, "no-spare", result.stopReason().orElseThrow());
            return;
        }
        if (result.shrinks() && !canShrink(job, lost.keySet())) {
            return;
        }
        propose(new SchedulerUpdate.RecoveryStarted(SchedulerUpdate.VERSION, job.job(), JobRecord.failureIdOf(lost), source, lost,
                result.nodeByRank(), detail));
    }

    /** More lost ranks, or lost spares: the recovery under way grows, with new spares for what needs one. */
    private void extendRecovery(JobRecord job, Map<Integer, String> lost, Map<Integer, String> sparesLost, String source,
                                String detail) {
        JobRecord.Recovery recovery = job.recovery().orElseThrow();
        Map<Integer, String> allLost = new TreeMap<>(recovery.lostRanks());
        allLost.putAll(lost);
        Map<Integer, String> kept = new TreeMap<>(recovery.placement());
        kept.keySet().removeAll(sparesLost.keySet());
        List<Integer> toPlace = new ArrayList<>(lost.keySet());
        sparesLost.keySet().stream().filter(r -> !toPlace.contains(r)).forEach(toPlace::add);
        Set<String> booked = table.bookedNodes();
        booked.addAll(sparesLost.values());
        Placement.Result result = placement.place(toPlace, inAllocation(job), booked);
        if (!result.placed()) {
            stop(job, "no-spare", result.stopReason().orElseThrow());
            return;
        }
        if (result.shrinks() || recovery.placement().isEmpty()) {
            // A recovery that shrinks stays one: the ranks go on without every rank it lost.
            if (!canShrink(job, allLost.keySet())) {
                return;
            }
            kept.clear();
        } else {
            kept.putAll(result.nodeByRank());
        }
        propose(new SchedulerUpdate.RecoveryExtended(SchedulerUpdate.VERSION, job.job(), JobRecord.failureIdOf(allLost),
                recovery.seq() + 1, source, allLost, kept, detail));
    }

    /**
     * Whether a pause job lost every rank: no rank is left to roll back in place and call the
     * spares in (a warm spare waits to be called, and keeps mpirun running), so only a relaunch
     * from the last committed epoch goes on. A transparent job restores every node's images,
     * surviving or not.
     */
    private static boolean noRankSurvives(JobRecord job, Set<Integer> lost) {
        return job.mode() == RecoveryMode.PAUSE && lost.size() >= job.rankNodes().size();
    }

    /**
     * The relaunch of a pause job that lost every rank. Only the ranks whose node left the view
     * move ({@link #planRestart} adds them): a rank that died on a node still in the group (every
     * rank aborted) starts there again, so that a job whose ranks all died needs no spare per rank.
     * {@code keep} holds spares the pause had chosen.
     */
    private void relaunchWithNoSurvivor(JobRecord job, Map<Integer, String> lost, Map<Integer, String> keep, String source, String detail) {
        LOG.info(() -> self + ": job " + job.job() + ": every rank is lost " + lost + "; no rank survives to recover in place: a relaunch");
        planRestart(job, Map.of(), keep, JobRecord.failureIdOf(lost), source, detail + "; no rank survives to recover in place");
    }

    /**
     * Whether the job can go on without {@code lost} (when-no-spare: shrink); if not, it is
     * stopped, and says why. A transparent job's process images hold a fixed rank count.
     */
    private boolean canShrink(JobRecord job, Set<Integer> lost) {
        if (job.mode() == RecoveryMode.TRANSPARENT) {
            stop(job, "no-spare", "no free spare for rank(s) " + lost + ", and a transparent job cannot shrink (its process images hold "
                    + job.rankNodes().size() + " ranks); the job stops and keeps its checkpoints");
            return false;
        }
        if (lost.size() >= job.rankNodes().size()) {
            stop(job, "no-spare", "no free spare and no surviving rank to shrink to; the job stops and keeps its checkpoints");
            return false;
        }
        return true;
    }

    /**
     * A whole-job restart: every lost rank, and every rank on a node out of the view, goes to a
     * new node of the view; {@code keep} holds placements still good. A restart never plans a
     * node outside the group.
     */
    private void planRestart(JobRecord job, Map<Integer, String> lost, Map<Integer, String> keep, String failureId, String source,
                             String reason) {
        if (job.attempt() > job.maxRestarts()) {
            stop(job, "restarts-exhausted", "the job was relaunched " + (job.attempt() - 1) + " times, the most allowed; " + reason);
            return;
        }
        Set<String> alive = new HashSet<>(view.names());
        Map<Integer, String> allLost = new TreeMap<>(lost);
        allLost.putAll(lostOffView(job));
        Map<Integer, String> placed = new TreeMap<>();
        keep.forEach((rank, node) -> {
            if (alive.contains(node)) {
                placed.put(rank, node);
            }
        });
        List<Integer> toPlace = allLost.keySet().stream().filter(r -> !placed.containsKey(r)).toList();
        Set<String> booked = table.bookedNodes();
        booked.addAll(placed.values());
        Placement.Result result = placement.placeEvery(toPlace, inService(membersNow()), booked);
        if (!result.placed()) {
            stop(job, "no-spare", result.stopReason().orElseThrow());
            return;
        }
        placed.putAll(result.nodeByRank());
        List<String> plan = new ArrayList<>(job.rankNodes());
        placed.forEach(plan::set);
        String id = failureId.isEmpty() ? JobRecord.failureIdOf(allLost) : failureId;
        propose(new SchedulerUpdate.RestartStarted(SchedulerUpdate.VERSION, job.job(), id.isEmpty() ? "restart-" + job.attempt() : id,
                source, allLost, placed, plan, reason));
    }

    /**
     * The members a job's replacements may go to: with spares registered, its rank nodes and its
     * spares only, each of its spares a spare for it whatever its daemon's role (a batch
     * allocation's last node, or a host the user listed beyond the ranks, runs a compute daemon).
     * Never a node the running launch lost ({@link JobRecord#lostNodes}): back in the group, it
     * still has no node daemon of the job's mpirun, and a spawn there fails.
     */
    private List<Member> inAllocation(JobRecord job) {
        Set<String> lostByLaunch = new HashSet<>(job.lostNodes());
        return inAllocationOf(job).stream().filter(m -> !lostByLaunch.contains(m.name())).toList();
    }

    private List<Member> inAllocationOf(JobRecord job) {
        if (job.spares().isEmpty()) {
            return inService(membersNow());
        }
        Set<String> spares = new HashSet<>(job.spares());
        Set<String> allocation = new HashSet<>(job.rankNodes());
        allocation.addAll(spares);
        return inService(membersNow()).stream().filter(m -> allocation.contains(m.name()))
                .map(m -> spares.contains(m.name()) && m.role() != NodeRole.SPARE ? asSpare(m) : m).toList();
    }

    /** The members not drained: a drained node gets no new rank. */
    private static List<Member> inService(List<Member> members) {
        return members.stream().filter(m -> !m.load().isDrained()).toList();
    }

    private static Member asSpare(Member member) {
        NodeMetadata m = member.metadata();
        return new Member(member.id(), new NodeMetadata(m.name(), NodeRole.SPARE, m.slots(), m.controlAddress()), member.load());
    }

    /** The job's ranks on nodes that are not in the view. */
    private Map<Integer, String> lostOffView(JobRecord job) {
        Set<String> alive = new HashSet<>(view.names());
        Map<Integer, String> lost = new TreeMap<>();
        for (int rank = 0; rank < job.rankNodes().size(); rank++) {
            if (!alive.contains(job.rankNodes().get(rank))) {
                lost.put(rank, job.rankNodes().get(rank));
            }
        }
        return lost;
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
        table.job(job).filter(j -> j.state() == JobState.RUNNING && !inFlight(j.job()))
                .ifPresent(j -> migrate(j, node, "operator", reason));
    }

    /**
     * Why {@code job}'s ranks cannot be moved off {@code node} now, judged on this replica's
     * table and view; empty if they can (or will once the job runs again). For a clear answer at
     * the requester; the leader judges again.
     */
    public synchronized Optional<String> migrationRefusal(String job, String node) {
        Optional<JobRecord> found = table.job(job);
        if (found.isEmpty()) {
            return Optional.of("no job '" + job + "' is known to the scheduler");
        }
        JobRecord j = found.get();
        if (!j.state().isLive()) {
            return Optional.of("job '" + job + "' was stopped");
        }
        if (j.mode() != RecoveryMode.PAUSE) {
            return Optional.of("job '" + job + "' recovers by " + j.mode().word() + "; only a job in pause mode can migrate ranks");
        }
        if (ranksOn(j, node).isEmpty()) {
            return Optional.of("job '" + job + "' has no rank on node '" + node + "' (its ranks run on " + new java.util.TreeSet<>(j.rankNodes())
                    + ")");
        }
        if (ranksOn(j, node).size() == j.rankNodes().size()) {
            return Optional.of("every rank of job '" + job + "' runs on node '" + node + "'; a migration needs a rank that stays");
        }
        Placement.Result result = placement.placeEvery(ranksOn(j, node), inAllocation(j), table.bookedNodes());
        return result.placed() ? Optional.empty() : result.stopReason().map(r -> "cannot move the ranks of job '" + job + "' off '"
                + node + "': " + r.substring(0, r.indexOf(';') < 0 ? r.length() : r.indexOf(';')));
    }

    /** Drained nodes the leader warned it cannot move a job off, as {@code job/node}: warned once. */
    private final Set<String> unmovable = new HashSet<>();

    /**
     * Moves the job's ranks off the first drained node that has some (the nodes' daemons report
     * their drain with their load); true if a migration was proposed.
     */
    private boolean migrateOffDrained(JobRecord job) {
        if (job.mode() != RecoveryMode.PAUSE || inFlight(job.job())) {
            return false;
        }
        for (Member member : membersNow()) {
            if (member.load().isDrained() && !ranksOn(job, member.name()).isEmpty()) {
                if (migrate(job, member.name(), "drain", member.load().drain())) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Proposes moving the job's ranks on {@code node} to spares; false if none can go (said once per job and node). */
    private boolean migrate(JobRecord job, String node, String source, String reason) {
        List<Integer> moving = ranksOn(job, node);
        if (moving.isEmpty() || moving.size() == job.rankNodes().size() || job.programFinished()) {
            return false;
        }
        Placement.Result result = placement.placeEvery(moving, inAllocation(job), table.bookedNodes());
        if (!result.placed()) {
            if (unmovable.add(job.job() + "/" + node)) {
                LOG.warning(() -> self + ": job " + job.job() + ": cannot move its ranks " + moving + " off " + node + " (" + reason
                        + "): " + result.stopReason().orElseThrow().replace("; the job stops and keeps its checkpoints", "")
                        + "; they stay there");
            }
            return false;
        }
        unmovable.remove(job.job() + "/" + node);
        Map<Integer, String> from = new TreeMap<>();
        moving.forEach(rank -> from.put(rank, node));
        propose(new SchedulerUpdate.MigrationStarted(SchedulerUpdate.VERSION, job.job(), job.migrations() + 1, source, reason, from,
                result.nodeByRank()));
        return true;
    }

    private static List<Integer> ranksOn(JobRecord job, String node) {
        List<Integer> ranks = new ArrayList<>();
        for (int rank = 0; rank < job.rankNodes().size(); rank++) {
            if (job.rankNodes().get(rank).equals(node)) {
                ranks.add(rank);
            }
        }
        return ranks;
    }

    private void stop(JobRecord job, String cause, String reason) {
        propose(new SchedulerUpdate.JobStopped(SchedulerUpdate.VERSION, job.job(), cause, reason));
    }

    /** Whether a decision of this leader about the job's state is on its way through the group. */
    private boolean inFlight(String job) {
        String prefix = job + "/";
        return proposed.stream().anyMatch(key -> key.startsWith(prefix) && key.substring(prefix.length()).startsWith("state/"));
    }

    private AutoInterval autoOf(String job) {
        return auto.computeIfAbsent(job, j -> new AutoInterval(config.mtbf(), config.checkpointCost()));
    }

    private void propose(SchedulerUpdate update) {
        if (proposed.add(keyOf(update))) {
            // A decision about a job's state is rare and is what an operator looks for first.
            if (keyOf(update).startsWith(update.job() + "/state/")) {
                LOG.info(() -> self + ": deciding " + update);
            }
            outputs.replicate(update);
        }
    }

    /** Identifies a proposal until it is applied. State changes share the {@code state/} prefix: one in flight per job. */
    private static String keyOf(SchedulerUpdate update) {
        return update.job() + "/" + switch (update) {
            case SchedulerUpdate.JobRegistered u -> "register";
            case SchedulerUpdate.CheckpointOrdered u -> "checkpoint/" + u.epoch();
            case SchedulerUpdate.EpochCommitted u -> "committed/" + u.epoch();
            case SchedulerUpdate.CheckpointAbandoned u -> "abandoned/" + u.order();
            case SchedulerUpdate.RecoveryStarted u -> "state/recovery/" + u.failureId();
            case SchedulerUpdate.RecoveryExtended u -> "state/extended/" + u.seq();
            case SchedulerUpdate.RecoveryCompleted u -> "state/completed/" + u.failureId();
            case SchedulerUpdate.RestartStarted u -> "state/restart/" + u.failureId();
            case SchedulerUpdate.JobRelaunched u -> "state/relaunched/" + u.attempt();
            case SchedulerUpdate.JobStopped u -> "state/stop";
            case SchedulerUpdate.ProgramFinished u -> "finished-program";
            case SchedulerUpdate.JobFinished u -> "finish";
            case SchedulerUpdate.FlushRequested u -> "flush-request/" + u.epoch() + "/" + u.node();
            case SchedulerUpdate.FlushGranted u -> "flush-grant/" + u.epoch() + "/" + u.node();
            case SchedulerUpdate.FlushDone u -> "flush-done/" + u.epoch() + "/" + u.node();
            case SchedulerUpdate.MigrationStarted u -> "state/migration/" + u.seq();
            case SchedulerUpdate.MigrationCompleted u -> "state/migrated/" + u.seq();
            case SchedulerUpdate.MigrationAbandoned u -> "state/migration-abandoned/" + u.seq();
        };
    }

    private boolean isCoordinator(ClusterView v) {
        return v.coordinator().map(m -> m.name().equals(self)).orElse(false);
    }

    private void recordDecision(String failureId) {
        for (String lostWhere : failureId.split(",")) {
            Long seen = failureSeenAtNanos.remove(lostWhere.substring(lostWhere.indexOf('@') + 1));
            if (seen != null) {
                decisionNanos.addLast(nanos.getAsLong() - seen);
                if (decisionNanos.size() > DECISIONS_KEPT) {
                    decisionNanos.removeFirst();
                }
            }
        }
    }
}
