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

    /**
     * The rank count this kernel runs on in a job of {@code nodes} nodes: {@code nodes} if the
     * kernel takes it, else -1. BT and SP take the next square instead, the way NPB's users run
     * them on 9 processes where the others run on 8.
     */
    default int ranksNear(NpbClass cls, int nodes) {
        return unsupported(cls, nodes) == null ? nodes : -1;
    }

    /** The least square of ranks at or above {@code nodes} if {@code kernel} takes it, else -1: BT's and SP's {@link #ranksNear}. */
    static int nextSquare(Kernel kernel, NpbClass cls, int nodes) {
        int side = (int) Math.ceil(Math.sqrt(Math.max(1, nodes)));
        int ranks = side * side;
        return kernel.unsupported(cls, ranks) == null ? ranks : -1;
    }

    /**
     * The job's rank count, or an {@link IllegalArgumentException} with {@link #unsupported}'s
     * reason if this kernel does not run {@code cls} on it: for the kernels whose slabs cannot be
     * laid out on such a count (BT, LU, SP).
     */
    default int supportedRanks(FtRank ft, NpbClass cls) throws MPIException {
        int ranks = ft.world().getSize();
        String refused = unsupported(cls, ranks);
        if (refused != null) {
            throw new IllegalArgumentException(refused);
        }
        return ranks;
    }

    /** How many iterations (safe points) {@code run} goes through for {@code cls} on {@code ranks} ranks. */
    long iterations(NpbClass cls, int ranks);

    KernelResult run(FtRank ft, NpbClass cls) throws MPIException;

    /**
     * Whether {@link #run(FtRank, NpbClass, int)} can go through the class's iterations several
     * times in one job: each repetition from the kernel's initial state, each verified. It makes
     * a job long enough for several checkpoint intervals and failures (npb-bench's daly variant)
     * where one pass of the class is seconds long.
     */
    default boolean repeatable() {
        return false;
    }

    /**
     * The class's iterations {@code repeats} times over in one {@link FtRank#run}, so that a
     * checkpoint or a rollback can fall in any repetition; verified only if every repetition is.
     */
    default KernelResult run(FtRank ft, NpbClass cls, int repeats) throws MPIException {
        String refused = refusesRepeats(repeats);
        if (refused != null) {
            throw new IllegalArgumentException(refused);
        }
        return run(ft, cls);
    }

    /** Null if {@link #run(FtRank, NpbClass, int)} takes {@code repeats}, else why not (for npb's and npb-bench's usage errors). */
    default String refusesRepeats(int repeats) {
        if (repeats < 1) {
            return "must be >= 1, got " + repeats;
        }
        return repeats > 1 && !repeatable() ? name() + " runs its iterations once per job; IS and MG repeat" : null;
    }
}
