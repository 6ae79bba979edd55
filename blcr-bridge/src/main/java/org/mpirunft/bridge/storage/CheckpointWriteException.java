package org.mpirunft.bridge.storage;

import org.mpirunft.bridge.BridgeException;

/** A rank's part of an epoch could not be made durable; that epoch will not commit. */
public final class CheckpointWriteException extends BridgeException {
    private static final long serialVersionUID = 1L;

    private final int rank;
    private final long epoch;

    public CheckpointWriteException(int rank, long epoch, Throwable cause) {
        super("rank " + rank + ": writing checkpoint epoch " + epoch + " failed: " + cause.getMessage(), cause);
        this.rank = rank;
        this.epoch = epoch;
    }

    public int rank() {
        return rank;
    }

    public long epoch() {
        return epoch;
    }
}
