package org.mpirunft.scheduler;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * How long the leader took from a node's failure event to the decision that repairs it: a
 * bounded history, most recent last (like JGroups' suspect history), for
 * {@link SchedulerCore#decisionNanos()} and the latency benchmarks.
 *
 * <p>Not thread-safe: the {@link SchedulerCore}'s lock guards it.
 */
final class DecisionLatency {
    /** Decision latencies kept. */
    static final int KEPT = 1024;

    private final LongSupplier nanos;
    /** When each failed node's failure event came ({@code nanos} scale), until a decision names it. */
    private final Map<String, Long> failureSeenAtNanos = new HashMap<>();
    private final Deque<Long> decisionNanos = new ArrayDeque<>();

    DecisionLatency(LongSupplier nanos) {
        this.nanos = nanos;
    }

    /** {@code node} failed out of the view now, unless an earlier failure of it waits for its decision. */
    void failureSeen(String node) {
        failureSeenAtNanos.putIfAbsent(node, nanos.getAsLong());
    }

    /** The decision for {@code failureId} ({@code rank@node,...}) was applied: each failed node it names counts once. */
    void decided(String failureId) {
        for (String lostWhere : failureId.split(",")) {
            Long seen = failureSeenAtNanos.remove(lostWhere.substring(lostWhere.indexOf('@') + 1));
            if (seen != null) {
                decisionNanos.addLast(nanos.getAsLong() - seen);
                if (decisionNanos.size() > KEPT) {
                    decisionNanos.removeFirst();
                }
            }
        }
    }

    /** The latencies kept, in nanoseconds, oldest first. */
    List<Long> history() {
        return List.copyOf(decisionNanos);
    }
}
