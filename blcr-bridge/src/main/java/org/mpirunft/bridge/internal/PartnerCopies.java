package org.mpirunft.bridge.internal;

import java.nio.ByteBuffer;
import java.nio.LongBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.logging.Logger;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import mpi.Request;
import mpi.Status;
import org.mpirunft.bridge.state.CorruptPartException;
import org.mpirunft.bridge.state.Snapshot;
import org.mpirunft.bridge.storage.EpochManifest;
import org.mpirunft.bridge.ulfm.Ulfm;

/**
 * The partner level (SCR's PARTNER): each rank's part of an epoch goes, over MPI, into the
 * memory of a rank on the next node of a ring over the job's nodes, which keeps it until a newer
 * epoch commits. A replacement then gets its part from that rank's memory, and a node loss needs
 * no shared storage. Both ranks of a pair lost together lose the copy: the epoch then falls back
 * to a level that holds it.
 *
 * <p>The traffic goes over a duplicate of the world, so that it never meets the program's own
 * messages (a receive from any source and any tag would take it). The sizes are exchanged at
 * the safe point, with the checkpoint, where every rank is; the parts themselves move while the
 * program computes (Open MPI moves them whenever the program calls MPI) and are waited for when
 * the epoch commits. Not thread-safe: the rank's main thread owns it.
 */
final class PartnerCopies {
    private static final Logger LOG = Logger.getLogger(PartnerCopies.class.getName());
    private static final int TAG_SIZES = 7101;
    private static final int TAG_PART = 7102;
    private static final int TAG_RESTORE_SIZES = 7103;
    private static final int TAG_RESTORE_PART = 7104;
    /** The most a replacement allocates in one buffer for its part (a Java buffer holds at most 2 GiB). */
    private static final long ROOM_BUFFER_BYTES = 1L << 30;

    private final int rank;
    /** The world {@link #comm} duplicates; a recovery makes a new world. */
    private Intracomm world;
    private Intracomm comm;
    /** Sends and receives of the epoch under way. */
    private final List<Request> inFlight = new ArrayList<>();
    /** What the sends under way read from: referenced until they complete, so that no buffer is freed under MPI. */
    private final List<Object> sending = new ArrayList<>();
    private long inFlightEpoch;
    private Map<Integer, Held> incoming = Map.of();
    /** Other ranks' parts held here, by epoch, then by their rank. */
    private final TreeMap<Long, Map<Integer, Held>> held = new TreeMap<>();
    /**
     * Copies of epochs no longer needed, by their rank, whose buffers the next copy of the same
     * sizes is received into: a new direct buffer per copy and epoch left state-sized garbage
     * that only a GC frees, and the JVM stalls the allocating thread (the rank's, at its safe
     * point) while it waits for one.
     */
    private final Map<Integer, Held> reusable = new java.util.HashMap<>();

    /**
     * A replacement's room for its own part, made while its program sets up: direct memory is
     * zeroed as it is allocated (about 330 ms for MG class C's 905 MB here), which would
     * otherwise come between the holder's first byte and the restore's end. Null if none.
     */
    private CompletableFuture<ByteBuffer[]> room;

    /** Another rank's part, as received: the pieces its snapshot is made of. */
    record Held(int source, long epoch, List<ByteBuffer> pieces) {
        long bytes() {
            long bytes = 0;
            for (ByteBuffer piece : pieces) {
                bytes += piece.capacity();
            }
            return bytes;
        }
    }

    PartnerCopies(int rank) {
        this.rank = rank;
    }

    /**
     * The rank that holds {@code source}'s part: on the node after {@code source}'s in the order
     * the nodes first appear among the ranks, the rank there with the same position among its
     * node's ranks (modulo their number). -1 if the ranks run on one node: nobody can hold it.
     */
    static int holderOf(int source, List<String> nodeOfRank) {
        Map<String, List<Integer>> ranksByNode = new LinkedHashMap<>();
        for (int r = 0; r < nodeOfRank.size(); r++) {
            ranksByNode.computeIfAbsent(nodeOfRank.get(r), n -> new ArrayList<>()).add(r);
        }
        if (ranksByNode.size() < 2) {
            return -1;
        }
        List<String> nodes = new ArrayList<>(ranksByNode.keySet());
        String node = nodeOfRank.get(source);
        int position = ranksByNode.get(node).indexOf(source);
        List<Integer> next = ranksByNode.get(nodes.get((nodes.indexOf(node) + 1) % nodes.size()));
        return next.get(position % next.size());
    }

    /** The ranks whose parts {@code holder} holds. */
    static List<Integer> sourcesOf(int holder, List<String> nodeOfRank) {
        List<Integer> sources = new ArrayList<>();
        for (int r = 0; r < nodeOfRank.size(); r++) {
            if (r != holder && holderOf(r, nodeOfRank) == holder) {
                sources.add(r);
            }
        }
        return sources;
    }

    /** Collective over {@code current}: duplicates it for the partner traffic if it is a new world. */
    void useWorld(Intracomm current) throws MPIException {
        if (current == world) {
            return;
        }
        Intracomm duplicate = current.dup();
        duplicate.setErrhandler(MPI.ERRORS_RETURN);
        world = current;
        comm = duplicate;
    }

    /**
     * At the safe point of a checkpoint, on every rank: sends {@code snapshot} (captured direct)
     * to its holder and starts receiving the parts this rank holds. Returns once the sizes are
     * known; the parts move in the background until {@link #finish}.
     */
    void start(Snapshot snapshot, List<String> nodeOfRank) throws MPIException {
        int holder = holderOf(rank, nodeOfRank);
        inFlightEpoch = snapshot.epoch();
        inFlight.clear();
        sending.clear();
        incoming = new LinkedHashMap<>();
        if (holder < 0) {
            return;
        }
        List<ByteBuffer> pieces = snapshot.pieces();
        LongBuffer sizes = sizesOf(snapshot.epoch(), pieces);
        sending.add(sizes);
        sending.add(pieces);
        inFlight.add(comm.iSend(sizes, pieces.size() + 1, MPI.LONG, holder, TAG_SIZES));
        for (int source : sourcesOf(rank, nodeOfRank)) {
            incoming.put(source, receiveSizes(source, TAG_SIZES, snapshot.epoch(), reusable.remove(source), false));
        }
        for (ByteBuffer piece : pieces) {
            inFlight.add(comm.iSend(piece, piece.capacity(), MPI.BYTE, holder, TAG_PART));
        }
        for (Held copy : incoming.values()) {
            for (ByteBuffer piece : copy.pieces()) {
                inFlight.add(comm.iRecv(piece, piece.capacity(), MPI.BYTE, copy.source(), TAG_PART));
            }
        }
    }

    /**
     * Waits for the transfers {@link #start} began; afterwards this rank holds its sources'
     * parts of the epoch. Throws as MPI does if a partner failed.
     */
    void finish() throws MPIException {
        if (!inFlight.isEmpty()) {
            Request.waitAll(inFlight.toArray(Request[]::new));
        }
        inFlight.clear();
        sending.clear();
        if (!incoming.isEmpty()) {
            held.put(inFlightEpoch, incoming);
        }
        incoming = Map.of();
    }

    /** Epoch {@code epoch} committed: older copies are of no use any more; their buffers take the next ones. */
    void committed(long epoch) {
        SortedMap<Long, Map<Integer, Held>> older = held.headMap(epoch);
        older.values().forEach(copies -> copies.forEach(reusable::put));
        older.clear();
    }

    /**
     * The job rolled back to {@code epoch}: newer copies are of epochs that are discarded, and
     * transfers under way are abandoned with the world they ran on (their buffers are never reused).
     */
    void rolledBackTo(long epoch) {
        held.tailMap(epoch, false).clear();
        // A transfer under way may still write into a copy's buffers: none is reused after a rollback.
        reusable.clear();
        inFlight.clear();
        sending.clear();
        incoming = Map.of();
        if (comm != null) {
            try {
                Ulfm.revoke(comm);
            } catch (RuntimeException e) {
                LOG.fine(() -> "rank " + rank + ": revoking the old partner communicator: " + e.getMessage());
            }
        }
        world = null;
        comm = null;
    }

    /**
     * Collective over {@code current}: every rank that cannot load its part of {@code manifest}'s
     * epoch otherwise ({@code needed}) gets it from the rank that holds it. Empty if nobody holds
     * it or it is damaged (the caller's agreement then falls back to an older epoch).
     */
    Optional<Snapshot> restore(Intracomm current, EpochManifest manifest, boolean needed) throws MPIException {
        useWorld(current);
        int size = comm.getSize();
        Map<Integer, Held> mine = held.getOrDefault(manifest.epoch(), Map.of());
        LongBuffer wanted = MPI.newLongBuffer(2 * size);
        for (int source : mine.keySet()) {
            if (source < size) {
                wanted.put(source, rank + 1);
            }
        }
        wanted.put(size + rank, needed ? 1 : 0);
        comm.allReduce(wanted, 2 * size, MPI.LONG, MPI.MAX);
        List<Request> requests = new ArrayList<>();
        List<Object> restoreSending = new ArrayList<>();
        for (int r = 0; r < size; r++) {
            if (wanted.get(size + r) == 1 && wanted.get(r) - 1 == rank && r != rank) {
                List<ByteBuffer> pieces = mine.get(r).pieces().stream().map(p -> p.duplicate().clear()).toList();
                LongBuffer sizes = sizesOf(manifest.epoch(), pieces);
                restoreSending.add(sizes);
                requests.add(comm.iSend(sizes, pieces.size() + 1, MPI.LONG, r, TAG_RESTORE_SIZES));
                for (ByteBuffer piece : pieces) {
                    requests.add(comm.iSend(piece, piece.capacity(), MPI.BYTE, r, TAG_RESTORE_PART));
                }
            }
        }
        Held received = null;
        boolean roomAhead = room != null;
        long start = System.nanoTime();
        int holder = (int) wanted.get(rank) - 1;
        if (needed && holder >= 0 && holder != rank) {
            received = receiveSizes(holder, TAG_RESTORE_SIZES, manifest.epoch(), null, true);
            for (ByteBuffer piece : received.pieces()) {
                requests.add(comm.iRecv(piece, piece.capacity(), MPI.BYTE, holder, TAG_RESTORE_PART));
            }
        }
        if (!requests.isEmpty()) {
            Request.waitAll(requests.toArray(Request[]::new));
        }
        java.lang.ref.Reference.reachabilityFence(restoreSending);
        // Room made for a copy this rank did not need is memory for nothing.
        room = null;
        if (!needed) {
            return Optional.empty();
        }
        if (received == null) {
            LOG.warning(() -> "rank " + rank + ": no rank holds a partner copy of its part of epoch " + manifest.epoch()
                    + " (its partner was lost too)");
            return Optional.empty();
        }
        double millis = (System.nanoTime() - start) / 1e6;
        long bytes = received.bytes();
        int from = holder;
        try {
            Snapshot snapshot = Snapshot.fromPieces(received.pieces(), manifest.part(rank).bytes(), manifest.part(rank).crc32c());
            // The benchmark reads this line, as it reads the other levels' transfers.
            LOG.info(() -> String.format(Locale.ROOT, "rank %d: state transfer epoch=%d bytes=%d ms=%.1f from=partner (rank %d%s)",
                    rank, manifest.epoch(), bytes, millis, from, roomAhead ? ", into room made ahead" : ""));
            return Optional.of(snapshot);
        } catch (CorruptPartException e) {
            LOG.warning(() -> "rank " + rank + ": the partner copy of epoch " + manifest.epoch() + " from rank " + from
                    + " is unusable: " + e.getMessage());
            return Optional.empty();
        }
    }

    /**
     * A replacement whose part of the newest epoch has {@code bytes} bytes at its partner starts
     * making room for it now, off its critical path; {@link #restore} receives into it.
     */
    void prepareRoom(long bytes) {
        if (bytes <= 0) {
            return;
        }
        room = CompletableFuture.supplyAsync(() -> roomFor(bytes, ROOM_BUFFER_BYTES),
                command -> Thread.ofPlatform().daemon().name("partner-copy-room").start(command));
    }

    /** Buffers of at most about {@code most} bytes each that hold a part of {@code bytes} in pieces of at most {@code most}. */
    static ByteBuffer[] roomFor(long bytes, long most) {
        int count = Math.toIntExact(Math.ceilDiv(bytes, most));
        // Whole pieces never cross a buffer, so each buffer of several has room for one more of the largest.
        long perBuffer = Math.min(Integer.MAX_VALUE - 8L, Math.ceilDiv(bytes, count) + (count > 1 ? most : 0));
        ByteBuffer[] buffers = new ByteBuffer[count];
        for (int i = 0; i < count; i++) {
            buffers[i] = ByteBuffer.allocateDirect((int) perBuffer);
        }
        return buffers;
    }

    /** Room for {@code sizes} pieces in order from {@link #prepareRoom}'s buffers; null if it does not fit or there is none. */
    private List<ByteBuffer> fromRoom(long[] sizes) {
        CompletableFuture<ByteBuffer[]> prepared = room;
        room = null;
        if (prepared == null) {
            return null;
        }
        ByteBuffer[] buffers;
        try {
            buffers = prepared.join();
        } catch (java.util.concurrent.CompletionException e) {
            LOG.fine(() -> "rank " + rank + ": no room made ahead for the partner copy: " + e.getCause());
            return null;
        }
        return carve(buffers, sizes);
    }

    /** {@code sizes} pieces, in order, as slices of {@code buffers}, none across two; null if they do not fit. */
    static List<ByteBuffer> carve(ByteBuffer[] buffers, long[] sizes) {
        List<ByteBuffer> pieces = new ArrayList<>(sizes.length);
        int buffer = 0;
        int at = 0;
        for (long size : sizes) {
            while (buffer < buffers.length && buffers[buffer].capacity() - at < size) {
                buffer++;
                at = 0;
            }
            if (buffer == buffers.length) {
                return null;
            }
            pieces.add(buffers[buffer].slice(at, (int) size));
            at += (int) size;
        }
        return pieces;
    }

    /** Whether this rank holds {@code source}'s part of {@code epoch}. */
    boolean holds(long epoch, int source) {
        return held.getOrDefault(epoch, Map.of()).containsKey(source);
    }

    private static LongBuffer sizesOf(long epoch, List<ByteBuffer> pieces) {
        LongBuffer sizes = MPI.newLongBuffer(pieces.size() + 1);
        sizes.put(0, epoch);
        for (int i = 0; i < pieces.size(); i++) {
            sizes.put(i + 1, pieces.get(i).capacity());
        }
        return sizes;
    }

    /**
     * Receives a part's sizes from {@code source} and provides the pieces it will arrive in: those
     * of {@code reuse} (may be null) if they have the same sizes, else new ones.
     */
    private Held receiveSizes(int source, int tag, long epoch, Held reuse, boolean intoRoom) throws MPIException {
        Status status = comm.probe(source, tag);
        int count = status.getCount(MPI.LONG);
        LongBuffer sizes = MPI.newLongBuffer(count);
        comm.recv(sizes, count, MPI.LONG, source, tag);
        if (sizes.get(0) != epoch) {
            throw new IllegalStateException("rank " + source + " sent its part of epoch " + sizes.get(0) + " for epoch " + epoch);
        }
        boolean sameSizes = reuse != null && reuse.pieces().size() == count - 1;
        for (int i = 1; sameSizes && i < count; i++) {
            sameSizes = reuse.pieces().get(i - 1).capacity() == sizes.get(i);
        }
        if (sameSizes) {
            return new Held(source, epoch, reuse.pieces().stream().map(p -> p.clear()).toList());
        }
        if (intoRoom) {
            long[] wanted = new long[count - 1];
            for (int i = 1; i < count; i++) {
                wanted[i - 1] = sizes.get(i);
            }
            List<ByteBuffer> pieces = fromRoom(wanted);
            if (pieces != null) {
                return new Held(source, epoch, pieces);
            }
        }
        List<ByteBuffer> fresh = new ArrayList<>(count - 1);
        for (int i = 1; i < count; i++) {
            fresh.add(ByteBuffer.allocateDirect(Math.toIntExact(sizes.get(i))));
        }
        return new Held(source, epoch, fresh);
    }
}
