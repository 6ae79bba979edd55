package org.mpirunft.scheduler;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.LongSupplier;
import java.util.logging.Logger;
import org.mpirunft.membership.ClusterView;
import org.mpirunft.membership.MembershipEvent;
import org.mpirunft.scheduler.config.SchedulerConfig;
import org.mpirunft.scheduler.policy.AutoInterval;
import org.mpirunft.scheduler.policy.Placement;

/**
 * The decentralized scheduler as a replicated state machine. Every daemon runs one over the
 * same ordered membership events and the same ordered {@link SchedulerUpdate}s, so every daemon
 * holds the same {@link JobTable}. One daemon acts: the leader, the oldest member of the view
 * (its coordinator). The leader proposes updates ({@link Outputs#replicate}) and issues
 * commands only once an update is applied, so a new leader can re-issue the commands of any
 * unfinished recovery from the table alone. Commands are keyed (job, epoch or failure), and a
 * launcher acts on a key once: a recovery completes exactly once, whoever leads.
 *
 * <p>Thread-safe: every entry point takes the core's lock; outputs are called under it and
 * must not block (they hand off to a channel).
 */
public final class SchedulerCore {
    private static final Logger LOG = Logger.getLogger(SchedulerCore.class.getName());

    /** Where the core's decisions go: to every daemon, in order, and to a job's launcher. */
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
    private final AutoInterval auto;
    // Everything below is guarded by this.
    private final JobTable table;
    private ClusterView view = ClusterView.NONE;
    private boolean leader;
    /** Proposals of this leader not yet applied, so a tick or view does not propose twice. */
    private final Set<String> proposed = new HashSet<>();
    private final Map<String, Long> failureSeenAtNanos = new HashMap<>();
    private final List<Long> decisionNanos = new ArrayList<>();

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
    }

    public synchronized boolean isLeader() {
        return leader;
    }

    public synchronized JobTable table() {
        return new JobTable(table.jobs());
    }

    /** Decision latencies so far, nanoseconds from a failure event to its pause command. */
    public synchronized List<Long> decisionNanos() {
        return List.copyOf(decisionNanos);
    }

    public synchronized void onMembershipEvent(MembershipEvent event) {
        if (event instanceof MembershipEvent.NodeFailed failed) {
            failureSeenAtNanos.putIfAbsent(failed.member().name(), nanos.getAsLong());
        }
        onView(event.view());
    }

    public synchronized void onView(ClusterView newView) {
        if (newView.id() <= view.id() && view != ClusterView.NONE) {
            return;
        }
        view = newView;
        boolean wasLeader = leader;
        leader = newView.coordinator().map(m -> m.name().equals(self)).orElse(false);
        if (leader && !wasLeader) {
            LOG.info(() -> self + ": leading the scheduler in view " + newView.id());
            proposed.clear();
            reissueOpenCommands();
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
        if (!table.apply(update)) {
            return;
        }
        if (!leader) {
            return;
        }
        switch (update) {
            case SchedulerUpdate.RecoveryStarted u -> {
                proposed.remove(u.job() + "/" + u.failureId());
                issue(new SchedulerCommand.Pause(u.job(), u.failureId(), u.placement()));
                recordDecision(u);
            }
            case SchedulerUpdate.CheckpointOrdered u -> {
                proposed.remove(u.job() + "/checkpoint/" + u.epoch());
                issue(new SchedulerCommand.Checkpoint(u.job(), u.epoch()));
            }
            case SchedulerUpdate.JobStopped u -> {
                proposed.remove(u.job() + "/stop");
                issue(new SchedulerCommand.Stop(u.job(), u.reason()));
            }
            case SchedulerUpdate.RecoveryCompleted u -> reconcile();
            default -> {
            }
        }
    }

    /** A measured checkpoint cost, for the {@code auto} interval. */
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
            long next = job.orderedEpoch() + 1;
            // Counted from the last order, or the registration: a new leader keeps the rhythm.
            if (now - job.lastOrderAtMillis() >= interval) {
                propose(job.job() + "/checkpoint/" + next,
                        new SchedulerUpdate.CheckpointOrdered(SchedulerUpdate.VERSION, job.job(), next, now));
            }
        }
    }

    /** Jobs with ranks on nodes no longer in the view get a recovery, or are stopped. */
    private void reconcile() {
        Set<String> alive = new HashSet<>(view.names());
        for (JobRecord job : table.jobs()) {
            if (job.stopped() || job.recovery().isPresent()) {
                continue;
            }
            List<Integer> lost = new ArrayList<>();
            List<String> lostWhere = new ArrayList<>();
            for (int rank = 0; rank < job.rankNodes().size(); rank++) {
                if (!alive.contains(job.rankNodes().get(rank))) {
                    lost.add(rank);
                    lostWhere.add(rank + "@" + job.rankNodes().get(rank));
                }
            }
            if (lost.isEmpty()) {
                continue;
            }
            // The same failure gets the same id at every leader: the lost ranks and their nodes.
            String failureId = String.join(",", lostWhere);
            Placement.Result result = placement.place(lost, view.members(), table.bookedNodes());
            if (result.placed()) {
                propose(job.job() + "/" + failureId, new SchedulerUpdate.RecoveryStarted(SchedulerUpdate.VERSION, job.job(),
                        failureId, lost, result.nodeByRank()));
            } else {
                propose(job.job() + "/stop", new SchedulerUpdate.JobStopped(SchedulerUpdate.VERSION, job.job(),
                        result.stopReason().orElseThrow()));
            }
        }
    }

    private void reissueOpenCommands() {
        for (JobRecord job : table.jobs()) {
            job.recovery().ifPresent(r -> issue(new SchedulerCommand.Pause(job.job(), r.failureId(), r.placement())));
        }
    }

    private void propose(String key, SchedulerUpdate update) {
        if (proposed.add(key)) {
            outputs.replicate(update);
        }
    }

    private void issue(SchedulerCommand command) {
        outputs.send(command);
    }

    private void recordDecision(SchedulerUpdate.RecoveryStarted started) {
        for (String lostWhere : started.failureId().split(",")) {
            Long seen = failureSeenAtNanos.remove(lostWhere.substring(lostWhere.indexOf('@') + 1));
            if (seen != null) {
                decisionNanos.add(nanos.getAsLong() - seen);
            }
        }
    }
}
