package org.mpirunft.npb;

import mpi.MPIException;

/**
 * The communication of a field cut into slabs along one axis, held by the ranks in rank order
 * (BT and SP in z, LU in y), and nothing more, so that the numerics also run without MPI: unit
 * tests run them on ranks that are threads. Every method is collective over the ranks.
 */
public interface SlabComm {
    int rank();

    int size();

    /**
     * Swaps ghost layers with the neighbouring slabs, not periodically: {@code toUp} ({@code count}
     * values) goes to rank + 1, which receives it in its {@code fromDown}; {@code toDown} goes to
     * rank - 1, which receives it in its {@code fromUp}. The first and the last rank leave the
     * buffers of their missing neighbour alone.
     */
    void exchangeGhosts(double[] toUp, double[] fromDown, double[] toDown, double[] fromUp, int count) throws MPIException;

    /** Block d of {@code send} ({@code block} values) goes to rank d, whose block r of {@code receive} it becomes. */
    void allToAll(double[] send, double[] receive, int block) throws MPIException;

    /** Element-wise sum over the ranks, in place, the same on every rank. */
    void sum(double[] values) throws MPIException;
}
