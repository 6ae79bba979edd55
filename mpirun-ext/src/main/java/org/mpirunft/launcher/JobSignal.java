package org.mpirunft.launcher;

import java.util.List;

/** A fact about the running job, read from its output by a {@link JobOutputClassifier}. */
public sealed interface JobSignal {
    /** The raw output line it was read from. */
    String line();

    /**
     * Rank 0's {@code [mpirun-ft] recovered replaced=[2] epoch=4 iteration=40 ... total_ms=2621.1}:
     * an in-place recovery completed.
     */
    record Recovered(List<Integer> replacedRanks, long epoch, long iteration, double totalMillis, String line)
            implements JobSignal {
        public Recovered {
            replacedRanks = List.copyOf(replacedRanks);
        }
    }

    /** mpirun: {@code ... noticed that process rank 2 with PID 77 on node node3 exited on signal 9}. */
    record RankLost(int rank, String node, String line) implements JobSignal {
    }

    /**
     * mpirun lost a node daemon: {@code PRTE has lost communication with a remote daemon} (node
     * empty), then {@code Remote daemon: [...] on node node2}. PRRTE 5 prints this also when the
     * job survives it, so it is a failure to recover from, not the end of the job.
     */
    record RuntimeLost(String node, String line) implements JobSignal {
    }

    /**
     * The ranks could not repair the job. Terminal for this run of mpirun.
     *
     * @param restartable whether a whole-job restart may help: yes after a failed repair, no
     *                    when no committed checkpoint can be loaded (a restart would load the same)
     */
    record RecoveryFailed(boolean restartable, String line) implements JobSignal {
    }

    /** The program has completed, so mpirun should exit soon; its exit is then bounded. */
    record ProgramFinished(String line) implements JobSignal {
    }
}
