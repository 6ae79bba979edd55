package org.mpirunft.bridge.internal;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.logging.Logger;
import org.mpirunft.bridge.storage.FlushGate;
import org.mpirunft.common.rank.RankMessage;

/**
 * The rank's side of a staggered flush: it asks its node daemon for the node's turn, waits for
 * the grant the scheduler's leader gives (at most {@code storage.flush-writers} nodes at once),
 * and says when its copy ended. A grant that never comes (the daemon gone, or a scheduler that
 * lost the request) must not stop the checkpoints for good: after {@code bound} the rank copies
 * anyway, and says so.
 */
final class FlushTurns implements FlushGate {
    private static final Logger LOG = Logger.getLogger(FlushTurns.class.getName());
    /** How often a wait looks at the channel again: a daemon that went away grants nothing. */
    private static final long RECHECK_NANOS = Duration.ofSeconds(1).toNanos();

    private final String job;
    private final int rank;
    private final Consumer<RankMessage> daemon;
    private final BooleanSupplier daemonReachable;
    private final Duration bound;
    // Guarded by this.
    private long grantedEpoch;
    private long discardedUpTo;

    FlushTurns(String job, int rank, Consumer<RankMessage> daemon, BooleanSupplier daemonReachable, Duration bound) {
        this.job = job;
        this.rank = rank;
        this.daemon = daemon;
        this.daemonReachable = daemonReachable;
        this.bound = bound;
    }

    /** The node's turn for {@code epoch}, from the channel's reader thread. */
    synchronized void granted(long epoch) {
        grantedEpoch = Math.max(grantedEpoch, epoch);
        notifyAll();
    }

    @Override
    public boolean awaitTurn(long epoch) throws InterruptedException {
        synchronized (this) {
            if (grantedEpoch >= epoch || discardedUpTo >= epoch) {
                return discardedUpTo < epoch;
            }
        }
        daemon.accept(new RankMessage.FlushWanted(RankMessage.VERSION, job, rank, epoch));
        long start = System.nanoTime();
        long deadline = start + bound.toNanos();
        synchronized (this) {
            while (grantedEpoch < epoch && discardedUpTo < epoch) {
                long left = deadline - System.nanoTime();
                if (left <= 0 || !daemonReachable.getAsBoolean()) {
                    LOG.warning(() -> "rank " + rank + ": no turn to flush epoch " + epoch + " came within " + bound
                            + (daemonReachable.getAsBoolean() ? "" : " (the node daemon is gone)") + "; copying it now");
                    return true;
                }
                long waitNanos = Math.min(left, RECHECK_NANOS);
                wait(waitNanos / 1_000_000, (int) (waitNanos % 1_000_000));
            }
            long waited = System.nanoTime() - start;
            LOG.fine(() -> "rank " + rank + ": epoch " + epoch + " waited " + waited / 1_000_000 + " ms for its node's turn to flush");
            return discardedUpTo < epoch;
        }
    }

    @Override
    public void done(long epoch) {
        daemon.accept(new RankMessage.FlushDone(RankMessage.VERSION, job, rank, epoch));
    }

    @Override
    public synchronized void discard(long upToEpoch) {
        discardedUpTo = Math.max(discardedUpTo, upToEpoch);
        notifyAll();
    }
}
