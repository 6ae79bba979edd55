package org.mpirunft.bridge.internal;

import static org.mpirunft.bridge.internal.RankRecovery.millis;

import java.io.IOException;
import java.nio.LongBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.logging.Logger;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import org.mpirunft.bridge.BridgeException;
import org.mpirunft.bridge.state.RankState;
import org.mpirunft.bridge.state.Snapshot;
import org.mpirunft.bridge.ulfm.UlfmException;
import org.mpirunft.common.rank.RankMessage;

/**
 * The scheduler's migrations as this rank carries them out: the safe point at which the ranks
 * agree on a move, the move itself ({@link WorldRepair#migrate}) on the ranks that stay and on
 * those that go, a moving process's exit, and, on the spare that took a moved rank's place, its
 * first step after the others' safe point. Main thread only.
 */
final class RankMigration {
    private static final Logger LOG = Logger.getLogger(RankMigration.class.getName());

    private final String job;
    private final RankState state;
    private final RankView view;
    private final CheckpointCoordinator coordinator;
    /** The node daemon's rank channel; null without a daemon. */
    private final RankChannel channel;
    private final MigrationOrders migrations;
    private final RankSpares spares;
    private final Rollback rollback;
    private final RankRecovery recovery;
    /** Tells the node daemon that this process ends on purpose. */
    private final Consumer<String> leaving;
    /** For a spare that took a moved rank's place: its state and where to go on, until it enters the loop; else null. */
    private WorldRepair.MigratedIn migratedIn;
    /** When such a spare's {@code FtRank.init} returned: the program's setup starts. */
    private long setupStartNanos;
    /** A spare that took a moved rank's place starts its loop after the safe point the others moved at. */
    private boolean skipSafePoint;

    RankMigration(String job, RankState state, RankView view, CheckpointCoordinator coordinator, RankChannel channel,
                  MigrationOrders migrations, RankSpares spares, Rollback rollback, RankRecovery recovery, Consumer<String> leaving) {
        this.job = job;
        this.state = state;
        this.view = view;
        this.coordinator = coordinator;
        this.channel = channel;
        this.migrations = migrations;
        this.spares = spares;
        this.rollback = rollback;
        this.recovery = recovery;
        this.leaving = leaving;
    }

    /** This process took a moved rank's place: it goes on from that rank's memory, not from a checkpoint. */
    void tookPlaceOf(WorldRepair.MigratedIn moved) {
        migratedIn = moved;
        try {
            coordinator.continueFrom(migratedIn.state().handover());
        } catch (IOException e) {
            throw new BridgeException("rank " + view.rank() + ": the moved rank's checkpoint manifests are unreadable: " + e.getMessage(),
                    e);
        }
        migrations.continueFrom(migratedIn.seq());
        setupStartNanos = System.nanoTime();
    }

    /** Whether this process took a moved rank's place and has not entered the loop yet. */
    boolean joining() {
        return migratedIn != null;
    }

    /**
     * The safe point before {@code iteration}: the coordinator's, whose agreement carries the
     * migration orders, then the move the ranks agreed on there, if any. A spare that took a moved
     * rank's place skips the one the others moved it at.
     */
    void safePoint(long iteration, long progress) throws MPIException {
        if (skipSafePoint) {
            // The others passed this safe point already: they moved this rank here at it.
            skipSafePoint = false;
            return;
        }
        List<RankMessage.MigrationOrder> due = new ArrayList<>(1);
        long[] agreedAt = {0};
        // The coordinator settles its epoch before a move: a moving rank's part must not leave with it.
        coordinator.atSafePoint(view.world(), iteration, progress, migrations.offer(), agreed -> {
            migrations.decide(agreed).ifPresent(due::add);
            agreedAt[0] = System.nanoTime();
            return !due.isEmpty();
        });
        if (!due.isEmpty()) {
            migrate(due.getFirst(), iteration, agreedAt[0]);
        }
    }

    /**
     * A spare that took a moved rank's place, once its program set up: it tells the others (who
     * wait for it, idle) how long its setup and the state's transfer took, restores the moved
     * state, and goes on with the iteration the others go on with, after their safe point.
     */
    long joinAfterMigration(long first) throws MPIException {
        WorldRepair.MigratedIn moved = migratedIn;
        migratedIn = null;
        long setupNanos = System.nanoTime() - setupStartNanos;
        // The state the program set up, as every other rank captured it at its start: a later
        // rollback with no committed epoch goes back there.
        rollback.captureInitialIfNeeded(first);
        moved.state().snapshot().restoreInto(state);
        LongBuffer split = MPI.newLongBuffer(MIGRATION_SPLIT).put(0, setupNanos).put(1, moved.state().nanos())
                .put(2, moved.state().bytes());
        Intracomm world = view.world();
        try {
            IdleWait.await(world.iAllReduce(split, MIGRATION_SPLIT, MPI.LONG, MPI.MAX), world);
        } catch (MPIException | UlfmException e) {
            if (!RankRecovery.isFailure(e)) {
                throw e;
            }
            LOG.info(() -> "rank " + view.rank() + ": a failure came right after the migration (" + e.getMessage()
                    + "); recovering with the others");
            return recovery.recover(first, System.currentTimeMillis());
        }
        LOG.info(() -> String.format(Locale.ROOT, "rank %d: took the moved rank's place at iteration %d (migration %d): "
                + "state %d bytes in %.1f ms, setup %.1f ms", view.rank(), moved.iteration(), moved.seq(), moved.state().bytes(),
                moved.state().nanos() / 1e6, setupNanos / 1e6));
        skipSafePoint = true;
        return moved.iteration();
    }

    /** Longs of the migration's last agreement: the spares' setup, their state's transfer, its bytes. */
    private static final int MIGRATION_SPLIT = 3;

    /**
     * Carries out migration {@code order} at the safe point before {@code iteration}, on every rank
     * ({@link WorldRepair#migrate}); {@code agreedAt} is when the ranks agreed on it there (the
     * commit of the epoch under way, which the move waits for, counts in its time). A moving rank
     * sends its state to its spare and its process leaves the job; the others go on in the new
     * world once the spares are in it. A spare that
     * cannot be brought in (nobody lost) leaves everything as it was; a rank lost during the move
     * throws a process failure, and the job pauses as for any failure.
     */
    private void migrate(RankMessage.MigrationOrder order, long iteration, long agreedAt) throws MPIException {
        int rank = view.rank();
        long reachNanos = agreedAt - migrations.arrivedAtNanos(order.seq());
        int[] moving = order.moving().keySet().stream().mapToInt(Integer::intValue).toArray();
        boolean leaves = order.moving().containsKey(rank);
        int size = view.world().getSize();
        int lowestStaying = 0;
        while (lowestStaying < size && order.moving().containsKey(lowestStaying)) {
            lowestStaying++;
        }
        LOG.info(() -> "rank " + rank + ": migration " + order.seq() + " at iteration " + iteration + ": ranks " + order.moving()
                + " to " + order.placement());
        StateTransfer.Outgoing outgoing = leaves
                ? new StateTransfer.Outgoing(Snapshot.capture(state, coordinator.lastEpoch(), rank, iteration, null, true),
                coordinator.handOver())
                : null;
        WorldRepair.Migrated migrated;
        Thread watchdog = recovery.repairWatchdog();
        try {
            migrated = WorldRepair.migrate(view.world(), moving, spares.used(), coordinator.lastEpoch(),
                    new long[] {order.seq(), iteration, lowestStaying}, spares.forMigration(order, migrations), outgoing);
        } catch (WorldRepair.MigrationFailedException e) {
            migrations.served(order.seq());
            LOG.warning(() -> "rank " + rank + ": migration " + order.seq() + " given up (" + e.getMessage()
                    + "); going on where the ranks are, nothing rolled back");
            if (rank == lowestStaying && channel != null) {
                channel.report(new RankMessage.MigrationFailed(RankMessage.VERSION, job, order.seq(), e.getMessage()));
            }
            return;
        } finally {
            watchdog.interrupt();
        }
        migrations.served(order.seq());
        if (leaves) {
            leave(order, iteration, migrated);
        }
        view.moveTo(migrated.world());
        Intracomm world = view.world();
        List<Peer> movedPeers = Peer.gather(world);
        view.peers(movedPeers);
        // Idle until the spares' programs set up and reach their loop (their first step is this agreement).
        long rejoinStart = System.nanoTime();
        LongBuffer split = MPI.newLongBuffer(MIGRATION_SPLIT).put(0, 0).put(1, 0).put(2, 0);
        IdleWait.await(world.iAllReduce(split, MIGRATION_SPLIT, MPI.LONG, MPI.MAX), world);
        long done = System.nanoTime();
        if (rank == lowestStaying) {
            RankMessage.MigrationSplit measured = new RankMessage.MigrationSplit(millis(reachNanos), millis(migrated.callNanos()),
                    millis(split.get(1)), millis(done - rejoinStart), millis(done - agreedAt), split.get(2));
            System.out.println(String.format(Locale.ROOT, "[mpirun-ft] migration seq=%d ranks=%s to=%s iteration=%d "
                    + "reach_ms=%.1f call_ms=%.1f transfer_ms=%.1f rejoin_ms=%.1f total_ms=%.1f bytes=%d start=%s", order.seq(),
                    order.moving().keySet(), order.placement().values(), iteration, measured.reachMillis(), measured.callMillis(),
                    measured.transferMillis(), measured.rejoinMillis(), measured.totalMillis(), measured.bytes(),
                    migrated.warm() ? "warm" : "spawn"));
            System.out.flush();
            if (channel != null) {
                channel.report(new RankMessage.MigrationDone(RankMessage.VERSION, job, order.seq(), List.copyOf(order.moving().keySet()),
                        movedPeers.stream().map(Peer::node).toList(), iteration, measured));
            }
        }
    }

    /** How long a rank that moved waits for the scheduler to record the move before its process leaves. */
    private static final Duration LEAVE_WAIT = Duration.ofSeconds(10);

    /**
     * This rank moved: its spare runs it now. The process waits (bounded, idle) until the
     * scheduler recorded the move, so that Open MPI's report of this process's exit cannot
     * reach the scheduler first and pass for a failure, then leaves without MPI_Finalize (which
     * would wait for the whole job).
     */
    private void leave(RankMessage.MigrationOrder order, long iteration, WorldRepair.Migrated migrated) {
        int rank = view.rank();
        LOG.info(() -> String.format(Locale.ROOT, "rank %d: moved to %s at iteration %d (migration %d), %d bytes of state "
                + "sent in %.1f ms; this process leaves the job", rank, order.placement().get(rank), iteration, order.seq(),
                migrated.bytesSent(), migrated.transferNanos() / 1e6));
        try {
            migrations.endOf(order.seq()).get(LEAVE_WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException | ExecutionException e) {
            LOG.fine(() -> "rank " + rank + ": the scheduler did not confirm migration " + order.seq() + " within " + LEAVE_WAIT);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        leaving.accept("it moved to " + order.placement().get(rank) + " (migration " + order.seq() + ")");
        if (channel != null) {
            channel.close();
        }
        System.out.flush();
        System.err.flush();
        Runtime.getRuntime().halt(0);
    }
}
