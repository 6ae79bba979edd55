package org.mpirunft.bridge.internal;

import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;
import org.mpirunft.common.rank.RankMessage;

/**
 * The scheduler's migration orders as one rank holds them, and the rule by which every rank
 * decides alike at a safe point whether to move now. Each order is numbered ({@code seq}); the
 * ranks move for order S only once every rank has it (so every rank knows who moves where), no
 * rank has served it, and no rank has seen it withdrawn. That is three numbers per rank in the
 * safe point's allreduce ({@link #offer}), from which each rank decides the same
 * ({@link #decide}). A recovery drops an order not yet carried out: the scheduler's pause ended
 * it, and a drained node's ranks get a new one. Thread-safe: the rank channel's thread adds
 * orders, the main thread decides.
 */
final class MigrationOrders {
    /** Longs this rank adds to the safe point's agreement. */
    static final int AGREED = 3;

    private final LongSupplier nanos;
    private final TreeMap<Long, RankMessage.MigrationOrder> orders = new TreeMap<>();
    /** When each order reached this rank, for the migration's report. */
    private final TreeMap<Long, Long> arrivedAtNanos = new TreeMap<>();
    private long seen;
    private long withdrawn;
    private long served;
    /** Orders up to this one were under way when a pause order came: nothing of theirs is waited for. */
    private long pausedUpTo;
    /** Completed when the order being carried out is withdrawn (its spare was lost), or once it is over. */
    private final TreeMap<Long, CompletableFuture<Void>> ended = new TreeMap<>();

    MigrationOrders(LongSupplier nanos) {
        this.nanos = nanos;
    }

    /** A migration order from the channel; one with no moving rank ends order {@code seq}. */
    synchronized void ordered(RankMessage.MigrationOrder order) {
        if (order.withdraws()) {
            withdrawn = Math.max(withdrawn, order.seq());
            endedOf(order.seq()).complete(null);
            return;
        }
        if (order.seq() <= served || orders.containsKey(order.seq())) {
            return;
        }
        orders.put(order.seq(), order);
        arrivedAtNanos.put(order.seq(), nanos.getAsLong());
        seen = Math.max(seen, order.seq());
    }

    /**
     * What this rank offers, as values whose maximum over the ranks the safe point takes: the
     * lowest order every rank has seen (negated), the highest withdrawn, the highest served.
     */
    synchronized long[] offer() {
        return new long[] {-seen, withdrawn, served};
    }

    /**
     * After the agreement ({@code agreed}: the maxima of {@link #offer}): the order to carry out
     * now, if any. An order that some rank saw withdrawn is served without a move. The same on
     * every rank: it depends on the agreed values and on an order every rank holds.
     */
    synchronized Optional<RankMessage.MigrationOrder> decide(long[] agreed) {
        long everyoneSaw = -agreed[0];
        long withdrawnAnywhere = agreed[1];
        long servedAnywhere = agreed[2];
        if (everyoneSaw <= servedAnywhere) {
            return Optional.empty();
        }
        if (withdrawnAnywhere >= everyoneSaw) {
            served(everyoneSaw);
            return Optional.empty();
        }
        RankMessage.MigrationOrder order = orders.get(everyoneSaw);
        if (order == null) {
            throw new IllegalStateException("migration order " + everyoneSaw + " was agreed on, but this rank does not hold it (it holds "
                    + orders.keySet() + ")");
        }
        return Optional.of(order);
    }

    /** Order {@code seq} was carried out (or given up): no rank moves for it again. */
    synchronized void served(long seq) {
        served = Math.max(served, seq);
        seen = Math.max(seen, seq);
        orders.headMap(seq, true).clear();
        arrivedAtNanos.headMap(seq, true).clear();
    }

    /** A recovery rolled the job back: an order not carried out yet is over (the scheduler's pause ended it). */
    synchronized void recovered() {
        served(seen);
    }

    /**
     * A pause order came: a move under way now waits for nothing (its spare's rendezvous ends at
     * once), and the recovery that follows drops the order ({@link #recovered}).
     */
    synchronized void paused() {
        pausedUpTo = seen;
        ended.headMap(seen, true).values().forEach(end -> end.complete(null));
    }

    /** A spare that took a moved rank's place starts where its predecessor's orders stood. */
    synchronized void continueFrom(long servedSeq) {
        served(servedSeq);
    }

    /** When order {@code seq} reached this rank ({@link System#nanoTime} scale), or now if unknown. */
    synchronized long arrivedAtNanos(long seq) {
        return arrivedAtNanos.getOrDefault(seq, nanos.getAsLong());
    }

    /** Completes when order {@code seq} is withdrawn or, for a rank that left, over. */
    synchronized CompletableFuture<Void> endOf(long seq) {
        CompletableFuture<Void> end = endedOf(seq);
        if (withdrawn >= seq || pausedUpTo >= seq) {
            end.complete(null);
        }
        return end;
    }

    private CompletableFuture<Void> endedOf(long seq) {
        return ended.computeIfAbsent(seq, s -> new CompletableFuture<>());
    }
}
