package org.mpirunft.launcher;

import java.util.List;

/**
 * What Open MPI says about the running job, read from mpirun's output by a
 * {@link JobOutputClassifier}: the only way it tells of a lost rank or node daemon. The rank
 * library's own reports travel on the rank control channel, never through output.
 */
public sealed interface JobSignal {
    /** The raw output line it was read from. */
    String line();

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

    /** A line the user named as the program's end ({@code finishedPatterns}): mpirun's exit is then bounded. */
    record ProgramFinished(String line) implements JobSignal {
    }
}
