package org.mpirunft.npb.sp;

import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;

/**
 * {@link SpComm} over one iteration's world communicator. Made per iteration, since a recovery
 * replaces the world. Every buffer is a whole Java array sized to its message: the Java
 * bindings copy an array argument whole.
 */
final class MpiSpComm implements SpComm {
    private static final int TAG_UP = 51;
    private static final int TAG_DOWN = 52;

    private final Intracomm world;
    private final int rank;
    private final int size;

    MpiSpComm(Intracomm world) throws MPIException {
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
    public void shiftPlanes(double[] toUp, double[] fromDown, double[] toDown, double[] fromUp, int count) throws MPIException {
        // The ends of the slab stack have no neighbour: MPI skips PROC_NULL's half of a sendRecv.
        int up = rank + 1 < size ? rank + 1 : MPI.PROC_NULL;
        int down = rank > 0 ? rank - 1 : MPI.PROC_NULL;
        world.sendRecv(toUp, count, MPI.DOUBLE, up, TAG_UP, fromDown, count, MPI.DOUBLE, down, TAG_UP);
        world.sendRecv(toDown, count, MPI.DOUBLE, down, TAG_DOWN, fromUp, count, MPI.DOUBLE, up, TAG_DOWN);
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
