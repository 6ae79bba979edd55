package org.mpirunft.npb.lu;

import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;

/**
 * {@link LuComm} over one iteration's world communicator, made per iteration since a
 * recovery replaces the world. Every buffer is a Java array of exactly the message size (the
 * bindings copy an array argument whole).
 */
final class MpiLuComm implements LuComm {
    private static final int TAG_TO_UP = 51;
    private static final int TAG_TO_DOWN = 52;

    private final Intracomm world;
    private final int rank;
    private final int size;

    MpiLuComm(Intracomm world) throws MPIException {
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

    /**
     * Even ranks swap with the rank above first, odd ranks with the rank below first, so that
     * the pairs (0,1), (2,3), ... swap at once and then (1,2), (3,4), ...
     */
    @Override
    public void exchangeHalo(double[] toDown, double[] fromDown, double[] toUp, double[] fromUp, int count) throws MPIException {
        if (rank % 2 == 0) {
            swapUp(toUp, fromUp, count);
            swapDown(toDown, fromDown, count);
        } else {
            swapDown(toDown, fromDown, count);
            swapUp(toUp, fromUp, count);
        }
    }

    private void swapUp(double[] toUp, double[] fromUp, int count) throws MPIException {
        if (toUp != null) {
            world.sendRecv(toUp, count, MPI.DOUBLE, rank + 1, TAG_TO_UP, fromUp, count, MPI.DOUBLE, rank + 1, TAG_TO_DOWN);
        }
    }

    private void swapDown(double[] toDown, double[] fromDown, int count) throws MPIException {
        if (toDown != null) {
            world.sendRecv(toDown, count, MPI.DOUBLE, rank - 1, TAG_TO_DOWN, fromDown, count, MPI.DOUBLE, rank - 1, TAG_TO_UP);
        }
    }

    @Override
    public void sendRow(double[] row, int count, int destination, int tag) throws MPIException {
        world.send(row, count, MPI.DOUBLE, destination, tag);
    }

    @Override
    public void receiveRow(double[] row, int count, int source, int tag) throws MPIException {
        world.recv(row, count, MPI.DOUBLE, source, tag);
    }

    @Override
    public void sum(double[] values) throws MPIException {
        world.allReduce(values, values.length, MPI.DOUBLE, MPI.SUM);
    }
}
