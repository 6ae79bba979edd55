package org.mpirunft.daemon.internal;

import java.util.Map;
import java.util.Optional;
import org.mpirunft.common.rank.RankMessage;
import org.mpirunft.scheduler.JobTransition;
import org.mpirunft.scheduler.SchedulerUpdate;

/**
 * The orders this node's ranks get on the rank channel: the scheduler's transitions of their job
 * turned into orders (a checkpoint, a pause, a stop, a migration and its end, the job's end for
 * the warm spares), this node's turn in a staggered flush, and what the daemon hands them
 * itself (a flush grant, the survivors' call to a spare). Before the channel is served (a daemon
 * without a scheduler serves none), an order goes nowhere.
 */
final class RankOrders {
    private final String node;
    /** The rank channel; null until {@link #serve} (a daemon without a scheduler serves none). */
    private volatile RankServer ranks;

    RankOrders(String node) {
        this.node = node;
    }

    /** Orders go through {@code server} from now on. */
    void serve(RankServer server) {
        this.ranks = server;
    }

    /** Gives {@code order} to this node's ranks of {@code job}, if the channel is served. */
    void deliver(String job, RankMessage order) {
        RankServer server = ranks;
        if (server != null) {
            server.deliver(job, order);
        }
    }

    /** The orders a transition the scheduler applied gives this node's ranks of its job; on the membership thread, never blocking. */
    void onTransition(JobTransition transition) {
        RankServer server = ranks;
        if (server != null) {
            String job = transition.job();
            toOrder(transition).ifPresent(order -> server.deliver(job, order));
            if (transition.update() instanceof SchedulerUpdate.FlushGranted granted && granted.node().equals(node)) {
                server.deliver(job, new RankMessage.FlushGrant(RankMessage.VERSION, job, granted.epoch()));
            }
        }
    }

    /** The order a transition gives the ranks, if any. */
    static Optional<RankMessage> toOrder(JobTransition transition) {
        int v = RankMessage.VERSION;
        return Optional.ofNullable(switch (transition.update()) {
            case SchedulerUpdate.CheckpointOrdered u -> new RankMessage.CheckpointOrder(v, u.job(), u.epoch());
            case SchedulerUpdate.RecoveryStarted u -> new RankMessage.PauseOrder(v, u.job(), u.failureId(), 1, u.lostRanks(),
                    u.placement());
            case SchedulerUpdate.RecoveryExtended u -> new RankMessage.PauseOrder(v, u.job(), u.failureId(), u.seq(), u.lostRanks(),
                    u.placement());
            case SchedulerUpdate.JobStopped u -> new RankMessage.StopOrder(v, u.job(), u.reason());
            case SchedulerUpdate.MigrationStarted u -> new RankMessage.MigrationOrder(v, u.job(), u.seq(), u.moving(), u.placement());
            // The ranks may not have moved yet: they must not move after all.
            case SchedulerUpdate.MigrationAbandoned u -> new RankMessage.MigrationOrder(v, u.job(), u.seq(), Map.of(), Map.of());
            // Recorded: the moved ranks' old processes may leave now.
            case SchedulerUpdate.MigrationCompleted u -> new RankMessage.MigrationOrder(v, u.job(), u.seq(), Map.of(), Map.of());
            // The idle warm spares finalize MPI with the ranks (RankServer gives this to spares only).
            case SchedulerUpdate.ProgramFinished u -> new RankMessage.JobEnding(v, u.job());
            default -> null;
        });
    }
}
