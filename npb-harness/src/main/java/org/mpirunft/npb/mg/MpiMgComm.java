package org.mpirunft.npb.mg;

import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;

/**
 * {@link MgComm} over one iteration's world communicator. Made per iteration, since a
 * recovery replaces the world. Buffers are whole Java arrays sized to the message: the Java
 * bindings copy an array argument whole, so big arrays never go to MPI directly.
 */
final class MpiMgComm implements MgComm {
    private static final int TAG_UP = 41;
    private static final int TAG_DOWN = 42;

    private final Intracomm world;
    private final int rank;
    private final int size;

    MpiMgComm(Intracomm world) throws MPIException {
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
        int up = (rank + 1) % size;
        int down = (rank - 1 + size) % size;
        // Distinct tags keep the two directions apart when up and down are the same rank.
        world.sendRecv(toUp, count, MPI.DOUBLE, up, TAG_UP, fromDown, count, MPI.DOUBLE, down, TAG_UP);
        world.sendRecv(toDown, count, MPI.DOUBLE, down, TAG_DOWN, fromUp, count, MPI.DOUBLE, up, TAG_DOWN);
    }

    @Override
    public void allGather(double[] mine, int count, double[] all) throws MPIException {
        world.allGather(mine, count, MPI.DOUBLE, all, count, MPI.DOUBLE);
    }

    @Override
    public void sum(double[] values) throws MPIException {
        world.allReduce(values, values.length, MPI.DOUBLE, MPI.SUM);
    }

    @Override
    public void max(double[] values) throws MPIException {
        world.allReduce(values, values.length, MPI.DOUBLE, MPI.MAX);
    }
}
