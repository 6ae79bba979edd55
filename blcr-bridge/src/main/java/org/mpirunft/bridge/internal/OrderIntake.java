package org.mpirunft.bridge.internal;

import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Logger;
import org.mpirunft.common.rank.RankMessage;

/**
 * The orders the node daemon sends this rank, taken on the rank channel's reader thread. It only
 * hands each to its owner, which records it: a checkpoint order to the checkpoint coordinator
 * (kept until the coordinator exists), a pause order to the {@link RankView} (which revokes the
 * world), a migration order to the {@link MigrationOrders}, a flush grant to the node's
 * {@link FlushTurns}. A stop order ends the process. Without ULFM the rank acts on no pause or
 * migration order.
 */
final class OrderIntake {
    private static final Logger LOG = Logger.getLogger(OrderIntake.class.getName());

    private final RankView view;
    private final MigrationOrders migrations;
    /** Whether this job can recover in place (ULFM is on). */
    private final boolean inPlaceRecovery;
    /** Checkpoint orders that arrived before the coordinator existed. */
    private final AtomicLong earlyOrders = new AtomicLong();
    private volatile CheckpointCoordinator coordinator;
    /** The node's turns to flush, when the scheduler staggers flushes; else null. */
    private volatile FlushTurns flushTurns;

    OrderIntake(RankView view, MigrationOrders migrations, boolean inPlaceRecovery) {
        this.view = view;
        this.migrations = migrations;
        this.inPlaceRecovery = inPlaceRecovery;
    }

    /** The coordinator exists: it takes the checkpoint orders from now on, and those that came before. */
    void checkpointsTo(CheckpointCoordinator target) {
        coordinator = target;
        target.ordered(earlyOrders.get());
    }

    /** The scheduler staggers flushes: its grants go to {@code turns}. */
    void flushTurns(FlushTurns turns) {
        flushTurns = turns;
    }

    /** An order from the node daemon, on the channel's reader thread. */
    void accept(RankMessage order) {
        switch (order) {
            case RankMessage.CheckpointOrder c -> {
                CheckpointCoordinator target = coordinator;
                if (target == null) {
                    earlyOrders.accumulateAndGet(c.epoch(), Math::max);
                } else {
                    target.ordered(c.epoch());
                }
            }
            case RankMessage.PauseOrder p -> {
                if (inPlaceRecovery) {
                    view.pause(p);
                } else {
                    // MPI was initialized for one thread (needsThreadMultiple): this one must not call it.
                    LOG.warning(() -> "rank " + view.rank() + ": pause order " + RankView.keyOf(p)
                            + " ignored: this job runs without ULFM");
                }
            }
            case RankMessage.MigrationOrder migration -> {
                if (inPlaceRecovery) {
                    migrations.ordered(migration);
                } else {
                    LOG.warning(() -> "rank " + view.rank() + ": migration order " + migration.seq()
                            + " ignored: this job runs without ULFM");
                }
            }
            case RankMessage.FlushGrant grant -> {
                FlushTurns turns = flushTurns;
                if (turns != null) {
                    turns.granted(grant.epoch());
                }
            }
            case RankMessage.StopOrder stop -> {
                // The launcher tells the user, once; the rank leaves quietly and the checkpoints stay.
                LOG.fine(() -> "rank " + view.rank() + ": job stopped by the scheduler: " + stop.reason());
                System.out.flush();
                System.err.flush();
                Runtime.getRuntime().halt(0);
            }
            default -> LOG.fine(() -> "rank " + view.rank() + ": ignoring " + order.getClass().getSimpleName() + " on the rank channel");
        }
    }
}
