package org.mpirunft.npb;

import mpi.MPIException;
import org.mpirunft.bridge.FtRank;

/**
 * One NAS Parallel Benchmark kernel. {@link #run} is called on every rank; it registers its
 * state with {@code ft}, runs its iterations through {@link FtRank#run} so that they checkpoint
 * and survive failures, verifies, and returns the same result on every rank.
 *
 * <p>Replacement ranks run the kernel from the start, so everything before {@code ft.run}
 * must be local and deterministic; setup that needs communication belongs in the first
 * iteration.
 */
public interface Kernel {
    /** "EP", "CG", ... */
    String name();

    /** Null if the kernel runs {@code cls} on {@code ranks} ranks, else why not. */
    String unsupported(NpbClass cls, int ranks);

    /** How many iterations (safe points) {@code run} goes through for {@code cls} on {@code ranks} ranks. */
    long iterations(NpbClass cls, int ranks);

    KernelResult run(FtRank ft, NpbClass cls) throws MPIException;
}
