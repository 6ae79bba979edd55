package org.mpirunft.launcher;

import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.mpirunft.daemon.DaemonClient;
import org.mpirunft.daemon.DaemonException;

/**
 * The threads of one {@link JobSession} besides the caller's, and what runs on which: one scheduled
 * thread ({@code events}) takes the daemon's events and mpirun's signals in order, and runs
 * mpirun's exit bound; a subscriber thread reads the daemon's event stream for the job; reports to
 * the daemon go out on virtual threads, so a slow daemon never holds the events up. Work handed
 * over once the session has ended is dropped with a fine log line.
 */
final class SessionThreads {
    private static final Logger LOG = Logger.getLogger(SessionThreads.class.getName());
    private static final long RESUBSCRIBE_MILLIS = 1000;

    private final String job;
    private final ScheduledThreadPoolExecutor events = new ScheduledThreadPoolExecutor(1, r -> {
        Thread t = new Thread(r, "mpirun-ft-events");
        t.setDaemon(true);
        return t;
    });
    private final ExecutorService reports = Executors.newVirtualThreadPerTaskExecutor();
    private final CountDownLatch closed = new CountDownLatch(1);
    /** Set and read by the caller's thread only. */
    private Thread subscriber;

    SessionThreads(String job) {
        this.job = job;
    }

    /** The events thread, for timers whose actions must keep their place among the events. */
    ScheduledExecutorService events() {
        return events;
    }

    /**
     * Starts reading the daemon's event stream for the job, subscribing again if the connection
     * drops: each transition goes to {@code follower} and each restored mpirun's exit status to
     * {@code launcherExited}, both on the events thread.
     */
    void subscribe(DaemonClient daemon, JobFollower follower, IntConsumer launcherExited) {
        subscriber = Thread.ofPlatform().name("mpirun-ft-subscribe").daemon().start(() -> {
            boolean warned = false;
            while (closed.getCount() > 0) {
                try {
                    daemon.subscribe(job, event -> submit("following " + job, () -> follower.on(event)),
                            exited -> submit("following " + job + "'s mpirun", () -> launcherExited.accept(exited.status())));
                } catch (DaemonException e) {
                    if (closed.getCount() == 0) {
                        return;
                    }
                    if (!warned) {
                        LOG.warning(() -> "job " + job + ": lost the daemon's event stream (" + e.getMessage() + "); subscribing again");
                        warned = true;
                    }
                }
                try {
                    if (closed.await(RESUBSCRIBE_MILLIS, TimeUnit.MILLISECONDS)) {
                        return;
                    }
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
    }

    /**
     * Sends a report to the daemon off the events thread; a failure is logged once, the scheduler
     * hears of it from the other sources too. The future completes when the call returned or failed.
     */
    CompletableFuture<Void> report(String what, Runnable call) {
        try {
            return CompletableFuture.runAsync(() -> {
                try {
                    call.run();
                } catch (DaemonException e) {
                    LOG.warning(() -> "job " + job + ": " + what + " failed: " + e.getMessage());
                }
            }, reports);
        } catch (RejectedExecutionException sessionOver) {
            LOG.fine(() -> "job " + job + ": session over, not " + what);
            return CompletableFuture.completedFuture(null);
        }
    }

    /** Runs {@code task} on the events thread after everything queued before it. */
    <T> T onEventsThread(Callable<T> task) {
        try {
            return events.submit(task).get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LauncherException("interrupted", e);
        } catch (ExecutionException e) {
            throw new LauncherException("mpirun-ft's event handling failed: " + e.getCause().getMessage(), e.getCause());
        } catch (RejectedExecutionException e) {
            return null;
        }
    }

    /** Queues {@code task} on the events thread; dropped once the session has ended. */
    void submit(String what, Runnable task) {
        try {
            events.execute(() -> {
                try {
                    task.run();
                } catch (RuntimeException e) {
                    LOG.log(Level.WARNING, "job " + job + ": " + what + " failed: " + e.getMessage(), e);
                }
            });
        } catch (RejectedExecutionException sessionOver) {
            LOG.fine(() -> "job " + job + ": session over, not " + what);
        }
    }

    /** The session is over: the subscription ends and the events thread takes nothing more. */
    void stopEvents() {
        closed.countDown();
        if (subscriber != null) {
            subscriber.interrupt();
        }
        events.shutdownNow();
    }

    /** Reports already handed over still go out; no new one is taken. */
    void stopReports() {
        reports.shutdown();
    }
}
