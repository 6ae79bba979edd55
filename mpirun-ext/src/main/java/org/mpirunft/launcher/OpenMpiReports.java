package org.mpirunft.launcher;

import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.logging.Logger;
import org.mpirunft.daemon.DaemonClient;

/**
 * Open MPI's own reports of a lost rank or node daemon, which exist only as mpirun's output
 * ({@link JobOutputClassifier}): passed on to the scheduler as failure reports, which judges them
 * with its other sources. mpirun's report that the program finished goes to the session as the
 * scheduler's would. Runs on the session's events thread.
 */
final class OpenMpiReports {
    private static final Logger LOG = Logger.getLogger(OpenMpiReports.class.getName());

    private final LaunchSettings settings;
    private final DaemonClient daemon;
    private final SessionThreads threads;
    private final Supplier<Attempt> current;
    private final JobFollower.Actions actions;

    /**
     * @param current the attempt running now: a signal of an earlier one is dropped
     * @param actions what the session does on the program's end
     */
    OpenMpiReports(LaunchSettings settings, DaemonClient daemon, SessionThreads threads, Supplier<Attempt> current,
                   JobFollower.Actions actions) {
        this.settings = settings;
        this.daemon = daemon;
        this.threads = threads;
        this.current = current;
        this.actions = actions;
    }

    /** Handles one of {@code attempt}'s mpirun's signals. */
    void onSignal(Attempt attempt, JobFollower follower, JobSignal signal) {
        if (current.get() != attempt) {
            return;
        }
        String job = settings.job();
        List<String> rankNodes = follower.rankNodes();
        if (!(signal instanceof JobSignal.ProgramFinished) && attempt.stoppedByUs()) {
            // The node daemons and ranks that go with an mpirun we stopped are our own doing: to the
            // scheduler they would be a second failure, planned for again, or a job stopped for want
            // of spares. A node that truly fails meanwhile leaves the group, which the scheduler sees.
            LOG.info(() -> "job " + job + ": mpirun, being stopped, reports " + signal.line().strip() + "; not a new loss");
            return;
        }
        switch (signal) {
            case JobSignal.RankLost lost -> {
                // Open MPI names the process by its launch rank; a shrink renumbered the job's ranks.
                int rank = follower.jobRankOf(lost.rank()).orElse(-1);
                if (rank >= 0 && rank < rankNodes.size() && rankNodes.get(rank).equals(lost.node())) {
                    attempt.failureReported = true;
                    attempt.lossReported = threads.report("reporting the loss of rank " + rank, () -> daemon.failureReported(job,
                            "runtime", Map.of(rank, lost.node()), List.of(), lost.line().strip()));
                    stopIfUnrecoverable(attempt, "rank " + rank);
                }
            }
            case JobSignal.RuntimeLost lost -> {
                if (lost.node().isEmpty()) {
                    attempt.failureReported = true; // PRRTE names the node on a later line
                } else if (rankNodes.contains(lost.node())) {
                    attempt.failureReported = true;
                    attempt.lossReported = threads.report("reporting the loss of " + lost.node(), () -> daemon.failureReported(job,
                            "runtime", Map.of(), List.of(lost.node()), "mpirun lost the node daemon of " + lost.node()));
                    stopIfUnrecoverable(attempt, "the node daemon of " + lost.node());
                } else {
                    LOG.info(() -> "job " + job + ": mpirun lost the node daemon of " + lost.node() + ", a node the job no longer uses");
                }
            }
            case JobSignal.ProgramFinished done -> actions.programFinished();
        }
    }

    /**
     * Without ULFM (the restart modes) mpirun ends the job itself once it lost a rank or a node
     * daemon, so it is stopped at once, while the report travels: the restart's stop overlaps
     * the way to the scheduler and back. Whether and where the job runs again is still the
     * scheduler's decision, awaited after mpirun's exit ({@link DecisionWait#afterExit}).
     */
    private void stopIfUnrecoverable(Attempt attempt, String lost) {
        if (settings.recovery().restartsWholeJob()) {
            LOG.info(() -> "job " + settings.job() + ": mpirun lost " + lost + "; stopping it for the scheduler's restart");
            attempt.stopRunning();
        }
    }
}
