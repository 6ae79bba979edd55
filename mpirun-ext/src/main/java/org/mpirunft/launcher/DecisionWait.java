package org.mpirunft.launcher;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.logging.Logger;
import org.mpirunft.common.Durations;
import org.mpirunft.daemon.DaemonClient;
import org.mpirunft.daemon.DaemonException;

/**
 * What follows an attempt's mpirun's end: the relaunch the scheduler decided, or none when the job
 * is over. If mpirun ended before the program finished and a failure is about (Open MPI reported
 * one, or the job is recovering), the scheduler is asked to decide, and its decision is awaited
 * within the decision timeout ({@link #FINISH_GRACE} for news already under way).
 */
final class DecisionWait {
    private static final Logger LOG = Logger.getLogger(DecisionWait.class.getName());
    /**
     * How long mpirun-ft waits, after mpirun exited with a failure about, for the program's end or
     * the scheduler's transition to reach it before it asks; never longer than the decision timeout.
     */
    private static final Duration FINISH_GRACE = Duration.ofSeconds(5);

    private final LaunchSettings settings;
    private final DaemonClient daemon;
    private final SessionThreads threads;

    DecisionWait(LaunchSettings settings, DaemonClient daemon, SessionThreads threads) {
        this.settings = settings;
        this.daemon = daemon;
        this.threads = threads;
    }

    /** {@link #FINISH_GRACE}, or the decision timeout if that is shorter. */
    static Duration finishGrace(LaunchSettings settings) {
        return FINISH_GRACE.compareTo(settings.decisionTimeout()) < 0 ? FINISH_GRACE : settings.decisionTimeout();
    }

    /** The relaunch decided for {@code attempt}, whose mpirun exited with {@code code}, or null when the job is over. */
    Attempt.Relaunch afterExit(Attempt attempt, JobFollower follower, int code) {
        if (attempt.stop.get() != null) {
            return null;
        }
        if (attempt.relaunch.get() != null) {
            return attempt.relaunch.get();
        }
        if (attempt.programFinished) {
            return null;
        }
        if (!attempt.failureAbout(follower)) {
            return null; // a program that failed on healthy nodes would fail again
        }
        Duration grace = finishGrace(settings);
        if (code == 0 && completesWithin(CompletableFuture.anyOf(attempt.finishedSeen, attempt.decided), grace)) {
            // Rank 0 reports the program's end before it finalizes, so mpirun can exit before
            // the scheduler's transition has come back here: asked now, the scheduler would
            // restart a job that is done.
            return decision(attempt);
        }
        CompletableFuture<Void> loss = attempt.lossReported;
        if (loss != null && completesWithin(loss, settings.decisionTimeout()) && completesWithin(attempt.decided, grace)) {
            // Stopped on Open MPI's report (OpenMpiReports); the scheduler decided on it.
            return decision(attempt);
        }
        String reason = "mpirun exited with status " + code + " before the program finished";
        LOG.warning(() -> "job " + settings.job() + ": " + reason + "; asking the scheduler for a decision");
        try {
            daemon.restartNeeded(settings.job(), "runtime", reason);
            if (!completesWithin(attempt.decided, settings.decisionTimeout())) {
                LOG.warning(() -> "job " + settings.job() + ": no decision from the scheduler within "
                        + Durations.format(settings.decisionTimeout()));
            }
        } catch (DaemonException e) {
            LOG.warning(() -> "job " + settings.job() + ": no decision from the scheduler: " + e.getMessage());
        }
        return decision(attempt);
    }

    /**
     * The relaunch decided for {@code attempt}, or null for a stop or no decision; read once the
     * events thread has handled every transition that reached it before this call.
     */
    private Attempt.Relaunch decision(Attempt attempt) {
        threads.onEventsThread(() -> null);
        return attempt.stop.get() != null ? null : attempt.relaunch.get();
    }

    /** Whether {@code future} completes within {@code bound}; its failure counts as completion. */
    static boolean completesWithin(CompletableFuture<?> future, Duration bound) {
        try {
            future.get(bound.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            return false;
        } catch (ExecutionException failed) {
            // Done either way: whoever waits goes on, and the failure was reported where it happened.
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LauncherException("interrupted while waiting for the scheduler", e);
        }
        return true;
    }
}
