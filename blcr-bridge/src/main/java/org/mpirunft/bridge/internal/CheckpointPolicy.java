package org.mpirunft.bridge.internal;

import java.time.Duration;
import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * When the ranks checkpoint. With a node daemon, only on the scheduler's orders: each
 * {@code checkpoint} order raises the highest order this rank has seen ({@link #ordered}), and a
 * standing {@code every N} order from the welcome checkpoints at iterations that are multiples of
 * N. Without one (plain mpirun), on the rank's own settings: every N iterations or every T.
 *
 * <p>Ranks see an order at different safe points, and a replacement joins knowing other orders
 * than the survivors, so the decision is collective: each offers {@link #highestOrderSeen()} and
 * {@link #lastOrderServed()}, the safe point takes the highest of the first and the lowest of the
 * second, and a checkpoint is taken iff the one is above the other ({@link #served}). Every rank
 * decides the same from the same two numbers; one order commits exactly one epoch, and a rank
 * that has not received it yet takes part all the same. Thread-safe for
 * {@link #ordered}, which the channel's reader thread calls; the rest is the main thread's.
 */
final class CheckpointPolicy {
    private final boolean scheduled;
    private final int everyIterations;
    private final long intervalNanos;
    private final LongSupplier nanoClock;
    private long lastCheckpointNanos;
    private volatile long highestOrderSeen;
    private long lastOrderServed;

    private CheckpointPolicy(boolean scheduled, int everyIterations, long intervalNanos, long servedBefore, long orderedBefore,
                             LongSupplier nanoClock) {
        this.scheduled = scheduled;
        this.everyIterations = everyIterations;
        this.intervalNanos = intervalNanos;
        this.nanoClock = nanoClock;
        this.highestOrderSeen = orderedBefore;
        this.lastOrderServed = servedBefore;
        this.lastCheckpointNanos = nanoClock.getAsLong();
    }

    /** The rank's own settings: no daemon orders its checkpoints. */
    static CheckpointPolicy own(int everyIterations, Optional<Duration> interval, LongSupplier nanoClock) {
        return new CheckpointPolicy(false, everyIterations, interval.map(Duration::toNanos).orElse(0L), 0, 0, nanoClock);
    }

    /**
     * The scheduler's orders: {@code orderedBefore} was given before this rank connected and the
     * orders after {@code servedBefore} have no epoch yet, so they are still to be served;
     * {@code everyIterations} is the standing order (0: none).
     */
    static CheckpointPolicy scheduled(long servedBefore, long orderedBefore, int everyIterations, LongSupplier nanoClock) {
        return new CheckpointPolicy(true, everyIterations, 0, servedBefore, orderedBefore, nanoClock);
    }

    /** An order from the scheduler, on the channel's thread. */
    void ordered(long order) {
        synchronized (this) {
            if (order > highestOrderSeen) {
                highestOrderSeen = order;
            }
        }
    }

    /** What this rank offers to the safe point's agreement: the highest order it has seen. */
    long highestOrderSeen() {
        return highestOrderSeen;
    }

    /** Whether this rank's own settings (or the standing order) want a checkpoint before {@code iteration}. */
    boolean wantedAt(long iteration, long progress) {
        if (everyIterations > 0 && progress > 0 && iteration % everyIterations == 0) {
            return true;
        }
        return !scheduled && intervalNanos > 0 && nanoClock.getAsLong() - lastCheckpointNanos >= intervalNanos;
    }

    /** The highest order this rank served (or knew of when it connected). */
    long lastOrderServed() {
        return lastOrderServed;
    }

    /**
     * After the agreement: {@code highestSeen} is the highest order any rank saw, {@code lowestServed}
     * the lowest any rank served. Returns the order a checkpoint now serves, 0 if none is new.
     */
    long served(long highestSeen, long lowestServed) {
        long order = highestSeen > lowestServed ? highestSeen : 0;
        lastOrderServed = Math.max(lastOrderServed, highestSeen);
        ordered(highestSeen);
        return order;
    }

    /** A spare that took a moved rank's place goes on where that rank's orders stood. */
    void continueFrom(long servedBefore, long orderSeen) {
        lastOrderServed = servedBefore;
        ordered(orderSeen);
    }

    void checkpointTaken() {
        lastCheckpointNanos = nanoClock.getAsLong();
    }
}
