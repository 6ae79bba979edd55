package org.mpirunft.bridge.internal;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import mpi.Intracomm;
import mpi.MPIException;
import mpi.Request;
import org.mpirunft.bridge.ulfm.Ulfm;
import org.mpirunft.bridge.ulfm.UlfmException;

/**
 * Waits for a nonblocking MPI operation without spinning. Open MPI's blocking calls poll at
 * full speed (with {@code mpi_yield_when_idle} they only yield between polls), so survivors
 * that wait for a replacement in a blocking collective keep cores busy while the
 * replacement's JVM starts, on a machine that runs several ranks per core. Testing the request
 * and parking in between leaves the cores free. One test costs tens of microseconds here (a
 * round of Open MPI's progress engine), so the pause between tests grows from
 * {@link #FIRST_PAUSE_NANOS} to {@link #LONGEST_PAUSE_NANOS}: a short wait ends almost at once,
 * a long one (a replacement's start-up, seconds) costs about one percent of a core.
 */
final class IdleWait {
    static final long FIRST_PAUSE_NANOS = 50_000;
    static final long LONGEST_PAUSE_NANOS = 4_000_000;
    /** From this pause on, a wait also asks whether a process of its communicator failed (a few microseconds). */
    static final long WATCH_FROM_NANOS = 400_000;
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private IdleWait() {
    }

    /**
     * The calling thread's CPU time, in nanoseconds (its time in MPI included): what a recovery
     * reports it used while it waited, which shows that it waited idle.
     */
    static long cpuNanos() {
        return THREADS.getCurrentThreadCpuTime();
    }

    /** Returns once {@code request} completed; throws its error (a process failure, a revoke) like the blocking call would. */
    static void await(Request request) throws MPIException {
        await(request, null);
    }

    /**
     * As {@link #await(Request)}, and throws {@link UlfmException} ({@link Ulfm#ERR_PROC_FAILED})
     * once this rank knows a process of {@code watched} (may be null) failed. Open MPI's
     * nonblocking collectives do not always end with the error when a participant dies: seen
     * here, a broadcast's schedule failed with PROC_FAILED at every test ("NBC_Progress: an
     * error 75 was found ... aborting the schedule", 190,000 times) and the request never
     * completed, until the repair's 90 s bound relaunched the job.
     */
    static void await(Request request, Intracomm watched) throws MPIException {
        long pause = FIRST_PAUSE_NANOS;
        while (!request.test()) {
            LockSupport.parkNanos(pause);
            pause = Math.min(2 * pause, LONGEST_PAUSE_NANOS);
            if (watched != null && pause >= WATCH_FROM_NANOS && Ulfm.failedRanks(watched).length > 0) {
                throw new UlfmException("a process failed during a nonblocking collective", Ulfm.ERR_PROC_FAILED);
            }
        }
    }

    /**
     * Returns once every request of {@code requests} completed, and throws {@link UlfmException}
     * ({@link Ulfm#ERR_PROC_FAILED}) once this rank knows a process of {@code watched} failed.
     * For the checkpoint levels' transfers (partner copies, XOR reduces), which waited in
     * {@code MPI_Waitall}. That call reports a failed send or receive as
     * {@code MPI_ERR_IN_STATUS}, which is no process failure to the recovery (the rank ended
     * with an MPI error instead of recovering), and a rank whose part was on its way to a holder
     * that died was also seen to wait there for good while the others recovered without it,
     * until the repair's 90 s bound relaunched the job (npb-bench's daly runs, IS and MG class B
     * with the partner level, 2 of 8 runs). Each request is tested on its own, so a failed one
     * throws its own error class. Unlike {@link #await} it does not pause between tests: these
     * are large transfers, and Open MPI moves their bytes only inside its calls. Asking about
     * failures costs a few microseconds, so it asks every {@link #WATCH_FROM_NANOS}.
     */
    static void awaitAll(List<Request> requests, Intracomm watched) throws MPIException {
        List<Request> pending = new ArrayList<>(requests);
        long watchAt = System.nanoTime() + WATCH_FROM_NANOS;
        while (!pending.isEmpty()) {
            for (Iterator<Request> each = pending.iterator(); each.hasNext(); ) {
                if (each.next().test()) {
                    each.remove();
                }
            }
            if (!pending.isEmpty() && System.nanoTime() - watchAt >= 0) {
                if (Ulfm.failedRanks(watched).length > 0) {
                    throw new UlfmException("a process failed during a checkpoint level's transfer", Ulfm.ERR_PROC_FAILED);
                }
                watchAt = System.nanoTime() + WATCH_FROM_NANOS;
            }
        }
    }
}
