package org.mpirunft.bridge;

/**
 * One rank's checkpoint counters at one moment ({@link FtRank#checkpointStats()}).
 *
 * @param snapshots          snapshots taken
 * @param lastSnapshotBytes  the last snapshot's size
 * @param lastStallNanos     how long the rank's compute stopped for the last in-memory copy
 * @param totalStallNanos    the same, every snapshot
 * @param lastWriteNanos     the last part's local write plus copy to shared storage, off the compute thread
 * @param lastPartBytes      the last part's bytes as written to disk (a delta, compressed: fewer than the snapshot's); -1 before any
 * @param totalSnapshotBytes the bytes of every snapshot taken: what full parts would have written
 * @param totalPartBytes     the bytes every part written put on disk (deltas and compression make it fewer than {@code totalSnapshotBytes})
 * @param totalPartnerBytes  the bytes this rank sent to its partner, all epochs (an incremental copy sends fewer than its snapshot's)
 * @param lastCommittedEpoch the newest epoch this rank committed with the others, 0 if none
 */
public record CheckpointStats(long snapshots, long lastSnapshotBytes, long lastStallNanos, long totalStallNanos, long lastWriteNanos,
                              long lastPartBytes, long totalSnapshotBytes, long totalPartBytes, long totalPartnerBytes,
                              long lastCommittedEpoch) {
}
