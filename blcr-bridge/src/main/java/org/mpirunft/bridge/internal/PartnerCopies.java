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
import org.mpirunft.bridge.RankListener;
import org.mpirunft.bridge.state.CorruptPartException;
import org.mpirunft.bridge.state.DeltaPart;
import org.mpirunft.bridge.state.Snapshot;
import org.mpirunft.bridge.storage.EpochManifest;
import org.mpirunft.bridge.ulfm.Ulfm;

/**
 * The partner level (SCR's PARTNER): each rank's part of an epoch goes, over MPI, into the
 * memory of a rank on the next node of a ring over the job's nodes ({@link PartnerRing}), which
 * keeps it until a newer epoch commits. A replacement then gets its part from that rank's
 * memory, and a node loss needs no shared storage. Both ranks of a pair lost together lose the
 * copy: the epoch then falls back to a level that holds it.
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

    private final int rank;
    private final RankListener listener;
    /** The world {@link #comm} duplicates; a recovery makes a new world. */
    private Intracomm world;
    private Intracomm comm;
    /** Sends and receives of the epoch under way. */
    private final List<Request> inFlight = new ArrayList<>();
    /** What the sends under way read from: referenced until they complete, so that no buffer is freed under MPI. */
    private final List<Object> sending = new ArrayList<>();
    private long inFlightEpoch;
    private Map<Integer, Held> incoming = Map.of();
    /** Copies of the epoch under way composed from a held copy, by their rank: what is left to copy from it. */
    private final List<CompletableFuture<Void>> composing = new ArrayList<>();
    /** Sources whose copy of the epoch under way cannot be composed (its base is not held here): not kept. */
    private final java.util.Set<Integer> unusable = new java.util.HashSet<>();
    /**
     * The holder each epoch of this rank went to, in the current world: an epoch's part can be sent
     * as the blocks that changed since a committed epoch only to the rank that holds that epoch.
     */
    private final TreeMap<Long, Integer> sentTo = new TreeMap<>();
    /** Bytes this rank sent to its holder for the last epoch: the whole part, or the blocks that changed. */
    private long lastSentBytes;
    /** Other ranks' parts held here, by epoch, then by their rank. */
    private final TreeMap<Long, Map<Integer, Held>> held = new TreeMap<>();
    /**
     * Copies of epochs no longer needed, by their rank, whose buffers the next copy of the same
     * sizes is received into: a new direct buffer per copy and epoch left state-sized garbage
     * that only a GC frees, and the JVM stalls the allocating thread (the rank's, at its safe
     * point) while it waits for one.
     */
    private final Map<Integer, Held> reusable = new java.util.HashMap<>();

    /** A replacement's room for its own part, made while its program sets up. */
    private final PartnerRoom room;

    /**
     * Another rank's part, as received: the pieces its snapshot is made of. A copy composed from
     * the copy of epoch {@code base} differs from it only in {@code runs} (as {@link Announcement}
     * has them); a copy received whole has base 0 and no runs.
     */
    record Held(int source, long epoch, List<ByteBuffer> pieces, long base, long[] runs) {
        Held(int source, long epoch, List<ByteBuffer> pieces) {
            this(source, epoch, pieces, 0, null);
        }

        long bytes() {
            long bytes = 0;
            for (ByteBuffer piece : pieces) {
                bytes += piece.capacity();
            }
            return bytes;
        }
    }

    /** {@code listener}: the program's, told of each restore of this rank's part from its partner copy. */
    PartnerCopies(int rank, RankListener listener) {
        this.rank = rank;
        this.room = new PartnerRoom(rank);
        this.listener = listener;
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
        // A new world (a recovery) may have new holders, which hold nothing yet.
        sentTo.clear();
    }

    /**
     * At the safe point of a checkpoint, on every rank: sends {@code snapshot} (captured direct)
     * to its holder and starts receiving the parts this rank holds. Returns once the sizes are
     * known; the parts move in the background until {@link #finish}.
     *
     * <p>{@code base}, if not null, is this rank's snapshot of the last committed epoch. If that
     * epoch went to the same holder in this world, only the blocks that changed since go
     * ({@link ChangedRuns}; a rank's state often changes in places only: IS's keys, FT's initial
     * spectrum, MG's right-hand side stay as they are); the holder composes the new copy from its
     * copy of {@code base} and the blocks, copying the unchanged ones in the background.
     */
    void start(Snapshot snapshot, List<String> nodeOfRank, Snapshot base) throws MPIException {
        int holder = PartnerRing.holderOf(rank, nodeOfRank);
        inFlightEpoch = snapshot.epoch();
        inFlight.clear();
        sending.clear();
        composing.clear();
        unusable.clear();
        incoming = new LinkedHashMap<>();
        if (holder < 0) {
            return;
        }
        List<ByteBuffer> pieces = snapshot.pieces();
        long[] runs = null;
        if (base != null && Integer.valueOf(holder).equals(sentTo.get(base.epoch()))
                && DeltaPart.sameLayout(snapshot, base)) {
            runs = ChangedRuns.changedRuns(pieces, base.pieces());
        }
        Announcement mine = new Announcement(snapshot.epoch(), runs == null ? 0 : base.epoch(), capacities(pieces),
                runs == null ? new long[0] : runs);
        LongBuffer announced = mine.encode();
        sending.add(announced);
        sending.add(pieces);
        inFlight.add(comm.iSend(announced, announced.capacity(), MPI.LONG, holder, TAG_SIZES));
        for (int source : PartnerRing.sourcesOf(rank, nodeOfRank)) {
            Announcement theirs = receiveAnnouncement(source, TAG_SIZES, snapshot.epoch());
            Held reuse = reusable.remove(source);
            Held copy = provide(source, theirs, reuse, false);
            boolean reused = reuse != null && copy.pieces().getFirst() == reuse.pieces().getFirst();
            copy = postReceives(copy, theirs, reused ? reuse.epoch() : -1);
            incoming.put(source, copy);
        }
        lastSentBytes = 0;
        for (ByteBuffer region : mine.regions(pieces)) {
            inFlight.add(comm.iSend(region, region.capacity(), MPI.BYTE, holder, TAG_PART));
            lastSentBytes += region.capacity();
        }
        sentTo.put(snapshot.epoch(), holder);
        // Only the newest committed epoch can be a base.
        sentTo.headMap(base == null ? snapshot.epoch() : base.epoch()).clear();
    }

    /** What this rank sent its holder for the last epoch, in bytes: the partner level's traffic. */
    long lastSentBytes() {
        return lastSentBytes;
    }

    /**
     * Posts the receives of {@code source}'s copy as announced: the whole part, or the changed
     * regions into a copy whose other bytes come from the held copy of the base epoch. When the
     * copy's buffers still hold the epoch that base copy was itself composed from
     * ({@code reusedEpoch}, -1 if fresh buffers), they differ from the base only in the base's
     * runs: those are copied (less what arrives now), not the whole part. Returns the copy as held.
     */
    private Held postReceives(Held copy, Announcement announced, long reusedEpoch) throws MPIException {
        List<ByteBuffer> target = copy.pieces();
        Held composed = copy;
        if (announced.base() != 0) {
            composed = new Held(copy.source(), copy.epoch(), target, announced.base(), announced.runs());
            Held base = held.getOrDefault(announced.base(), Map.of()).get(copy.source());
            if (base == null || !sameSizes(base.pieces(), target)) {
                // Cannot happen while both sides agree on the commits; the copy is received and dropped.
                LOG.warning(() -> "rank " + rank + ": rank " + copy.source() + " sent its part of epoch " + announced.epoch()
                        + " as changes since epoch " + announced.base() + ", whose copy is not here; it is not kept");
                unusable.add(copy.source());
            } else {
                Runnable compose = reusedEpoch > 0 && base.runs() != null && base.base() == reusedEpoch
                        ? () -> ChangedRuns.copyRuns(base.pieces(), target, ChangedRuns.minus(base.runs(), announced.runs()))
                        : () -> ChangedRuns.copyUnchanged(base.pieces(), target, announced.runs());
                composing.add(CompletableFuture.runAsync(compose,
                        command -> Thread.ofPlatform().daemon().name("partner-copy-compose").start(command)));
            }
        }
        for (ByteBuffer region : announced.regions(target)) {
            inFlight.add(comm.iRecv(region, region.capacity(), MPI.BYTE, copy.source(), TAG_PART));
        }
        return composed;
    }

    /**
     * Waits for the transfers {@link #start} began; afterwards this rank holds its sources'
     * parts of the epoch. Throws as MPI does if a partner failed.
     */
    void finish() throws MPIException {
        IdleWait.awaitAll(inFlight, comm);
        composing.forEach(CompletableFuture::join);
        composing.clear();
        inFlight.clear();
        sending.clear();
        incoming.keySet().removeAll(unusable);
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
        // A composition under way writes only into the abandoned copy's buffers.
        composing.clear();
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
                LongBuffer sizes = new Announcement(manifest.epoch(), 0, capacities(pieces), new long[0]).encode();
                restoreSending.add(sizes);
                requests.add(comm.iSend(sizes, sizes.capacity(), MPI.LONG, r, TAG_RESTORE_SIZES));
                for (ByteBuffer piece : pieces) {
                    requests.add(comm.iSend(piece, piece.capacity(), MPI.BYTE, r, TAG_RESTORE_PART));
                }
            }
        }
        Held received = null;
        boolean roomAhead = room.isMade();
        long start = System.nanoTime();
        int holder = (int) wanted.get(rank) - 1;
        if (needed && holder >= 0 && holder != rank) {
            received = provide(holder, receiveAnnouncement(holder, TAG_RESTORE_SIZES, manifest.epoch()), null, true);
            for (ByteBuffer piece : received.pieces()) {
                requests.add(comm.iRecv(piece, piece.capacity(), MPI.BYTE, holder, TAG_RESTORE_PART));
            }
        }
        IdleWait.awaitAll(requests, comm);
        java.lang.ref.Reference.reachabilityFence(restoreSending);
        // Room made for a copy this rank did not need is memory for nothing.
        room.drop();
        if (!needed) {
            return Optional.empty();
        }
        if (received == null) {
            LOG.warning(() -> "rank " + rank + ": no rank holds a partner copy of its part of epoch " + manifest.epoch()
                    + " (its partner was lost too)");
            return Optional.empty();
        }
        long nanos = System.nanoTime() - start;
        long bytes = received.bytes();
        int from = holder;
        try {
            Snapshot snapshot = Snapshot.fromPieces(received.pieces(), manifest.part(rank).bytes(), manifest.part(rank).crc32c());
            listener.stateTransferred(new RankListener.StateTransfer(rank, manifest.epoch(), rank, bytes, nanos,
                    RankListener.StateTransfer.Source.PARTNER));
            LOG.fine(() -> String.format(Locale.ROOT, "rank %d: got its part of epoch %d (%d bytes) from its partner copy at rank %d%s"
                    + " in %.1f ms", rank, manifest.epoch(), bytes, from, roomAhead ? ", into room made ahead" : "", nanos / 1e6));
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
        room.prepare(bytes);
    }

    /** Whether this rank holds {@code source}'s part of {@code epoch}. */
    boolean holds(long epoch, int source) {
        return held.getOrDefault(epoch, Map.of()).containsKey(source);
    }

    private static long[] capacities(List<ByteBuffer> pieces) {
        return pieces.stream().mapToLong(ByteBuffer::capacity).toArray();
    }

    private static boolean sameSizes(List<ByteBuffer> a, List<ByteBuffer> b) {
        if (a.size() != b.size()) {
            return false;
        }
        for (int i = 1; i < a.size(); i++) {
            if (a.get(i).capacity() != b.get(i).capacity()) {
                return false;
            }
        }
        return true;
    }

    /**
     * What a rank announces before its part moves: the epoch, the base epoch it is a change
     * on (0: the whole part), the pieces' sizes and, for a change, the regions that move as
     * (piece, offset, length) triples. On the wire: epoch, base, piece count, sizes, region
     * count, triples, as MPI longs.
     */
    record Announcement(long epoch, long base, long[] sizes, long[] runs) {
        LongBuffer encode() {
            // As MPI.newLongBuffer makes it, without loading MPI (unit tests run without it).
            LongBuffer out = ByteBuffer.allocateDirect(8 * (4 + sizes.length + runs.length)).order(java.nio.ByteOrder.nativeOrder())
                    .asLongBuffer();
            out.put(epoch).put(base).put(sizes.length).put(sizes).put(runs.length / 3).put(runs);
            return out.clear();
        }

        static Announcement decode(LongBuffer in, int count) {
            long epoch = in.get(0);
            long base = in.get(1);
            int pieces = Math.toIntExact(in.get(2));
            long[] sizes = new long[pieces];
            in.get(3, sizes);
            int regions = Math.toIntExact(in.get(3 + pieces));
            long[] runs = new long[3 * regions];
            in.get(4 + pieces, runs);
            if (4 + pieces + runs.length != count) {
                throw new IllegalStateException("a partner announcement of " + count + " longs does not add up");
            }
            return new Announcement(epoch, base, sizes, runs);
        }

        /** The buffers that move: every piece whole, or the header and the changed regions. */
        List<ByteBuffer> regions(List<ByteBuffer> pieces) {
            if (base == 0) {
                return pieces;
            }
            List<ByteBuffer> regions = new ArrayList<>(1 + runs.length / 3);
            regions.add(pieces.getFirst());
            for (int i = 0; i < runs.length; i += 3) {
                regions.add(pieces.get((int) runs[i]).slice((int) runs[i + 1], (int) runs[i + 2]));
            }
            return regions;
        }
    }

    private Announcement receiveAnnouncement(int source, int tag, long epoch) throws MPIException {
        Status status = comm.probe(source, tag);
        int count = status.getCount(MPI.LONG);
        LongBuffer in = MPI.newLongBuffer(count);
        comm.recv(in, count, MPI.LONG, source, tag);
        Announcement announced = Announcement.decode(in, count);
        if (announced.epoch() != epoch) {
            throw new IllegalStateException("rank " + source + " sent its part of epoch " + announced.epoch() + " for epoch " + epoch);
        }
        return announced;
    }

    /**
     * The pieces {@code source}'s announced part will arrive in: those of {@code reuse} (may be
     * null) if they have the same sizes, else room made ahead ({@code intoRoom}), else new ones.
     */
    private Held provide(int source, Announcement announced, Held reuse, boolean intoRoom) {
        long[] sizes = announced.sizes();
        boolean same = reuse != null && reuse.pieces().size() == sizes.length;
        for (int i = 0; same && i < sizes.length; i++) {
            same = reuse.pieces().get(i).capacity() == sizes[i];
        }
        if (same) {
            return new Held(source, announced.epoch(), reuse.pieces().stream().map(ByteBuffer::clear).toList());
        }
        if (intoRoom) {
            List<ByteBuffer> pieces = room.take(sizes);
            if (pieces != null) {
                return new Held(source, announced.epoch(), pieces);
            }
        }
        List<ByteBuffer> fresh = new ArrayList<>(sizes.length);
        for (long size : sizes) {
            fresh.add(ByteBuffer.allocateDirect(Math.toIntExact(size)));
        }
        return new Held(source, announced.epoch(), fresh);
    }
}
