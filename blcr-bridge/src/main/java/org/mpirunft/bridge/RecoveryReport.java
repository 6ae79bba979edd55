package org.mpirunft.bridge;

import java.util.Arrays;

/**
 * One recovery as rank 0 saw it. Times are in milliseconds; {@code failureSeenAtMillis} is wall
 * clock, so a test that knows when it killed a node can compute the detection time.
 *
 * @param replacedRanks ranks that were started again elsewhere; empty for a pause without loss
 * @param epoch         the epoch rolled back to; 0 is the start of the run
 * @param iteration     the iteration the job resumed at
 * @param shrinkMillis  revoke and shrink
 * @param spawnMillis   MPI_Comm_spawn of the replacements
 * @param mergeMillis   merge and reordering, which waits for the replacements to reach MPI_Init
 * @param joinMillis    waiting for the replacements to be ready for the rollback: their start-up
 *                      and the program's own setup before its loop, which their state read overlaps
 * @param loadMillis    agreeing on the epoch and restoring state, with the rest of the
 *                      replacements' state read if their setup was the shorter
 * @param waitCpuMillis CPU time this rank's thread used while it waited for the replacements
 *                      (the spawn and the join): small, since it waits idle
 * @param setupMillis   part of the join: the program's setup before its loop on the replacement
 *                      (the longest, if several)
 * @param transferMillis part of the join, beside the setup: the replacement's read of its part
 *                      (the longest, if several)
 * @param shrunkRanks   ranks lost with no spare, which the job went on without (it shrank);
 *                      numbered as before the recovery. Empty if every lost rank was replaced
 * @param ranks         the world's rank count after the recovery
 */
public record RecoveryReport(int[] replacedRanks, long epoch, long iteration, long failureSeenAtMillis,
                             double shrinkMillis, double spawnMillis, double mergeMillis, double joinMillis,
                             double loadMillis, double totalMillis, double waitCpuMillis, double setupMillis,
                             double transferMillis, int[] shrunkRanks, int ranks) {
    /** Whether the job went on with fewer ranks. */
    public boolean shrank() {
        return shrunkRanks.length > 0;
    }

    /** One grep-able line, the form the tests and the harness read. */
    public String toLine() {
        return String.format(java.util.Locale.ROOT,
                "[mpirun-ft] recovered replaced=%s epoch=%d iteration=%d seen_at_ms=%d shrink_ms=%.1f spawn_ms=%.1f"
                        + " merge_ms=%.1f join_ms=%.1f load_ms=%.1f total_ms=%.1f wait_cpu_ms=%.1f setup_ms=%.1f transfer_ms=%.1f"
                        + " ranks=%d%s",
                Arrays.toString(replacedRanks).replace(" ", ""), epoch, iteration, failureSeenAtMillis,
                shrinkMillis, spawnMillis, mergeMillis, joinMillis, loadMillis, totalMillis, waitCpuMillis, setupMillis,
                transferMillis, ranks, shrank() ? " shrunk=" + Arrays.toString(shrunkRanks).replace(" ", "") : "");
    }
}
