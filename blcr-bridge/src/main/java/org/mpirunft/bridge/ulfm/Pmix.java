package org.mpirunft.bridge.ulfm;

import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import com.sun.jna.Structure;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * The few PMIx calls the rank library needs, through JNA on the libpmix that Open MPI already
 * loaded. ULFM learns of a failure only from the runtime (a dropped connection, PRRTE's event)
 * or its own detector; a hung or cut-off node gives neither. So when the runtime's detector
 * declares ranks lost, each survivor raises, in its own process only, the PMIx event that Open
 * MPI's ULFM handler takes as "this process terminated": the handler marks the process failed,
 * pending operations on it complete in error, and a shrink leaves it out.
 */
public final class Pmix {
    /** {@code PMIX_ERR_PROC_TERM_WO_SYNC}: ULFM reports it as {@code MPI_ERR_PROC_FAILED}. */
    static final int PROC_TERMINATED = -200;
    /** {@code PMIX_RANGE_PROC_LOCAL}: deliver to this process's own handlers, never to the server. */
    static final byte RANGE_PROC_LOCAL = 7;
    /** {@code PMIX_PROC}, the data type of a {@code pmix_proc_t*} value. */
    static final short DATA_TYPE_PROC = 22;
    static final String AFFECTED_PROC = "pmix.evproc";
    /** {@code PMIX_MAX_NSLEN} + 1. */
    static final int NSPACE_BYTES = 256;
    /** A {@link ProcessName} on the wire between ranks: the namespace, NUL padded, then the rank. */
    public static final int NAME_BYTES = NSPACE_BYTES + Integer.BYTES;

    /** A process's PMIx name: its job's namespace and its rank in that job. */
    public record ProcessName(String nspace, int rank) {
        public ProcessName {
            Objects.requireNonNull(nspace, "nspace");
            if (nspace.isEmpty() || nspace.getBytes(StandardCharsets.UTF_8).length >= NSPACE_BYTES) {
                throw new IllegalArgumentException("PMIx namespace must have 1 to " + (NSPACE_BYTES - 1) + " bytes: '" + nspace + "'");
            }
        }

        public byte[] encode() {
            ByteBuffer buffer = ByteBuffer.allocate(NAME_BYTES).order(ByteOrder.LITTLE_ENDIAN);
            buffer.put(nspace.getBytes(StandardCharsets.UTF_8));
            buffer.position(NSPACE_BYTES);
            buffer.putInt(rank);
            return buffer.array();
        }

        public static ProcessName decode(byte[] bytes, int offset) {
            int end = offset;
            while (end < offset + NSPACE_BYTES && bytes[end] != 0) {
                end++;
            }
            String nspace = new String(bytes, offset, end - offset, StandardCharsets.UTF_8);
            int rank = ByteBuffer.wrap(bytes, offset + NSPACE_BYTES, Integer.BYTES).order(ByteOrder.LITTLE_ENDIAN).getInt();
            return new ProcessName(nspace, rank);
        }
    }

    /** {@code pmix_proc_t}. */
    @Structure.FieldOrder({"nspace", "rank"})
    public static final class PmixProc extends Structure {
        public byte[] nspace = new byte[NSPACE_BYTES];
        public int rank;

        PmixProc(ProcessName name) {
            byte[] bytes = name.nspace().getBytes(StandardCharsets.UTF_8);
            System.arraycopy(bytes, 0, nspace, 0, bytes.length);
            rank = name.rank();
            write();
        }
    }

    interface LibPmix extends Library {
        Pointer PMIx_Info_create(long n);

        int PMIx_Info_load(Pointer info, String key, Pointer data, short type);

        void PMIx_Info_free(Pointer info, long n);

        int PMIx_Notify_event(int status, PmixProc source, byte range, Pointer info, long ninfo, Pointer cbfunc, Pointer cbdata);
    }

    private static final class Holder {
        static final LibPmix LIB = Native.load("pmix", LibPmix.class);
    }

    private Pmix() {
    }

    /** This process's name, from the variables the PMIx server gives every process it starts. */
    public static ProcessName self() {
        String nspace = System.getenv("PMIX_NAMESPACE");
        String rank = System.getenv("PMIX_RANK");
        if (nspace == null || rank == null) {
            throw new IllegalStateException("PMIX_NAMESPACE and PMIX_RANK are not set: not started by a PMIx runtime");
        }
        return new ProcessName(nspace, Integer.parseInt(rank.strip()));
    }

    /**
     * Tells this process's MPI library that {@code lost} terminated. Returns once the event is
     * queued; Open MPI marks the process failed on its next progress.
     */
    public static void declareTerminated(ProcessName self, ProcessName lost) {
        LibPmix lib = Holder.LIB;
        Pointer info = lib.PMIx_Info_create(1);
        if (info == null) {
            throw new IllegalStateException("PMIx_Info_create failed");
        }
        try {
            PmixProc affected = new PmixProc(lost);
            check("PMIx_Info_load", lib.PMIx_Info_load(info, AFFECTED_PROC, affected.getPointer(), DATA_TYPE_PROC));
            check("PMIx_Notify_event", lib.PMIx_Notify_event(PROC_TERMINATED, new PmixProc(self), RANGE_PROC_LOCAL, info, 1, null, null));
        } finally {
            lib.PMIx_Info_free(info, 1);
        }
    }

    private static void check(String call, int status) {
        // PMIX_SUCCESS 0; PMIX_OPERATION_SUCCEEDED -157 means it completed at once.
        if (status != 0 && status != -157) {
            throw new IllegalStateException(call + " returned PMIx status " + status);
        }
    }
}
