package org.mpirunft.launcher;

/**
 * How a job ended, decided from evidence rather than mpirun's exit code alone (see
 * {@link JobEvidence#judge}).
 *
 * @param status         what happened
 * @param exitCode       mpirun-ft's exit code for it
 * @param mpirunExitCode what mpirun itself returned (-1 if it never ran)
 * @param reason         one line for the user; empty for a plain success
 */
public record JobOutcome(Status status, int exitCode, int mpirunExitCode, String reason) {
    public enum Status {
        /** The program completed; every lost rank was recovered. */
        SUCCEEDED,
        /** mpirun reported a non-zero status of the program; mpirun-ft exits with it. */
        FAILED,
        /** Ranks were lost and not recovered, whatever mpirun returned. */
        RANKS_LOST,
        /** The scheduler (or the user) stopped the job. Its checkpoints are kept. */
        STOPPED
    }

    public boolean succeeded() {
        return status == Status.SUCCEEDED;
    }
}
