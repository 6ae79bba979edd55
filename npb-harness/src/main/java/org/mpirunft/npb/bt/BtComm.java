package org.mpirunft.npb.bt;

import mpi.MPIException;

/**
 * The communication BT needs, and nothing more, so that the numerics also run without MPI
 * (unit tests run them on in-process ranks). Every method is collective over the ranks.
 */
interface BtComm {
    int rank();

    int size();

    /**
     * Swaps ghost planes with the neighbours in z (not periodic): {@code toUp} goes to rank + 1,
     * which receives it in its {@code fromDown}; {@code toDown} goes to rank - 1, which receives
     * it in {@code fromUp}. Buffers are sized to the message; the first and last ranks skip the
     * side they have no neighbour on.
     */
    void swapPlanes(double[] toUp, double[] fromDown, double[] toDown, double[] fromUp) throws MPIException;

    /** Block d ({@code block} values) of {@code send} goes to rank d, whose block r of {@code receive} it becomes. */
    void allToAll(double[] send, double[] receive, int block) throws MPIException;

    /** Element-wise sum over the ranks, in place. */
    void sum(double[] values) throws MPIException;
}
