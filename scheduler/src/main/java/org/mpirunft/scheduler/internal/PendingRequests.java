package org.mpirunft.scheduler.internal;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.mpirunft.scheduler.JobTable;

/**
 * Requests this daemon sent to the leader and has not yet seen applied in its own table. A
 * request is repeated (to whoever leads then) until its {@link Check} says the table shows its
 * effect, so none is lost when the leader changes; the leader ignores what is already done.
 * Not thread-safe: the service's lock guards it.
 */
final class PendingRequests {
    /** Looks at the table; once the request took effect, returns what completes its future. */
    @FunctionalInterface
    interface Check {
        Optional<Runnable> done(JobTable table);
    }

    private static final class Pending {
        final GroupMessage message;
        final Check check;
        final CompletableFuture<?> future;
        long sentAtNanos;

        Pending(GroupMessage message, Check check, CompletableFuture<?> future, long sentAtNanos) {
            this.message = message;
            this.check = check;
            this.future = future;
            this.sentAtNanos = sentAtNanos;
        }
    }

    private final List<Pending> pending = new ArrayList<>();

    void add(GroupMessage message, Check check, CompletableFuture<?> future, long nowNanos) {
        pending.add(new Pending(message, check, future, nowNanos));
    }

    boolean isEmpty() {
        return pending.isEmpty();
    }

    int size() {
        return pending.size();
    }

    /** Removes the requests that took effect; returns their completions, to run outside the lock. */
    List<Runnable> settle(JobTable table) {
        List<Runnable> completions = new ArrayList<>();
        for (Iterator<Pending> it = pending.iterator(); it.hasNext(); ) {
            Pending p = it.next();
            Optional<Runnable> done = p.future.isDone() ? Optional.of(() -> { }) : p.check.done(table);
            if (done.isPresent()) {
                it.remove();
                completions.add(done.get());
            }
        }
        return completions;
    }

    /** The requests last sent at least {@code periodNanos} ago, marked as sent now. */
    List<GroupMessage> due(long nowNanos, long periodNanos) {
        List<GroupMessage> due = new ArrayList<>();
        for (Pending p : pending) {
            if (nowNanos - p.sentAtNanos >= periodNanos) {
                p.sentAtNanos = nowNanos;
                due.add(p.message);
            }
        }
        return due;
    }

    /** Removes every request; returns what fails their futures with {@code cause}. */
    List<Runnable> failAll(RuntimeException cause) {
        List<Runnable> failures = new ArrayList<>();
        for (Pending p : pending) {
            failures.add(() -> p.future.completeExceptionally(cause));
        }
        pending.clear();
        return failures;
    }
}
