package org.mpirunft.bridge.ulfm;

import com.sun.jna.Library;
import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import com.sun.jna.StringArray;
import com.sun.jna.Structure;
import com.sun.jna.ptr.LongByReference;
import com.sun.jna.ptr.PointerByReference;
import java.lang.ref.Reference;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
            String nspace = nulTerminated(bytes, offset);
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

    /** {@code PMIX_STRING}, {@code PMIX_BOOL}, {@code PMIX_PERSIST}: value types. */
    static final short DATA_TYPE_STRING = 3;
    static final short DATA_TYPE_BOOL = 1;
    static final short DATA_TYPE_PERSIST = 30;
    /** {@code PMIX_PERSIST_FIRST_READ}: a published value is deleted once it was read. */
    static final byte PERSIST_FIRST_READ = 1;
    /** {@code PMIX_RANK_WILDCARD}: every process of a namespace. */
    static final int RANK_WILDCARD = 0xFFFFFFFE;
    /** Offsets in {@code pmix_app_t} (x86_64 LP64): cmd, argv, env, cwd, maxprocs, info, ninfo. */
    private static final int APP_BYTES = 56;
    private static final int APP_MAXPROCS = 32;
    private static final int APP_INFO = 40;
    private static final int APP_NINFO = 48;
    /**
     * Offsets in {@code pmix_pdata_t} (x86_64): the key after a {@code pmix_proc_t}, the
     * {@code pmix_value_t} after the key (512 bytes) at 8-byte alignment, its data after its type.
     */
    private static final int PDATA_KEY = NAME_BYTES;
    private static final int KEY_BYTES = 512;
    private static final int PDATA_VALUE_TYPE = (PDATA_KEY + KEY_BYTES + 7) & ~7;
    private static final int PDATA_VALUE_DATA = PDATA_VALUE_TYPE + 8;
    /** Offsets in {@code pmix_data_array_t}: type (uint16), size, array. */
    private static final int DATA_ARRAY_BYTES = 24;
    private static final int DATA_ARRAY_SIZE = 8;
    private static final int DATA_ARRAY_ARRAY = 16;

    interface LibPmix extends Library {
        Pointer PMIx_Info_create(long n);

        int PMIx_Info_load(Pointer info, String key, Pointer data, short type);

        void PMIx_Info_free(Pointer info, long n);

        int PMIx_Notify_event(int status, PmixProc source, byte range, Pointer info, long ninfo, Pointer cbfunc, Pointer cbdata);

        Pointer PMIx_Info_list_start();

        int PMIx_Info_list_add(Pointer list, String key, Pointer value, short type);

        int PMIx_Info_list_convert(Pointer list, Pointer dataArray);

        void PMIx_Info_list_release(Pointer list);

        void PMIx_Data_array_destruct(Pointer dataArray);

        int PMIx_Spawn(Pointer jobInfo, long ninfo, Pointer apps, long napps, byte[] nspace);

        int PMIx_Publish(Pointer info, long ninfo);

        Pointer PMIx_Pdata_create(long n);

        void PMIx_Pdata_free(Pointer data, long n);

        int PMIx_Lookup(Pointer data, long ndata, Pointer info, long ninfo);

        int PMIx_Job_control(PmixProc targets, long ntargets, Pointer directives, long ndirs, PointerByReference results,
                             LongByReference nresults);
    }

    /**
     * One program of a spawn: {@code argv} starts with the command, as a process's argv does;
     * {@code environment} holds {@code NAME=value} entries added to what the runtime gives it.
     */
    public record App(List<String> argv, List<String> environment, String workingDirectory, String host) {
        public App {
            argv = List.copyOf(argv);
            environment = List.copyOf(environment);
            if (argv.isEmpty()) {
                throw new IllegalArgumentException("an app needs a command");
            }
        }
    }

    /** A PMIx call returned an error status. */
    public static final class PmixException extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final int status;

        PmixException(String call, int status) {
            super(call + " returned PMIx status " + status);
            this.status = status;
        }

        public int status() {
            return status;
        }
    }

    private static final class Holder {
        static final LibPmix LIB = Native.load("pmix", LibPmix.class);
    }

    private Pmix() {
    }

    /**
     * Loads the binding and lays out its structures, which JNA does on first use, so that the
     * first {@link #declareTerminated} (in a recovery, while the other ranks wait) does not pay
     * for it. Calls nothing in PMIx.
     */
    public static void prepare() {
        Objects.requireNonNull(Holder.LIB, "libpmix");
        new PmixProc(new ProcessName("prepare", 0));
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

    /**
     * Starts one process per app as a new job of this runtime, with Open MPI's personality, and
     * returns the job's namespace. This is what MPI_Comm_spawn does before its rendezvous, done
     * here so that the caller chooses the rendezvous port (see WorldRepair).
     */
    public static String spawn(List<App> apps) {
        LibPmix lib = Holder.LIB;
        List<Object> keepAlive = new ArrayList<>();
        List<Pointer> infoArrays = new ArrayList<>();
        Memory appArray = new Memory((long) APP_BYTES * apps.size());
        appArray.clear();
        // The scheduler has placed each replacement; PRRTE's slot count must not veto it. A
        // replacement of a failed attempt may still hold its spare's one slot while it leaves,
        // and the next attempt goes to the same spare (PRRTE would answer "already filled").
        Memory jobInfo = infoArray(lib, Map.of("pmix.pers", "ompi5", "pmix.mapby", "slot:OVERSUBSCRIBE"), infoArrays);
        try {
            for (int i = 0; i < apps.size(); i++) {
                App app = apps.get(i);
                Pointer slot = appArray.share((long) i * APP_BYTES);
                Memory cmd = cString(app.argv().getFirst());
                StringArray argv = new StringArray(app.argv().toArray(String[]::new));
                StringArray env = new StringArray(app.environment().toArray(String[]::new));
                keepAlive.addAll(List.of(cmd, argv, env));
                slot.setPointer(0, cmd);
                slot.setPointer(8, argv);
                slot.setPointer(16, env);
                slot.setInt(APP_MAXPROCS, 1);
                Map<String, String> appInfo = new LinkedHashMap<>();
                appInfo.put("pmix.wdir", app.workingDirectory());
                if (app.host() != null) {
                    appInfo.put("pmix.host", app.host());
                }
                Memory info = infoArray(lib, appInfo, infoArrays);
                slot.setPointer(APP_INFO, info.getPointer(DATA_ARRAY_ARRAY));
                slot.setLong(APP_NINFO, info.getLong(DATA_ARRAY_SIZE));
            }
            byte[] nspace = new byte[NSPACE_BYTES];
            check("PMIx_Spawn", lib.PMIx_Spawn(jobInfo.getPointer(DATA_ARRAY_ARRAY), jobInfo.getLong(DATA_ARRAY_SIZE), appArray,
                    apps.size(), nspace));
            return nulTerminated(nspace, 0);
        } finally {
            infoArrays.forEach(lib::PMIx_Data_array_destruct);
            // The apps point into these; JNA frees a Memory once it is unreachable.
            Reference.reachabilityFence(keepAlive);
        }
    }

    /** A {@code pmix_nspace_t} at {@code offset}: NUL-terminated within {@link #NSPACE_BYTES}. */
    private static String nulTerminated(byte[] bytes, int offset) {
        int end = offset;
        while (end < offset + NSPACE_BYTES && bytes[end] != 0) {
            end++;
        }
        return new String(bytes, offset, end - offset, StandardCharsets.UTF_8);
    }

    /**
     * Publishes {@code key} = {@code value} (a string) for the session, deleted once read; a
     * lookup waiting for the key returns with it.
     */
    public static void publish(String key, String value) {
        LibPmix lib = Holder.LIB;
        Memory persistence = new Memory(1);
        persistence.setByte(0, PERSIST_FIRST_READ);
        List<Pointer> toDestruct = new ArrayList<>();
        try {
            Memory info = infoArray(lib, List.of(new Value(key, cString(value), DATA_TYPE_STRING),
                    new Value("pmix.persist", persistence, DATA_TYPE_PERSIST)), toDestruct);
            check("PMIx_Publish", lib.PMIx_Publish(info.getPointer(DATA_ARRAY_ARRAY), info.getLong(DATA_ARRAY_SIZE)));
        } finally {
            toDestruct.forEach(lib::PMIx_Data_array_destruct);
        }
    }

    /**
     * Waits until {@code key} is published for the session and returns its value, a string.
     * The wait is PMIx's own (a blocked thread, not a polling loop). A value published to be
     * read once, as Open MPI's rendezvous publishes, is gone after this: whoever else needs it
     * must be given it again ({@link #publish}).
     */
    public static String awaitPublished(String key) {
        byte[] keyBytes = key.getBytes(StandardCharsets.UTF_8);
        if (keyBytes.length >= KEY_BYTES) {
            throw new IllegalArgumentException("a PMIx key has at most " + (KEY_BYTES - 1) + " bytes: " + key);
        }
        LibPmix lib = Holder.LIB;
        Memory yes = new Memory(1);
        yes.setByte(0, (byte) 1);
        List<Pointer> toDestruct = new ArrayList<>();
        Pointer data = lib.PMIx_Pdata_create(1);
        try {
            data.write(PDATA_KEY, keyBytes, 0, keyBytes.length);
            data.setByte(PDATA_KEY + keyBytes.length, (byte) 0);
            Memory info = infoArray(lib, List.of(new Value("pmix.wait", yes, DATA_TYPE_BOOL)), toDestruct);
            check("PMIx_Lookup", lib.PMIx_Lookup(data, 1, info.getPointer(DATA_ARRAY_ARRAY), info.getLong(DATA_ARRAY_SIZE)));
            short type = data.getShort(PDATA_VALUE_TYPE);
            if (type != DATA_TYPE_STRING) {
                throw new IllegalStateException("PMIx_Lookup of " + key + " found a value of PMIx type " + type + ", not a string");
            }
            return data.getPointer(PDATA_VALUE_DATA).getString(0, StandardCharsets.UTF_8.name());
        } finally {
            toDestruct.forEach(lib::PMIx_Data_array_destruct);
            lib.PMIx_Pdata_free(data, 1);
        }
    }

    /** Kills every process of the job {@code nspace} (blocks until the runtime answered). */
    public static void killJob(String nspace) {
        LibPmix lib = Holder.LIB;
        Memory yes = new Memory(1);
        yes.setByte(0, (byte) 1);
        List<Pointer> toDestruct = new ArrayList<>();
        try {
            Memory directive = infoArray(lib, List.of(new Value("pmix.jctrl.kill", yes, DATA_TYPE_BOOL)), toDestruct);
            check("PMIx_Job_control", lib.PMIx_Job_control(new PmixProc(new ProcessName(nspace, RANK_WILDCARD)), 1,
                    directive.getPointer(DATA_ARRAY_ARRAY), directive.getLong(DATA_ARRAY_SIZE), new PointerByReference(),
                    new LongByReference()));
        } finally {
            toDestruct.forEach(lib::PMIx_Data_array_destruct);
        }
    }

    /** One info: {@code data} as PMIx_Info_load takes it (the char* itself for a string, else a pointer to the value). */
    private record Value(String key, Pointer data, short type) {
    }

    private static Memory infoArray(LibPmix lib, Map<String, String> strings, List<Pointer> toDestruct) {
        return infoArray(lib, strings.entrySet().stream().map(e -> new Value(e.getKey(), cString(e.getValue()), DATA_TYPE_STRING))
                .toList(), toDestruct);
    }

    /**
     * A {@code pmix_data_array_t} of infos, built by PMIx itself (so that this code needs no
     * {@code sizeof(pmix_info_t)}); the caller destructs it.
     */
    private static Memory infoArray(LibPmix lib, List<Value> values, List<Pointer> toDestruct) {
        Memory array = new Memory(DATA_ARRAY_BYTES);
        array.clear();
        Pointer list = lib.PMIx_Info_list_start();
        try {
            for (Value v : values) {
                check("PMIx_Info_list_add", lib.PMIx_Info_list_add(list, v.key(), v.data(), v.type()));
            }
            check("PMIx_Info_list_convert", lib.PMIx_Info_list_convert(list, array));
        } finally {
            lib.PMIx_Info_list_release(list);
        }
        toDestruct.add(array);
        return array;
    }

    private static Memory cString(String value) {
        byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        Memory memory = new Memory(bytes.length + 1L);
        memory.write(0, bytes, 0, bytes.length);
        memory.setByte(bytes.length, (byte) 0);
        return memory;
    }

    private static void check(String call, int status) {
        // PMIX_SUCCESS 0; PMIX_OPERATION_SUCCEEDED -157 means it completed at once.
        if (status != 0 && status != -157) {
            throw new PmixException(call, status);
        }
    }
}
