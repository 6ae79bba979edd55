package org.mpirunft.launcher;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.mpirunft.common.Durations;

/**
 * What is known about one run of mpirun, collected while it runs, and the rule that turns it
 * into the job's {@link JobOutcome}. mpirun's exit code alone cannot be trusted: with a node
 * daemon lost, Open MPI's bundled PRRTE kills the survivors and still exits 0. Thread-safe.
 *
 * <p>A failure (a pause ordered by the scheduler, a rank mpirun saw die, a lost node daemon)
 * stays pending until an in-place recovery completes after it: a recovery repairs the whole
 * world, so it settles every failure seen before it.
 */
public final class JobEvidence {
    /** Guarded by this. */
    private final Set<String> pendingFailures = new LinkedHashSet<>();
    /** Guarded by this. */
    private final List<String> terminal = new ArrayList<>();
    /** Guarded by this. */
    private int recoveries;
    /** Guarded by this. */
    private boolean finished;

    /** A failure that needs a recovery, described for the user ({@code rank 2 on node3 exited on signal 9}). */
    public synchronized void failureSeen(String description) {
        pendingFailures.add(description);
    }

    /** A failure seen earlier turned out to be none (a lost daemon of a node the job had left). */
    public synchronized void dismiss(String description) {
        pendingFailures.remove(description);
    }

    /** An in-place recovery completed: every failure seen so far is settled. */
    public synchronized void recovered() {
        recoveries++;
        pendingFailures.clear();
    }

    /** Something the job cannot recover from (the ranks' recovery failed). */
    public synchronized void terminalFailure(String description) {
        terminal.add(description);
    }

    public synchronized void programFinished() {
        finished = true;
    }

    public synchronized boolean isProgramFinished() {
        return finished;
    }

    public synchronized int recoveries() {
        return recoveries;
    }

    public synchronized List<String> pendingFailures() {
        return List.copyOf(pendingFailures);
    }

    public synchronized boolean hasUnrecoveredFailure() {
        return !pendingFailures.isEmpty() || !terminal.isEmpty();
    }

    /**
     * The outcome, in this order of precedence:
     * <ol>
     *   <li>stopped by a decision ({@code stopReason}): {@link ExitCode#JOB_STOPPED};</li>
     *   <li>a terminal failure, or a failure no recovery settled: {@link ExitCode#RANKS_LOST},
     *       even if mpirun returned 0;</li>
     *   <li>mpirun killed because it did not exit within {@code exitTimeout} after the program
     *       finished: success, since the program completed;</li>
     *   <li>mpirun's non-zero status: the program failed, and mpirun-ft exits with that status;</li>
     *   <li>otherwise success.</li>
     * </ol>
     */
    public synchronized JobOutcome judge(int mpirunExitCode, boolean killedAfterFinish, Duration exitTimeout,
                                         Optional<String> stopReason) {
        if (stopReason.isPresent()) {
            return new JobOutcome(JobOutcome.Status.STOPPED, ExitCode.JOB_STOPPED.code(), mpirunExitCode,
                    "job stopped: " + stopReason.get() + " (checkpoints kept; launch again with the same --job to resume)");
        }
        if (!terminal.isEmpty()) {
            return new JobOutcome(JobOutcome.Status.RANKS_LOST, ExitCode.RANKS_LOST.code(), mpirunExitCode,
                    "ranks lost and not recovered: " + terminal.getFirst().strip());
        }
        if (!pendingFailures.isEmpty()) {
            return new JobOutcome(JobOutcome.Status.RANKS_LOST, ExitCode.RANKS_LOST.code(), mpirunExitCode,
                    "ranks lost and not recovered: " + String.join("; ", pendingFailures)
                            + (mpirunExitCode == 0 ? " (mpirun returned 0 regardless)" : " (mpirun returned " + mpirunExitCode + ")"));
        }
        if (killedAfterFinish && finished) {
            return new JobOutcome(JobOutcome.Status.SUCCEEDED, ExitCode.OK.code(), mpirunExitCode,
                    "the program finished but mpirun did not exit within " + Durations.format(exitTimeout) + "; it was stopped");
        }
        if (mpirunExitCode != 0) {
            int code = mpirunExitCode > 0 && mpirunExitCode < 256 ? mpirunExitCode : ExitCode.RANKS_LOST.code();
            return new JobOutcome(JobOutcome.Status.FAILED, code, mpirunExitCode, "mpirun exited with status " + mpirunExitCode);
        }
        return new JobOutcome(JobOutcome.Status.SUCCEEDED, ExitCode.OK.code(), 0, "");
    }
}
