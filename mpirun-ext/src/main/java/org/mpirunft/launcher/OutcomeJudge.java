package org.mpirunft.launcher;

import java.util.Locale;
import org.mpirunft.common.Durations;

/**
 * The outcome of a job that is over, from its last attempt: stopped by the scheduler, finished
 * (with the reasons mpirun's own status does not count against the program), ranks lost and not
 * recovered, or ended by mpirun. The one place that maps an ended job to mpirun-ft's exit code.
 */
final class OutcomeJudge {
    private OutcomeJudge() {
    }

    /** The outcome of {@code attempt}, whose mpirun exited with {@code code}. */
    static JobOutcome judge(LaunchSettings settings, Attempt attempt, JobFollower follower, int code) {
        JobFollower.Stop stop = attempt.stop.get();
        if (stop != null) {
            ExitCode exit = stop.cause().equals("no-spare") ? ExitCode.NO_SPARE : ExitCode.JOB_STOPPED;
            return new JobOutcome(JobOutcome.Status.STOPPED, exit.code(), code, "job " + settings.job() + " stopped: " + stop.reason()
                    + " (checkpoints kept; launch again with --job " + settings.job() + " to resume)");
        }
        if (attempt.programFinished) {
            if (attempt.restoredExitUnreported) {
                return new JobOutcome(JobOutcome.Status.SUCCEEDED, ExitCode.OK.code(), code, "the program finished but the restored"
                        + " mpirun's exit was not reported within " + Durations.format(RestoredLaunchers.exitReportBound(settings))
                        + "; what was left of the job was stopped");
            }
            if (attempt.running.killedAfterFinish()) {
                return new JobOutcome(JobOutcome.Status.SUCCEEDED, ExitCode.OK.code(), code,
                        "the program finished but mpirun did not exit within " + Durations.format(attempt.running.exitTimeout())
                                + "; it was stopped");
            }
            if (code != 0 && attempt.trainsAotCache) {
                // A training JVM that cannot write its cache (a full disk) exits with status 1
                // after its program's end: the result stands, the cache is not adopted.
                return new JobOutcome(JobOutcome.Status.SUCCEEDED, ExitCode.OK.code(), code, "the program finished; mpirun's status " + code
                        + " counts rank JVMs that could not write their AOT cache (this launch trained one)");
            }
            if (code != 0 && follower.recoveries() > 0) {
                // PRRTE counts a replacement that died while it started (its spare was lost) as a
                // process that exited improperly, and says so in its status, although the ranks
                // replaced it again and every rank agreed that the program finished.
                return new JobOutcome(JobOutcome.Status.SUCCEEDED, ExitCode.OK.code(), code, "the program finished after "
                        + follower.recoveries() + " recovery(ies); mpirun's status " + code + " counts the processes lost on the way");
            }
            return endedByMpirun(code);
        }
        if (attempt.failureAbout(follower)) {
            return new JobOutcome(JobOutcome.Status.RANKS_LOST, ExitCode.RANKS_LOST.code(), code,
                    "ranks lost and not recovered (job " + follower.state().toLowerCase(Locale.ROOT) + ", mpirun returned " + code + ")");
        }
        return endedByMpirun(code);
    }

    /** mpirun's status is the job's: success, or a failure with mpirun's code where it fits in an exit status. */
    private static JobOutcome endedByMpirun(int code) {
        return code == 0 ? new JobOutcome(JobOutcome.Status.SUCCEEDED, 0, 0, "")
                : new JobOutcome(JobOutcome.Status.FAILED, exitCodeOf(code), code, "mpirun exited with status " + code);
    }

    private static int exitCodeOf(int mpirunCode) {
        return mpirunCode > 0 && mpirunCode < 256 ? mpirunCode : ExitCode.RANKS_LOST.code();
    }
}
