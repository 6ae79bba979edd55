package org.mpirunft.npb.mg;

import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import org.mpirunft.npb.MpiComm;

/**
 * {@link MgComm} over one iteration's world communicator ({@link MpiComm}). Buffers are whole
 * Java arrays sized to the message, so big arrays never go to MPI directly.
 */
final class MpiMgComm extends MpiComm implements MgComm {
    private static final int TAG_UP = 41;
    private static final int TAG_DOWN = 42;

    MpiMgComm(Intracomm world) throws MPIException {
        super(world);
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
    public void max(double[] values) throws MPIException {
        world.allReduce(values, values.length, MPI.DOUBLE, MPI.MAX);
    }
}
