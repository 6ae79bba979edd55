package org.mpirunft.bridge;

import java.util.List;

/** Checkpoints were committed, but none can be loaded by every rank: recovery must stop. */
public final class NoUsableCheckpointException extends BridgeException {
    private static final long serialVersionUID = 1L;

    public NoUsableCheckpointException(int rank, String job, List<Long> epochsTried) {
        super("rank " + rank + ": no committed checkpoint of job " + job + " can be loaded by every rank (tried epochs "
                + epochsTried + "); the job cannot roll back and stops");
    }
}
