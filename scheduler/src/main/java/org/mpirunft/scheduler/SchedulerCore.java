package org.mpirunft.scheduler;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.LongSupplier;
import java.util.logging.Logger;
import org.mpirunft.membership.ClusterView;
import org.mpirunft.membership.Member;
import org.mpirunft.membership.MembershipEvent;
import org.mpirunft.scheduler.config.SchedulerConfig;
import org.mpirunft.scheduler.policy.AutoInterval;
import org.mpirunft.scheduler.policy.Placement;

/**
 * The decentralized scheduler as a replicated state machine. Every daemon runs one over the
 * same ordered membership events and the same ordered {@link SchedulerUpdate}s, so every daemon
 * holds the same {@link JobTable}. One daemon acts: the leader, the oldest member of the view
 * (its coordinator). The leader proposes updates ({@link Outputs#replicate}); it decides nothing
 * else. Commands come out where they are needed: the daemon named as a job's launcher turns the
 * updates it applies into that job's commands ({@link Outputs#send}). So a command exists only
 * where its update was applied, and whoever leads next finds the update in some daemon's table
 * (see {@code internal.SchedulerServiceImpl} for how a new leader collects the most advanced
 * table). Commands are keyed (job, epoch or failure), and a launcher acts on a key once: a
 * recovery completes exactly once, whoever leads.
 *
 * <p>Thread-safe: every entry point takes the core's lock; outputs are called under it and
 * must not block (they hand off to a channel).
 */
public final class SchedulerCore {
    private static final Logger LOG = Logger.getLogger(SchedulerCore.class.getName());
    /** Decision latencies kept, most recent last (a bounded history, like JGroups' suspect history). */
    static final int DECISIONS_KEPT = 1024;

    /** Where the core's decisions go: to every daemon, in order, and to this daemon's launcher. */
    public interface Outputs {
        void replicate(SchedulerUpdate update);

        void send(SchedulerCommand command);
    }

    private final String self;
    private final SchedulerConfig config;
    private final Placement placement;
    private final LongSupplier wallMillis;
    private final LongSupplier nanos;
    private final Outputs outputs;
    private final long startedAtMillis;
    // Everything below is guarded by this.
    private final AutoInterval auto;
    private final JobTable table;
    private ClusterView view = ClusterView.NONE;
    private boolean leader;
    /** Proposals of this leader not yet applied, so a tick or view does not propose twice. */
    private final Set<String> proposed = new HashSet<>();
    /** Every node this daemon saw in a view. */
    private final Set<String> seenNodes = new HashSet<>();
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
        this.auto = new AutoInterval(config.mtbf(), config.checkpointCost());
        this.startedAtMillis = wallMillis.getAsLong();
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

    /** Decision latencies, nanoseconds from a failure event to its pause decision, the last {@value #DECISIONS_KEPT}. */
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
        }
        onView(event.view(), lead);
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
        boolean wasLeader = leader;
        leader = lead;
        if (leader && !wasLeader) {
            LOG.info(() -> self + ": leading the scheduler in view " + newView.id());
            // Proposals of an earlier stint may never have gone out: decide afresh from the table.
            proposed.clear();
        }
        if (leader) {
            reconcile();
        }
    }

    /** An update delivered by the replication channel, in the same order at every daemon. */
    public synchronized void apply(SchedulerUpdate update) {
        if (update.version() != SchedulerUpdate.VERSION) {
            LOG.warning(() -> self + ": ignoring scheduler update of version " + update.version() + ": " + update);
            return;
        }
        proposed.remove(keyOf(update));
        if (!table.apply(update)) {
            return;
        }
        switch (update) {
            case SchedulerUpdate.CheckpointOrdered u -> toLauncher(u.job(), new SchedulerCommand.Checkpoint(u.job(), u.epoch()));
            case SchedulerUpdate.RecoveryStarted u -> {
                auto.failureObserved(Duration.ofMillis(Math.max(0, wallMillis.getAsLong() - startedAtMillis)));
                toLauncher(u.job(), new SchedulerCommand.Pause(u.job(), u.failureId(), u.placement()));
                if (leader) {
                    recordDecision(u);
                }
            }
            case SchedulerUpdate.JobStopped u -> toLauncher(u.job(), new SchedulerCommand.Stop(u.job(), u.reason()));
            case SchedulerUpdate.EpochCommitted u -> {
                if (u.costNanos() > 0) {
                    auto.checkpointMeasured(Duration.ofNanos(u.costNanos()));
                }
            }
            case SchedulerUpdate.JobRegistered u -> {
                if (leader) {
                    reconcile(); // a rank may sit on a node that is already gone
                }
            }
            case SchedulerUpdate.RecoveryCompleted u -> {
                if (leader) {
                    reconcile(); // the replacement may have died meanwhile
                }
            }
            case SchedulerUpdate.JobFinished u -> {
            }
        }
    }

    /**
     * Replaces the whole table with {@code jobs}, a newer state from another replica. For the
     * jobs this daemon launches, the commands the skipped updates would have given come out now:
     * a pause for a recovery it did not know, a stop, the newest checkpoint order.
     */
    public synchronized void install(Collection<JobRecord> jobs) {
        Map<String, JobRecord> before = new HashMap<>();
        table.jobs().forEach(j -> before.put(j.job(), j));
        table.replaceAll(jobs);
        proposed.clear();
        for (JobRecord job : table.jobs()) {
            if (!job.launcher().equals(self)) {
                continue;
            }
            Optional<JobRecord> old = Optional.ofNullable(before.get(job.job()));
            if (job.stopped()) {
                if (old.isEmpty() || !old.get().stopped()) {
                    outputs.send(new SchedulerCommand.Stop(job.job(), job.stopReason().orElseThrow()));
                }
            } else if (job.recovery().isPresent()) {
                JobRecord.Recovery recovery = job.recovery().get();
                if (old.flatMap(JobRecord::recovery).map(r -> !r.failureId().equals(recovery.failureId())).orElse(true)) {
                    outputs.send(new SchedulerCommand.Pause(job.job(), recovery.failureId(), recovery.placement()));
                }
            } else if (job.orderedEpoch() > old.map(JobRecord::orderedEpoch).orElse(0L)) {
                outputs.send(new SchedulerCommand.Checkpoint(job.job(), job.orderedEpoch()));
            }
        }
    }

    /**
     * A daemon asks the leader for a change ({@link SchedulerUpdate.JobRegistered},
     * {@link SchedulerUpdate.EpochCommitted}, {@link SchedulerUpdate.RecoveryCompleted},
     * {@link SchedulerUpdate.JobFinished}). The leader proposes it if it still changes something;
     * requests are repeated until the requester sees the change, so one may come many times.
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
                    propose(new SchedulerUpdate.JobRegistered(SchedulerUpdate.VERSION, u.job(), u.launcher(), u.rankNodes(),
                            wallMillis.getAsLong()));
                }
            }
            case SchedulerUpdate.EpochCommitted u -> {
                if (job.isPresent() && u.epoch() > job.get().committedEpoch()) {
                    propose(u);
                }
            }
            case SchedulerUpdate.RecoveryCompleted u -> {
                if (job.flatMap(JobRecord::recovery).map(r -> r.failureId().equals(u.failureId())).orElse(false)) {
                    propose(u);
                }
            }
            case SchedulerUpdate.JobFinished u -> {
                if (job.isPresent()) {
                    propose(u);
                }
            }
            default -> LOG.warning(() -> self + ": ignoring a request for " + update + ": only the leader decides that");
        }
    }

    /** An immediate checkpoint of {@code job}, unless one was ordered after epoch {@code afterEpoch} already. */
    public synchronized void checkpointNow(String job, long afterEpoch) {
        if (!leader) {
            return;
        }
        table.job(job).filter(j -> !j.stopped() && j.recovery().isEmpty() && j.orderedEpoch() <= afterEpoch)
                .ifPresent(j -> propose(new SchedulerUpdate.CheckpointOrdered(SchedulerUpdate.VERSION, job, j.orderedEpoch() + 1,
                        wallMillis.getAsLong())));
    }

    /** A measured checkpoint cost, for the {@code auto} interval (also taken from applied {@link SchedulerUpdate.EpochCommitted}). */
    public synchronized void checkpointMeasured(Duration cost) {
        auto.checkpointMeasured(cost);
    }

    public synchronized Duration checkpointInterval() {
        return config.checkpointInterval().orElseGet(auto::interval);
    }

    /** Called periodically; the leader orders the checkpoints that are due. */
    public synchronized void tick() {
        if (!leader) {
            return;
        }
        long now = wallMillis.getAsLong();
        long interval = checkpointInterval().toMillis();
        for (JobRecord job : table.jobs()) {
            if (job.stopped() || job.recovery().isPresent()) {
                continue;
            }
            // Counted from the last order, or the registration: a new leader keeps the rhythm.
            if (now - job.lastOrderAtMillis() >= interval) {
                propose(new SchedulerUpdate.CheckpointOrdered(SchedulerUpdate.VERSION, job.job(), job.orderedEpoch() + 1, now));
            }
        }
    }

    /**
     * Jobs with ranks on nodes that left the view get a recovery, or are stopped. A node counts
     * as gone only once this daemon has seen it: after a restart of the whole cluster the
     * daemons come back one at a time, and the first leader must not take the others for dead.
     */
    private void reconcile() {
        Set<String> alive = new HashSet<>(view.names());
        for (JobRecord job : table.jobs()) {
            if (job.stopped() || job.recovery().isPresent()) {
                continue;
            }
            List<Integer> lost = new ArrayList<>();
            List<String> lostWhere = new ArrayList<>();
            for (int rank = 0; rank < job.rankNodes().size(); rank++) {
                String node = job.rankNodes().get(rank);
                if (!alive.contains(node) && seenNodes.contains(node)) {
                    lost.add(rank);
                    lostWhere.add(rank + "@" + node);
                }
            }
            if (lost.isEmpty()) {
                continue;
            }
            // The same failure gets the same id at every leader: the lost ranks and their nodes.
            String failureId = String.join(",", lostWhere);
            Placement.Result result = placement.place(lost, view.members(), table.bookedNodes());
            if (result.placed()) {
                propose(new SchedulerUpdate.RecoveryStarted(SchedulerUpdate.VERSION, job.job(), failureId, lost, result.nodeByRank()));
            } else {
                propose(new SchedulerUpdate.JobStopped(SchedulerUpdate.VERSION, job.job(), result.stopReason().orElseThrow()));
            }
        }
    }

    private void propose(SchedulerUpdate update) {
        if (proposed.add(keyOf(update))) {
            outputs.replicate(update);
        }
    }

    /** Identifies a proposal until it is applied: one per job and epoch, failure, or transition. */
    private static String keyOf(SchedulerUpdate update) {
        return update.job() + switch (update) {
            case SchedulerUpdate.JobRegistered u -> "/register";
            case SchedulerUpdate.CheckpointOrdered u -> "/checkpoint/" + u.epoch();
            case SchedulerUpdate.EpochCommitted u -> "/committed/" + u.epoch();
            case SchedulerUpdate.RecoveryStarted u -> "/" + u.failureId();
            case SchedulerUpdate.RecoveryCompleted u -> "/completed/" + u.failureId();
            case SchedulerUpdate.JobStopped u -> "/stop";
            case SchedulerUpdate.JobFinished u -> "/finish";
        };
    }

    /** Commands go out at the daemon of the job's launcher, whichever daemon leads. */
    private void toLauncher(String job, SchedulerCommand command) {
        if (table.job(job).map(j -> j.launcher().equals(self)).orElse(false)) {
            outputs.send(command);
        }
    }

    private boolean isCoordinator(ClusterView v) {
        return v.coordinator().map(m -> m.name().equals(self)).orElse(false);
    }

    private void recordDecision(SchedulerUpdate.RecoveryStarted started) {
        for (String lostWhere : started.failureId().split(",")) {
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
