package org.mpirunft.npb;

import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;

/**
 * {@link SlabComm} over one iteration's world communicator, made per iteration since a recovery
 * replaces the world. Every buffer is a whole Java array sized to its message: the Java bindings
 * copy an array argument whole.
 */
public class MpiSlabComm implements SlabComm {
    private static final int TAG_UP = 51;
    private static final int TAG_DOWN = 52;

    protected final Intracomm world;
    private final int rank;
    private final int size;

    public MpiSlabComm(Intracomm world) throws MPIException {
        this.world = world;
        this.rank = world.getRank();
        this.size = world.getSize();
    }

    @Override
    public final int rank() {
        return rank;
    }

    @Override
    public final int size() {
        return size;
    }

    @Override
    public final void exchangeGhosts(double[] toUp, double[] fromDown, double[] toDown, double[] fromUp, int count) throws MPIException {
        // The ends of the stack have no neighbour there: MPI skips PROC_NULL's half of a sendRecv.
        int up = rank + 1 < size ? rank + 1 : MPI.PROC_NULL;
        int down = rank > 0 ? rank - 1 : MPI.PROC_NULL;
        world.sendRecv(toUp, count, MPI.DOUBLE, up, TAG_UP, fromDown, count, MPI.DOUBLE, down, TAG_UP);
        world.sendRecv(toDown, count, MPI.DOUBLE, down, TAG_DOWN, fromUp, count, MPI.DOUBLE, up, TAG_DOWN);
    }

    @Override
    public final void allToAll(double[] send, double[] receive, int block) throws MPIException {
        world.allToAll(send, block, MPI.DOUBLE, receive, block, MPI.DOUBLE);
    }

    @Override
    public final void sum(double[] values) throws MPIException {
        world.allReduce(values, values.length, MPI.DOUBLE, MPI.SUM);
    }
}
