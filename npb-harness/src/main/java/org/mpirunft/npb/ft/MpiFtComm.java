package org.mpirunft.npb.ft;

import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;

/**
 * {@link FtComm} over one iteration's world communicator. Made per iteration, since a
 * recovery replaces the world. The Java bindings copy an array argument whole, so only the
 * transpose's round buffers, never the slabs, go to MPI.
 */
final class MpiFtComm implements FtComm {
    private final Intracomm world;
    private final int rank;
    private final int size;

    MpiFtComm(Intracomm world) throws MPIException {
        this.world = world;
        this.rank = world.getRank();
        this.size = world.getSize();
    }

    @Override
    public int rank() {
        return rank;
    }

    @Override
    public int size() {
        return size;
    }

    @Override
    public void allToAll(double[] send, double[] receive, int block) throws MPIException {
        world.allToAll(send, block, MPI.DOUBLE, receive, block, MPI.DOUBLE);
    }

    @Override
    public void sum(double[] values) throws MPIException {
        world.allReduce(values, values.length, MPI.DOUBLE, MPI.SUM);
    }
}
