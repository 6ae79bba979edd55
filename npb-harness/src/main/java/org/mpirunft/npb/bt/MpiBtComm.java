package org.mpirunft.npb.bt;

import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;

/**
 * {@link BtComm} over one iteration's world communicator, made per iteration since a recovery
 * replaces the world. Every buffer is a whole Java array sized to its message: the bindings
 * copy an array argument whole.
 */
final class MpiBtComm implements BtComm {
    private static final int TAG_UP = 51;
    private static final int TAG_DOWN = 52;

    private final Intracomm world;
    private final int rank;
    private final int size;

    MpiBtComm(Intracomm world) throws MPIException {
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
    public void swapPlanes(double[] toUp, double[] fromDown, double[] toDown, double[] fromUp) throws MPIException {
        boolean hasUp = rank + 1 < size;
        boolean hasDown = rank > 0;
        // Upward: a chain from rank 0; sendRecv in the middle cannot deadlock.
        if (hasUp && hasDown) {
            world.sendRecv(toUp, toUp.length, MPI.DOUBLE, rank + 1, TAG_UP, fromDown, fromDown.length, MPI.DOUBLE, rank - 1, TAG_UP);
        } else if (hasUp) {
            world.send(toUp, toUp.length, MPI.DOUBLE, rank + 1, TAG_UP);
        } else if (hasDown) {
            world.recv(fromDown, fromDown.length, MPI.DOUBLE, rank - 1, TAG_UP);
        }
        if (hasUp && hasDown) {
            world.sendRecv(toDown, toDown.length, MPI.DOUBLE, rank - 1, TAG_DOWN, fromUp, fromUp.length, MPI.DOUBLE, rank + 1, TAG_DOWN);
        } else if (hasDown) {
            world.send(toDown, toDown.length, MPI.DOUBLE, rank - 1, TAG_DOWN);
        } else if (hasUp) {
            world.recv(fromUp, fromUp.length, MPI.DOUBLE, rank + 1, TAG_DOWN);
        }
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
