package org.mpirunft.scheduler;

import java.util.HashSet;
import java.util.Set;
import java.util.logging.Logger;

/**
 * The leader's proposals on their way through the group, until this daemon applies them. Each
 * has a key ({@link #keyOf}), so a tick or a view does not propose the same thing twice; the
 * decisions about a job's state share one prefix, so a job has at most one in flight
 * ({@link #inFlight}), and later reports and decisions for it wait for it.
 *
 * <p>Not thread-safe: the {@link SchedulerCore}'s lock guards it.
 */
final class Proposals {
    /** The core's logger: operators and benchmarks set the scheduler's log level by its name. */
    private static final Logger LOG = Logger.getLogger(SchedulerCore.class.getName());

    private final String self;
    private final SchedulerCore.Outputs outputs;
    /** Proposals of this leader not yet applied. */
    private final Set<String> proposed = new HashSet<>();

    Proposals(String self, SchedulerCore.Outputs outputs) {
        this.self = self;
        this.outputs = outputs;
    }

    /** Hands {@code update} to every daemon, unless it is on its way already. */
    void propose(SchedulerUpdate update) {
        if (proposed.add(keyOf(update))) {
            // A decision about a job's state is rare and is what an operator looks for first.
            if (keyOf(update).startsWith(update.job() + "/state/")) {
                LOG.info(() -> self + ": deciding " + update);
            }
            outputs.replicate(update);
        }
    }

    /** {@code update} came back through the group (or another leader's did): it is no longer on its way. */
    void applied(SchedulerUpdate update) {
        proposed.remove(keyOf(update));
    }

    /** Proposals of an earlier stint may never have gone out: the leader decides afresh from the table. */
    void forget() {
        proposed.clear();
    }

    /** Whether a decision of this leader about the job's state is on its way through the group. */
    boolean inFlight(String job) {
        String prefix = job + "/";
        return proposed.stream().anyMatch(key -> key.startsWith(prefix) && key.substring(prefix.length()).startsWith("state/"));
    }

    /** How many flush grants of the job's {@code epoch} are on their way. */
    long flushGrantsInFlight(String job, long epoch) {
        String granting = flushGrantPrefix(job, epoch);
        return proposed.stream().filter(key -> key.startsWith(granting)).count();
    }

    /** Whether {@code node}'s flush grant for the job's {@code epoch} is on its way. */
    boolean flushGrantInFlight(String job, long epoch, String node) {
        return proposed.contains(flushGrantPrefix(job, epoch) + node);
    }

    private static String flushGrantPrefix(String job, long epoch) {
        return job + "/flush-grant/" + epoch + "/";
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
}
