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

    /**
     * Waits until {@code members} together use less than {@code share} of one core over a
     * {@code window}, and returns how long that took. Members that have just joined are still
     * loading and compiling classes; a crash timed then measures the start-up of their JVMs on
     * a small machine (a member 300 ms late in CI), not the failure detector. A daemon in a
     * running job has long finished starting. Gives up at {@code timeout}, so that a busy
     * machine makes the bound fail, with this wait's result printed, instead of a hang.
     */
    static Duration awaitQuiet(List<MemberProcess> members, double share, Duration window, Duration timeout)
            throws InterruptedException {
        long start = System.nanoTime();
        long deadline = start + timeout.toNanos();
        long before = cpuNanos(members);
        while (System.nanoTime() < deadline) {
            Thread.sleep(window.toMillis());
            long now = cpuNanos(members);
            if (now - before < share * window.toNanos()) {
                return Duration.ofNanos(System.nanoTime() - start);
            }
            before = now;
        }
        System.out.println("members still busy after " + timeout + "; timing the crash anyway");
        return timeout;
    }

    private static long cpuNanos(List<MemberProcess> members) {
        long total = 0;
        for (MemberProcess m : members) {
            total += m.process().toHandle().info().totalCpuDuration().map(Duration::toNanos).orElse(0L);
        }
        return total;
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
