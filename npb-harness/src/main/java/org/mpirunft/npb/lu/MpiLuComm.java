package org.mpirunft.npb.lu;

import java.nio.DoubleBuffer;
import java.util.concurrent.locks.LockSupport;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import mpi.Request;
import org.mpirunft.npb.MpiSlabComm;

/**
 * {@link LuComm} over one iteration's world communicator, made per iteration since a
 * recovery replaces the world. Every buffer is a Java array of exactly the message size (the
 * bindings copy an array argument whole), or a direct buffer for the non-blocking receive.
 */
final class MpiLuComm extends MpiSlabComm implements LuComm {
    /** How long a row receive polls before it starts to sleep between polls. */
    private static final long SPIN_NANOS = 50_000;
    private static final long PARK_NANOS = 20_000;

    private final DoubleBuffer rowIn;

    /** {@code rowIn}: a direct buffer of at least a row, kept by the caller across iterations. */
    MpiLuComm(Intracomm world, DoubleBuffer rowIn) throws MPIException {
        super(world);
        this.rowIn = rowIn;
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
}
