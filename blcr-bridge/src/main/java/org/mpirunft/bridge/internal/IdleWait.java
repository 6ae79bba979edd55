package org.mpirunft.bridge.internal;

import java.util.concurrent.locks.LockSupport;
import mpi.MPIException;
import mpi.Request;

/**
 * Waits for a nonblocking MPI operation without spinning. Open MPI's blocking calls poll at
 * full speed (with {@code mpi_yield_when_idle} they only yield between polls), so survivors
 * that wait for a replacement in a blocking collective keep every core busy while the
 * replacement's JVM starts, on a machine that runs several ranks per core, and its start-up
 * takes several times longer. Testing the request and parking in between leaves the cores free
 * and adds at most one {@link #POLL_NANOS} to each step of the operation.
 */
final class IdleWait {
    static final long POLL_NANOS = 500_000;

    private IdleWait() {
    }

    /** Returns once {@code request} completed; throws its error (a process failure, a revoke) like the blocking call would. */
    static void await(Request request) throws MPIException {
        while (!request.test()) {
            LockSupport.parkNanos(POLL_NANOS);
        }
    }
}
