package org.mpirunft.npb.mg;

import mpi.MPIException;

/**
 * The communication MG needs, and nothing more, so that the numerics also run without MPI
 * (unit tests run them in one JVM). Every method is collective over the ranks.
 */
interface MgComm {
    int rank();

    int size();

    /**
     * Swaps halo planes with the neighbours in z, periodically: {@code toUp} goes to rank + 1,
     * which receives it in its {@code fromDown}; {@code toDown} goes to rank - 1.
     */
    void shiftPlanes(double[] toUp, double[] fromDown, double[] toDown, double[] fromUp, int count) throws MPIException;

    /** Every rank's {@code count} values, in rank order, into {@code all} on every rank. */
    void allGather(double[] mine, int count, double[] all) throws MPIException;

    /** Element-wise sum over the ranks, in place. */
    void sum(double[] values) throws MPIException;

    /** Element-wise maximum over the ranks, in place. */
    void max(double[] values) throws MPIException;
}
