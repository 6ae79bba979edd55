package org.mpirunft.bridge.storage;

/**
 * The turn a rank's node must wait for before it copies a part to shared storage, when the
 * scheduler staggers flushes across nodes (the cluster's {@code storage.flush-writers}): so that
 * a checkpoint's copies do not all hit the shared file system at once. {@link #OPEN} never waits.
 */
public interface FlushGate {
    /** No turns: every node writes at once. */
    FlushGate OPEN = new FlushGate() {
        @Override
        public boolean awaitTurn(long epoch) {
            return true;
        }

        @Override
        public void done(long epoch) {
        }

        @Override
        public void discard(long upToEpoch) {
        }
    };

    /**
     * Waits for this node's turn to copy epoch {@code epoch}; false if the epoch was discarded
     * meanwhile (a rollback), and it must not be copied. Either way {@link #done} follows.
     */
    boolean awaitTurn(long epoch) throws InterruptedException;

    /** This rank's copy of {@code epoch} ended, written or not; also said when it never waited. */
    void done(long epoch);

    /** Epochs up to {@code upToEpoch} are discarded: a wait for one of them ends now. */
    void discard(long upToEpoch);
}
