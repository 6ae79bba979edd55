package org.mpirunft.npb.sp;

import mpi.MPIException;

/**
 * The communication SP needs, and nothing more, so that the numerics also run without MPI
 * (unit tests run them on ranks that are threads). Every method is collective over the ranks.
 */
interface SpComm {
    int rank();

    int size();

    /**
     * Swaps {@code count} values with the neighbours in z, not periodically: {@code toUp} goes
     * to rank + 1, which receives it in its {@code fromDown}; {@code toDown} goes to rank - 1.
     * The first and the last rank leave the buffers of their missing neighbour alone.
     */
    void shiftPlanes(double[] toUp, double[] fromDown, double[] toDown, double[] fromUp, int count) throws MPIException;

    /** Block d of {@code send} ({@code block} values) goes to rank d, whose block r of {@code receive} it becomes. */
    void allToAll(double[] send, double[] receive, int block) throws MPIException;

    /** Element-wise sum over the ranks, in place. */
    void sum(double[] values) throws MPIException;
}
