package org.mpirunft.npb;

import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;

/**
 * What the kernels' communication over MPI (FT's, MG's, the slabs' of BT, LU and SP) has in
 * common: one iteration's world communicator, its rank and size, and the collectives more than
 * one kernel uses. Made per iteration, since a recovery replaces the world. The Java bindings
 * copy an array argument whole, so every buffer given to MPI is a whole Java array sized to its
 * message.
 */
public abstract class MpiComm {
    protected final Intracomm world;
    protected final int rank;
    protected final int size;

    protected MpiComm(Intracomm world) throws MPIException {
        this.world = world;
        this.rank = world.getRank();
        this.size = world.getSize();
    }

    public final int rank() {
        return rank;
    }

    public final int size() {
        return size;
    }

    /** Block d of {@code send} ({@code block} values) goes to rank d, whose block r of {@code receive} it becomes. */
    public final void allToAll(double[] send, double[] receive, int block) throws MPIException {
        world.allToAll(send, block, MPI.DOUBLE, receive, block, MPI.DOUBLE);
    }

    /** Element-wise sum over the ranks, in place. */
    public final void sum(double[] values) throws MPIException {
        world.allReduce(values, values.length, MPI.DOUBLE, MPI.SUM);
    }
}
