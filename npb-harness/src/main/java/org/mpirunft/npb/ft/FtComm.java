package org.mpirunft.npb.ft;

import mpi.MPIException;

/**
 * The communication FT needs, and nothing more, so that the numerics also run without MPI
 * (unit tests run them in one JVM). Every method is collective over the ranks.
 */
interface FtComm {
    int rank();

    int size();

    /** Block r of {@code send} ({@code block} doubles) goes to rank r, which receives it in block {@code rank()}. */
    void allToAll(double[] send, double[] receive, int block) throws MPIException;

    /** Element-wise sum over the ranks, in place. */
    void sum(double[] values) throws MPIException;
}
