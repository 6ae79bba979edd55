package org.mpirunft.bridge.internal;

import org.mpirunft.bridge.CheckpointStats;

/**
 * Counters of one rank's checkpoints, updated by the rank's main thread and its writer thread,
 * read as a whole ({@link #snapshot}). Every field is guarded by this object's lock.
 */
final class CheckpointCounters {
    private long snapshots;
    private long lastSnapshotBytes;
    private long lastStallNanos;
    private long totalStallNanos;
    private long lastWriteNanos;
    private long lastPartBytes = -1;
    private long totalSnapshotBytes;
    private long totalPartBytes;
    private long lastCommittedEpoch;
    private long totalPartnerBytes;

    synchronized void snapshotTaken(long bytes, long stallNanos) {
        snapshots++;
        lastSnapshotBytes = bytes;
        totalSnapshotBytes += bytes;
        lastStallNanos = stallNanos;
        totalStallNanos += stallNanos;
    }

    /** The last part's local write plus copy to shared storage took {@code nanos}, off the compute thread. */
    synchronized void partWritten(long nanos, long partBytes) {
        lastWriteNanos = nanos;
        lastPartBytes = partBytes;
        totalPartBytes += partBytes;
    }

    /** Bytes sent to the partner for one epoch: the whole part, or the blocks that changed. */
    synchronized void partnerSent(long bytes) {
        totalPartnerBytes += bytes;
    }

    synchronized void epochCommitted(long epoch) {
        lastCommittedEpoch = epoch;
    }

    /** The counters now, for reports. */
    synchronized CheckpointStats snapshot() {
        return new CheckpointStats(snapshots, lastSnapshotBytes, lastStallNanos, totalStallNanos, lastWriteNanos, lastPartBytes,
                totalSnapshotBytes, totalPartBytes, totalPartnerBytes, lastCommittedEpoch);
    }
}
