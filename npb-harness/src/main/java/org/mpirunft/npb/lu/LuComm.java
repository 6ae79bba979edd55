package org.mpirunft.npb.lu;

import mpi.MPIException;

/**
 * The communication LU needs, and nothing more, so that the numerics also run without MPI
 * (unit tests run them on ranks that are threads). Ranks hold y-slabs in rank order: the
 * rank below holds the smaller rows.
 */
interface LuComm {
    int rank();

    int size();

    /**
     * Swaps ghost rows with the neighbours: {@code toDown} goes to rank - 1, which receives it
     * in its {@code fromUp}; {@code toUp} to rank + 1. Null buffers where there is no neighbour.
     * Collective over neighbouring pairs.
     */
    void exchangeHalo(double[] toDown, double[] fromDown, double[] toUp, double[] fromUp, int count) throws MPIException;

    /** Sends a row to {@code destination} (one pipeline step of a triangular sweep). */
    void sendRow(double[] row, int count, int destination, int tag) throws MPIException;

    /** Receives a row from {@code source}. */
    void receiveRow(double[] row, int count, int source, int tag) throws MPIException;

    /** Element-wise sum over the ranks, in place, the same on every rank. */
    void sum(double[] values) throws MPIException;
}
