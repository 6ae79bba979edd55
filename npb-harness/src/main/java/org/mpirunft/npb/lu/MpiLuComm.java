package org.mpirunft.npb.lu;

import java.nio.DoubleBuffer;
import java.util.concurrent.locks.LockSupport;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import mpi.Request;

/**
 * {@link LuComm} over one iteration's world communicator, made per iteration since a
 * recovery replaces the world. Every buffer is a Java array of exactly the message size (the
 * bindings copy an array argument whole), or a direct buffer for the non-blocking receive.
 */
final class MpiLuComm implements LuComm {
    private static final int TAG_TO_UP = 51;
    private static final int TAG_TO_DOWN = 52;

    /** How long a row receive polls before it starts to sleep between polls. */
    private static final long SPIN_NANOS = 50_000;
    private static final long PARK_NANOS = 20_000;

    private final Intracomm world;
    private final DoubleBuffer rowIn;
    private final int rank;
    private final int size;

    /** {@code rowIn}: a direct buffer of at least a row, kept by the caller across iterations. */
    MpiLuComm(Intracomm world, DoubleBuffer rowIn) throws MPIException {
        this.world = world;
        this.rowIn = rowIn;
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

    /**
     * Waits for the row by polling, and after a short spin sleeps between polls: in a sweep's
     * pipeline a rank waits for its neighbour about as long as it computes, and where ranks
     * share cores (4 or 16 ranks on 2 here) a rank that spins in a blocking receive takes the
     * core from the rank it waits for.
     */
    @Override
    public void receiveRow(double[] row, int count, int source, int tag) throws MPIException {
        Request request = world.iRecv(rowIn, count, MPI.DOUBLE, source, tag);
        long spinUntil = System.nanoTime() + SPIN_NANOS;
        while (!request.test()) {
            if (System.nanoTime() < spinUntil) {
                Thread.onSpinWait();
            } else {
                LockSupport.parkNanos(PARK_NANOS);
            }
        }
        rowIn.get(0, row, 0, count);
    }

    @Override
    public void sum(double[] values) throws MPIException {
        world.allReduce(values, values.length, MPI.DOUBLE, MPI.SUM);
    }
}
