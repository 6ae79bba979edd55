package org.mpirunft.bridge.internal;

/** Counters of one rank's checkpoints, for reports; updated by the rank and its writer thread. */
public final class CheckpointStats {
    private volatile long snapshots;
    private volatile long lastSnapshotBytes;
    private volatile long lastStallNanos;
    private volatile long totalStallNanos;
    private volatile long lastWriteNanos;
    private volatile long lastPartBytes = -1;
    private volatile long totalSnapshotBytes;
    private volatile long totalPartBytes;
    private volatile long lastCommittedEpoch;
    private volatile long totalPartnerBytes;

    synchronized void snapshotTaken(long bytes, long stallNanos) {
        snapshots++;
        lastSnapshotBytes = bytes;
        totalSnapshotBytes += bytes;
        lastStallNanos = stallNanos;
        totalStallNanos += stallNanos;
    }

    synchronized void partWritten(long nanos, long partBytes) {
        lastWriteNanos = nanos;
        lastPartBytes = partBytes;
        totalPartBytes += partBytes;
    }

    /** Bytes sent to the partner for one epoch: the whole part, or the blocks that changed. */
    synchronized void partnerSent(long bytes) {
        totalPartnerBytes += bytes;
    }

    void epochCommitted(long epoch) {
        lastCommittedEpoch = epoch;
    }

    public long snapshots() {
        return snapshots;
    }

    public long lastSnapshotBytes() {
        return lastSnapshotBytes;
    }

    /** How long the rank's compute stopped for the last in-memory copy. */
    public long lastStallNanos() {
        return lastStallNanos;
    }

    public long totalStallNanos() {
        return totalStallNanos;
    }

    /** Local write plus copy to shared storage of the last part, off the compute thread. */
    public long lastWriteNanos() {
        return lastWriteNanos;
    }

    /** The bytes of the last part as written to disk (a delta, compressed: fewer than the snapshot's); -1 before any. */
    public long lastPartBytes() {
        return lastPartBytes;
    }

    /** The bytes of every snapshot taken: what full parts would have written. */
    public long totalSnapshotBytes() {
        return totalSnapshotBytes;
    }

    /** The bytes every part written put on disk (deltas and compression make it fewer than {@link #totalSnapshotBytes}). */
    public long totalPartBytes() {
        return totalPartBytes;
    }

    /** The bytes this rank sent to its partner, all epochs (an incremental copy sends fewer than its snapshot's). */
    public long totalPartnerBytes() {
        return totalPartnerBytes;
    }

    public long lastCommittedEpoch() {
        return lastCommittedEpoch;
    }
}
