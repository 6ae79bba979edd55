package org.mpirunft.membership.internal;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.mpirunft.membership.MembershipEvent;
import org.mpirunft.membership.MembershipListener;

/**
 * The membership service's one thread: it calls the listeners, one event at a time in the order
 * the events were queued, and runs the periodic load report. Queuing never blocks, so callers
 * may queue while holding a lock; the listeners run with none held.
 */
final class ServiceThread {
    private static final System.Logger LOG = System.getLogger("org.mpirunft.membership");

    private final String name;
    private final String threadName;
    private final ScheduledThreadPoolExecutor executor;
    private final List<MembershipListener> listeners = new CopyOnWriteArrayList<>();

    ServiceThread(String nodeName) {
        this.name = nodeName;
        this.threadName = "membership-" + nodeName;
        this.executor = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, threadName);
            t.setDaemon(true);
            return t;
        });
        executor.setRemoveOnCancelPolicy(true);
    }

    void addListener(MembershipListener listener) {
        listeners.add(Objects.requireNonNull(listener, "listener"));
    }

    void removeListener(MembershipListener listener) {
        listeners.remove(listener);
    }

    /** Queues the events for the listeners; after {@link #shutdown} they are dropped (and logged). */
    void deliver(List<MembershipEvent> events) {
        for (MembershipEvent event : events) {
            if (!execute(() -> callListeners(event))) {
                LOG.log(Level.DEBUG, () -> name + ": service closed, not delivering " + event);
            }
        }
    }

    /** Runs {@code task} on this thread; false if the thread has been shut down. */
    boolean execute(Runnable task) {
        try {
            executor.execute(task);
            return true;
        } catch (RejectedExecutionException e) {
            return false;
        }
    }

    ScheduledFuture<?> every(Duration period, Runnable task) {
        return executor.scheduleWithFixedDelay(task, 0, period.toNanos(), TimeUnit.NANOSECONDS);
    }

    /** Stops taking work and waits for queued events, unless called from a listener (which would wait for itself). */
    void shutdown(Duration wait) {
        executor.shutdown();
        if (Thread.currentThread().getName().equals(threadName)) {
            return;
        }
        try {
            if (!executor.awaitTermination(wait.toNanos(), TimeUnit.NANOSECONDS)) {
                LOG.log(Level.WARNING, () -> name + ": a membership listener did not return within "
                        + wait.toMillis() + " ms of close");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void callListeners(MembershipEvent event) {
        for (MembershipListener listener : listeners) {
            try {
                listener.onEvent(event);
            } catch (RuntimeException e) {
                LOG.log(Level.ERROR, name + ": membership listener " + listener + " failed on " + event, e);
            }
        }
    }
}
