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
import org.mpirunft.membership.MessageListener;

/**
 * The membership service's one thread: it calls the listeners, one event or application message
 * at a time in the order they were queued, and runs the periodic load report. Queuing never blocks, so callers
 * may queue while holding a lock; the listeners run with none held.
 */
final class ServiceThread {
    private static final System.Logger LOG = System.getLogger("org.mpirunft.membership");

    private final String name;
    private final String threadName;
    private final ScheduledThreadPoolExecutor executor;
    private final List<MembershipListener> listeners = new CopyOnWriteArrayList<>();
    private final List<MessageListener> messageListeners = new CopyOnWriteArrayList<>();

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

    void addMessageListener(MessageListener listener) {
        messageListeners.add(Objects.requireNonNull(listener, "listener"));
    }

    void removeMessageListener(MessageListener listener) {
        messageListeners.remove(listener);
    }

    /** Queues an application message for the message listeners, behind everything queued before it. */
    void deliverMessage(String sender, byte[] payload) {
        if (!execute(() -> callMessageListeners(sender, payload))) {
            LOG.log(Level.DEBUG, () -> name + ": service closed, not delivering a message from " + sender);
        }
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

    private void callMessageListeners(String sender, byte[] payload) {
        for (MessageListener listener : messageListeners) {
            try {
                // Each listener gets its own copy, so one cannot change what the next one reads.
                listener.onMessage(sender, messageListeners.size() == 1 ? payload : payload.clone());
            } catch (RuntimeException e) {
                LOG.log(Level.ERROR, name + ": message listener " + listener + " failed on a message from " + sender, e);
            }
        }
    }
}
