package org.mpirunft.npb.lu;

import mpi.MPIException;
import org.mpirunft.npb.SlabComm;

/**
 * The communication LU needs: its y-slabs' ghost rows, sums, and the rows its triangular sweeps
 * pass down the pipeline. Ranks hold y-slabs in rank order: the rank below holds the smaller
 * rows.
 */
interface LuComm extends SlabComm {
    /** Sends a row to {@code destination} (one pipeline step of a triangular sweep). */
    void sendRow(double[] row, int count, int destination, int tag) throws MPIException;

    /** Receives a row from {@code source}. */
    void receiveRow(double[] row, int count, int source, int tag) throws MPIException;
}
