package org.mpirunft.npb;

import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;

/** {@link SlabComm} over one iteration's world communicator ({@link MpiComm}). */
public class MpiSlabComm extends MpiComm implements SlabComm {
    private static final int TAG_UP = 51;
    private static final int TAG_DOWN = 52;

    public MpiSlabComm(Intracomm world) throws MPIException {
        super(world);
    }

    /**
     * The ends of the stack send or receive alone, never a sendRecv with {@code MPI_PROC_NULL}:
     * Open MPI 5.0.7's {@code MPI_Sendrecv} with a {@code PROC_NULL} source cancels a receive it
     * never posted (an uninitialised request) when its send fails with anything but
     * {@code MPI_ERR_PROC_FAILED}, such as a communicator revoked by a rank that saw a failure
     * first: the rank dies of SIGSEGV in the middle of the recovery (SP class C, rank 0, in
     * npb-bench's pause run). Each shift is a chain from one end; the middle ranks' sendRecv post
     * their receive before they send, so the chain cannot deadlock.
     */
    @Override
    public final void exchangeGhosts(double[] toUp, double[] fromDown, double[] toDown, double[] fromUp, int count) throws MPIException {
        boolean hasUp = rank + 1 < size;
        boolean hasDown = rank > 0;
        if (hasUp && hasDown) {
            world.sendRecv(toUp, count, MPI.DOUBLE, rank + 1, TAG_UP, fromDown, count, MPI.DOUBLE, rank - 1, TAG_UP);
            world.sendRecv(toDown, count, MPI.DOUBLE, rank - 1, TAG_DOWN, fromUp, count, MPI.DOUBLE, rank + 1, TAG_DOWN);
        } else if (hasUp) {
            world.send(toUp, count, MPI.DOUBLE, rank + 1, TAG_UP);
            world.recv(fromUp, count, MPI.DOUBLE, rank + 1, TAG_DOWN);
        } else if (hasDown) {
            world.recv(fromDown, count, MPI.DOUBLE, rank - 1, TAG_UP);
            world.send(toDown, count, MPI.DOUBLE, rank - 1, TAG_DOWN);
        }
    }
}
