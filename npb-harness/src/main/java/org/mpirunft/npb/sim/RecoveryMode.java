package org.mpirunft.npb.sim;

/**
 * How the simulated job comes back from a node failure, each with the {@code npb-bench} summary
 * column that holds its measured cost: the median time from the node's kill to the job back at
 * work (detection, the mode's own steps, and the first iteration after it), in milliseconds.
 */
public enum RecoveryMode {
    /** The live ranks roll back in place and a warm spare takes the lost rank (mpirun-ft's job pause). */
    PAUSE("pause", "pause", "pause_recovery_ms", "the live ranks roll back in place, a warm spare takes the lost rank"),
    /** The whole job is relaunched from the checkpoint; the node daemons keep running. */
    RESTART("restart", "restart", "restart_recovery_ms", "the job is relaunched from its checkpoint, node daemons kept"),
    /** The job and its node daemons restart, as the job pause paper's baseline rebooted LAM. */
    FULL_RESTART("full restart", "full-restart", "full_restart_recovery_ms", "the job and its node daemons restart");

    private final String label;
    private final String key;
    private final String column;
    private final String meaning;

    RecoveryMode(String label, String key, String column, String meaning) {
        this.label = label;
        this.key = key;
        this.column = column;
        this.meaning = meaning;
    }

    /** As tables show it. */
    public String label() {
        return label;
    }

    /** As results.csv writes it (no space). */
    public String key() {
        return key;
    }

    /** The summary.csv column with its measured recovery, in ms. */
    public String column() {
        return column;
    }

    /** One phrase saying what the mode does. */
    public String meaning() {
        return meaning;
    }
}
