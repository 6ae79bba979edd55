package org.mpirunft.launcher;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;
import org.mpirunft.common.Durations;
import org.mpirunft.daemon.DaemonClient;

/**
 * Transparent mode after mpirun's first process is gone: a restore brings mpirun back from the last
 * committed epoch as a process of the daemon's, not mpirun-ft's child, so its exit is known only
 * from the daemon's stream. Followed here, restore after restore, until an mpirun exits with no
 * restore coming, or the scheduler decides a restart or a stop; what is left of the job is killed
 * through the daemons, since stopping mpirun leaves a restore's trees running.
 */
final class RestoredLaunchers {
    private static final Logger LOG = Logger.getLogger(RestoredLaunchers.class.getName());
    /**
     * How long after {@code --exit-timeout} a restored mpirun's exit may take to reach mpirun-ft
     * once the program finished: the daemon reaps it and sends its status on the job's stream.
     */
    private static final Duration EXIT_REPORT_MARGIN = Duration.ofSeconds(10);

    /** How long a restored mpirun's exit may take to be reported once the program finished. */
    static Duration exitReportBound(LaunchSettings settings) {
        return settings.exitTimeout().plus(EXIT_REPORT_MARGIN);
    }

    private final LaunchSettings settings;
    /** {@link #exitReportBound} of the settings. */
    private final Duration exitBound;
    /** {@link DecisionWait#finishGrace}: how long news may take after a failed mpirun with no failure about. */
    private final Duration grace;
    private final DaemonClient daemon;
    private final SessionThreads threads;

    RestoredLaunchers(LaunchSettings settings, DaemonClient daemon, SessionThreads threads) {
        this.settings = settings;
        this.exitBound = exitReportBound(settings);
        this.grace = DecisionWait.finishGrace(settings);
        this.daemon = daemon;
        this.threads = threads;
    }

    /**
     * Follows the restored mpiruns of {@code attempt}, whose first mpirun exited with {@code code};
     * returns the last mpirun's status.
     *
     * <p>Bounds: with no restored mpirun running, the scheduler's decision within the decision
     * timeout (or {@link DecisionWait#finishGrace}); with one running, the program's own run (as
     * for mpirun itself: its end, a restore or a decision comes through the job's stream), then,
     * once the program finished, {@link #exitReportBound} for its exit to be reported. Past that
     * (the daemon's message lost, or mpirun hung in its exit), mpirun-ft asks the daemons to kill
     * what is left of the job and reports the job finished ({@link Attempt#restoredExitUnreported}).
     */
    int await(Attempt attempt, JobFollower follower, int code) {
        long exitDeadline = 0;
        int status = code;
        boolean restoredRuns = false;
        // The daemon reaps a restored mpirun a moment after it exits; should that come before the
        // restore's transition did (a short run), the exit waits here for its restore.
        Attempt.LauncherExit early = null;
        while (attempt.relaunch.get() == null && attempt.stop.get() == null) {
            Object news;
            try {
                if (restoredRuns) {
                    if (attempt.programFinished && exitDeadline == 0) {
                        exitDeadline = System.nanoTime() + exitBound.toNanos();
                    }
                    news = exitDeadline == 0 ? attempt.launcherNews.take()
                            : attempt.launcherNews.poll(Math.max(0, exitDeadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                    if (news == null) {
                        stopUnreportedLauncher(attempt);
                        break;
                    }
                } else {
                    threads.onEventsThread(() -> null);
                    // An mpirun that failed may have seen the node go before the scheduler's decision came.
                    Duration wait = attempt.failureAbout(follower) ? settings.decisionTimeout() : status == 0 ? Duration.ZERO : grace;
                    news = attempt.launcherNews.poll(wait.toMillis(), TimeUnit.MILLISECONDS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new LauncherException("interrupted while the job was being restored", e);
            }
            if (news == null || news == Attempt.DECIDED) {
                break;
            }
            if (news == Attempt.FINISHED) {
                continue; // With a restored mpirun running, its exit is now due within exitBound.
            }
            if (news instanceof Attempt.Restored restored) {
                LOG.info(() -> "job " + settings.job() + ": restored from its last committed epoch (" + restored.failureId() + ")");
                restoredRuns = true;
                attempt.failureReported = false;
                if (early != null) {
                    attempt.launcherNews.add(early);
                    early = null;
                }
            } else if (news instanceof Attempt.LauncherExit exit) {
                if (!restoredRuns) {
                    early = exit;
                    continue;
                }
                int exitStatus = exit.status();
                LOG.info(() -> "job " + settings.job() + ": the restored mpirun exited with status " + exitStatus);
                status = exitStatus;
                restoredRuns = false;
            }
        }
        return status;
    }

    /**
     * The program finished, but the restored mpirun's exit did not come within {@link #exitBound}: the
     * daemons kill what is left of the job (their kill is bounded by the daemon client's reply
     * bound), and the job ends as finished, saying so.
     */
    private void stopUnreportedLauncher(Attempt attempt) {
        attempt.restoredExitUnreported = true;
        LOG.warning(() -> "job " + settings.job() + ": the program finished but the restored mpirun's exit was not reported within "
                + Durations.format(exitBound) + "; asking the daemons to stop what is left of the job");
        killWhatIsLeft();
    }

    /** Has the daemons of every node kill the job's processes, waiting for them at most the decision timeout. */
    void killWhatIsLeft() {
        DecisionWait.completesWithin(threads.report("stopping what is left of the job", () -> daemon.killJob(settings.job(), List.of())),
                settings.decisionTimeout());
    }
}
