package org.mpirunft.membership.internal;

import java.time.Duration;
import java.util.Collection;
import java.util.HashSet;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jgroups.annotations.GuardedBy;

/**
 * A leaving member waits here until every other member of its current view has acknowledged the
 * leave, so that each of them classifies the view that removes it as a leave and not a failure.
 * Members that join meanwhile are added (the coordinator forwards the leave to them); members
 * that disappear are dropped.
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
