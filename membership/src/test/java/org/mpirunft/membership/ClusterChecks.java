package org.mpirunft.membership;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.mpirunft.membership.cli.EventLine;
import org.mpirunft.membership.loopback.MemberProcess;

/** Waits and checks shared by the process-level tests. */
final class ClusterChecks {
    private ClusterChecks() {
    }

    /**
     * Waits until each of {@code members} reports {@code event} about {@code node}; returns, per
     * member, the milliseconds from {@code sinceNanos} to the event (monotonic clock, same on
     * all processes of this machine).
     */
    static Map<String, Long> awaitEverywhere(List<MemberProcess> members, String event, String node,
                                             long sinceNanos, Duration timeout) throws InterruptedException {
        Map<String, Long> latencies = new LinkedHashMap<>();
        long deadline = System.nanoTime() + timeout.toNanos();
        for (MemberProcess m : members) {
            Duration left = Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
            Optional<EventLine> line = m.await(l -> l.event().equals(event) && (node == null || node.equals(l.node()))
                    && l.monoNanos() >= sinceNanos, left);
            if (line.isEmpty()) {
                fail(m.name() + " did not report " + event + (node == null ? "" : " " + node) + " within " + timeout
                        + "; its events: " + describe(m.events()) + "\nstderr:\n" + m.stderrTail());
            }
            latencies.put(m.name(), (line.get().monoNanos() - sinceNanos) / 1_000_000);
        }
        return latencies;
    }

    /** Every member saw the same membership events, in the same order and views, since {@code sinceNanos}. */
    static void assertSameEventsEverywhere(List<MemberProcess> members, long sinceNanos) {
        List<String> reference = null;
        String referenceName = null;
        for (MemberProcess m : members) {
            List<String> events = m.events().stream().filter(l -> l.monoNanos() >= sinceNanos)
                    .map(l -> l.event() + " " + l.node() + " @" + l.viewId()).toList();
            if (reference == null) {
                reference = events;
                referenceName = m.name();
            } else {
                assertEquals(reference, events, "events of " + m.name() + " differ from those of " + referenceName);
            }
        }
    }

    static List<String> describe(List<EventLine> events) {
        return events.stream().map(l -> l.event() + (l.node() == null ? "" : " " + l.node()) + " @" + l.viewId()).toList();
    }
}
