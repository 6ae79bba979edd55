package org.mpirunft.npb;

import mpi.MPIException;
import org.mpirunft.bridge.FtRank;

/**
 * A kernel that can go through its class's iterations several times in one job
 * ({@code npb --repeat}): IS and MG, whose class B is over in seconds. A single pass is a
 * repetition count of 1.
 */
public interface RepeatableKernel extends Kernel {
    @Override
    default boolean repeatable() {
        return true;
    }

    @Override
    default KernelResult run(FtRank ft, NpbClass cls) throws MPIException {
        return run(ft, cls, 1);
    }

    /** {@code repeats} is at least 1. */
    @Override
    KernelResult run(FtRank ft, NpbClass cls, int repeats) throws MPIException;
}
