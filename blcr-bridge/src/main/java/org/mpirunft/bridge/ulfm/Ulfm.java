package org.mpirunft.bridge.ulfm;

import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.ptr.IntByReference;
import com.sun.jna.ptr.LongByReference;
import mpi.Intracomm;
import mpi.MPIException;

/**
 * ULFM's {@code MPIX_Comm_*} calls on Open MPI communicators. Open MPI's Java bindings have
 * none of them, so they are called through JNA on the communicator's native handle.
 *
 * <p>Requires a job started with {@code mpirun --with-ft ulfm}; without it a failed peer
 * aborts the job before any of these can help.
 */
public final class Ulfm {
    /** {@code MPI_ERR_PROC_FAILED}: a peer of the failed operation is dead. */
    public static final int ERR_PROC_FAILED = 75;
    /** {@code MPI_ERR_PROC_FAILED_PENDING}: a wildcard receive may be matched by a dead peer. */
    public static final int ERR_PROC_FAILED_PENDING = 76;
    /** {@code MPI_ERR_REVOKED}: another rank revoked the communicator. */
    public static final int ERR_REVOKED = 77;

    /** The C symbols of Open MPI's ftmpi extension; MPI_Comm is a pointer in Open MPI. */
    interface FtMpi extends Library {
        int MPIX_Comm_revoke(long comm);
        int MPIX_Comm_is_revoked(long comm, IntByReference flag);
        int MPIX_Comm_shrink(long comm, LongByReference newcomm);
        int MPIX_Comm_agree(long comm, IntByReference flag);
        int MPIX_Comm_ack_failed(long comm, int numToAck, IntByReference numAcked);

        int MPIX_Comm_get_failed(long comm, LongByReference failedGroup);
    }

    private static final class Holder {
        // Loaded on first use: libmpi is already mapped by the Java bindings, so this is cheap.
        static final FtMpi LIB = Native.load("mpi", FtMpi.class);
    }

    private Ulfm() {
    }

    /** True when the exception means a process failure or a revoke, the cases ULFM recovers. */
    public static boolean isFailure(MPIException e) {
        return isFailureClass(e.getErrorClass());
    }

    public static boolean isFailureClass(int errorClass) {
        return errorClass == ERR_PROC_FAILED || errorClass == ERR_PROC_FAILED_PENDING || errorClass == ERR_REVOKED;
    }

    /** Revokes {@code comm} so that every rank blocked on it, or calling it later, gets {@link #ERR_REVOKED}. */
    public static void revoke(mpi.Comm comm) {
        check("MPIX_Comm_revoke", Holder.LIB.MPIX_Comm_revoke(CommHandles.handleOf(comm)));
    }

    public static boolean isRevoked(Intracomm comm) {
        IntByReference flag = new IntByReference();
        check("MPIX_Comm_is_revoked", Holder.LIB.MPIX_Comm_is_revoked(CommHandles.handleOf(comm), flag));
        return flag.getValue() != 0;
    }

    /** A new communicator of the surviving ranks of {@code comm}, in their old order. */
    public static Intracomm shrink(Intracomm comm) {
        LongByReference shrunk = new LongByReference();
        check("MPIX_Comm_shrink", Holder.LIB.MPIX_Comm_shrink(CommHandles.handleOf(comm), shrunk));
        return CommHandles.intracommOf(shrunk.getValue());
    }

    /**
     * Fault-tolerant agreement: the bitwise AND of {@code flag} over the live ranks. It
     * completes even when ranks died; a failure during it is reported as {@link UlfmException}
     * with {@link #ERR_PROC_FAILED}, after which the value is still agreed among the survivors.
     */
    public static int agree(Intracomm comm, int flag) {
        IntByReference value = new IntByReference(flag);
        check("MPIX_Comm_agree", Holder.LIB.MPIX_Comm_agree(CommHandles.handleOf(comm), value));
        return value.getValue();
    }

    /**
     * The agreed value of {@link #agree}, also when the agreement reports a failure: the value is
     * the same on every rank that completes the call, while whether a failure is reported depends
     * on what each rank had acknowledged. A decision that every rank must take alike is taken on
     * the value alone.
     */
    public static int agreedValue(Intracomm comm, int flag) {
        IntByReference value = new IntByReference(flag);
        int code = Holder.LIB.MPIX_Comm_agree(CommHandles.handleOf(comm), value);
        if (code != 0 && code != ERR_PROC_FAILED) {
            throw new UlfmException("MPIX_Comm_agree", code);
        }
        return value.getValue();
    }

    /** Acknowledges all failures known so far on {@code comm}, so wildcard receives work again. */
    public static int ackFailed(Intracomm comm) {
        IntByReference acked = new IntByReference();
        // Open MPI refuses a count above the communicator's size (MPI_ERR_ARG).
        int all;
        try {
            all = comm.getSize();
        } catch (MPIException e) {
            throw new UlfmException("MPI_Comm_size", e.getErrorClass());
        }
        check("MPIX_Comm_ack_failed", Holder.LIB.MPIX_Comm_ack_failed(CommHandles.handleOf(comm), all, acked));
        return acked.getValue();
    }

    /**
     * The ranks of {@code comm} known to have failed, in ascending order. This is the local
     * knowledge of this rank (MPIX_Comm_get_failed), not an agreement; agree before acting on it.
     */
    public static int[] failedRanks(Intracomm comm) {
        LongByReference failed = new LongByReference();
        check("MPIX_Comm_get_failed", Holder.LIB.MPIX_Comm_get_failed(CommHandles.handleOf(comm), failed));
        try {
            mpi.Group failedGroup = CommHandles.groupOf(failed.getValue());
            mpi.Group all = comm.getGroup();
            int count = failedGroup.getSize();
            int[] positions = new int[count];
            for (int i = 0; i < count; i++) {
                positions[i] = i;
            }
            int[] ranks = mpi.Group.translateRanks(failedGroup, positions, all);
            failedGroup.free();
            all.free();
            java.util.Arrays.sort(ranks);
            return ranks;
        } catch (MPIException e) {
            throw new UlfmException("MPIX_Comm_get_failed", e.getErrorClass());
        }
    }

    private static void check(String call, int code) {
        if (code != 0) {
            throw new UlfmException(call, code);
        }
    }
}
