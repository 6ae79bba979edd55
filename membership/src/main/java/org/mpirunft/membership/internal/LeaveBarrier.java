package org.mpirunft.membership.internal;

import java.time.Duration;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.jgroups.Address;
import org.jgroups.annotations.GuardedBy;

/**
 * A leaving member waits here until every other member of its current view has acknowledged the
 * leave, so that each of them classifies the view that removes it as a leave and not a failure.
 * Members that join meanwhile are added (the coordinator forwards the leave to them); members
 * that disappear are dropped. {@link #announce} sends the leave and waits.
 */
final class LeaveBarrier {
    @GuardedBy("this")
    private final Set<String> expected = new HashSet<>();
    @GuardedBy("this")
    private final Set<String> acked = new HashSet<>();
    private final CompletableFuture<Void> done = new CompletableFuture<>();

    LeaveBarrier(Collection<String> others) {
        expect(others);
    }

    /** The other members of the current view. */
    synchronized void expect(Collection<String> others) {
        expected.clear();
        expected.addAll(others);
        check();
    }

    synchronized void acked(String memberId) {
        acked.add(memberId);
        check();
    }

    @GuardedBy("this")
    private void check() {
        if (acked.containsAll(expected)) {
            done.complete(null);
        }
    }

    /**
     * Announces the leave ({@code intent}) to the group and waits up to {@code timeout} for every
     * acknowledgement; true when all came. A multicast can be lost (for example on a TCP connection
     * JGroups replaces right after members joined) and NAKACK2 would only retransmit it later than we
     * wait: the intent is sent again, by unicast, every tenth of the timeout (at least 50 ms) to
     * whoever has not acknowledged yet. Duplicates are harmless.
     *
     * @param addressesOf the addresses of the members with these ids that are still in the view
     */
    boolean announce(GroupChannel channel, WireMessage.LeaveIntent intent, Duration timeout,
                     Function<Collection<String>, List<Address>> addressesOf) throws InterruptedException {
        if (!missing().isEmpty()) {
            channel.send(null, intent);
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        Duration resend = Duration.ofMillis(Math.max(50, timeout.toMillis() / 10));
        boolean acknowledged = await(resend);
        while (!acknowledged && System.nanoTime() < deadline) {
            for (Address missing : addressesOf.apply(missing())) {
                channel.send(missing, intent);
            }
            long left = deadline - System.nanoTime();
            acknowledged = await(Duration.ofNanos(Math.max(0, Math.min(left, resend.toNanos()))));
        }
        return acknowledged;
    }

    /** True when all acknowledged within {@code timeout}. */
    boolean await(Duration timeout) throws InterruptedException {
        try {
            done.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
            return true;
        } catch (TimeoutException e) {
            return false;
        } catch (ExecutionException e) {
            throw new IllegalStateException("leave barrier cannot fail", e);
        }
    }

    synchronized Set<String> missing() {
        Set<String> missing = new TreeSet<>(expected);
        missing.removeAll(acked);
        return missing;
    }
}
