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
import java.util.logging.Logger;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import mpi.Request;
import org.mpirunft.bridge.RankListener;
import org.mpirunft.bridge.state.CorruptPartException;
import org.mpirunft.bridge.state.Snapshot;
import org.mpirunft.bridge.storage.EpochManifest;
import org.mpirunft.bridge.ulfm.Ulfm;

/**
 * The XOR level (SCR's XOR): the ranks form sets of k ranks on k different nodes, and each
 * rank keeps, in memory, the parity of one k-1-th of the others' parts instead of a whole copy
 * of one of them. A set rebuilds any one lost member's part from the others' own parts and their
 * parities; two members of one set lost together lose the epoch at this level, which then falls
 * back to a level that holds it, as the partner level does.
 *
 * <p>Layout: a part (its file bytes: header, then the entries) is cut into segments of
 * {@code unit} bytes, the last padded with zeros. Segments go round-robin to the set's other
 * members: stripe {@code q} of member {@code i} has k-1 segments, and its segment for member
 * {@code j} is {@code q(k-1) + ((j - i - 1) mod k)}. Member {@code j} holds, for each stripe, the
 * XOR of the segments the others meant for it: an MPI reduce with BXOR, rooted at {@code j}, one
 * per stripe and member. Rebuilding member {@code m}: for each stripe and each {@code j != m},
 * member {@code j} gives its parity, every other survivor its own segment for {@code j}, and the
 * reduce to {@code m} leaves exactly {@code m}'s segment for {@code j}. Segments that lie inside
 * one piece of the snapshot go to MPI as they are; only those across a piece's end are copied.
 *
 * <p>Memory: a rank holds about 1/(k-1) of a part per epoch kept, where the partner level holds
 * a whole part. The price is traffic: every member's whole part moves at every epoch (parity is
 * not built from changed blocks), and a rebuild reads every survivor of the set. Like the partner
 * level it runs on a duplicate of the world and is owned by the rank's main thread.
 */
final class XorSets {
    private static final Logger LOG = Logger.getLogger(XorSets.class.getName());
    /** The largest segment: one reduce moves at most this much, so parts of any size fit Java's buffers. */
    static final int MAX_UNIT = 4 << 20;
    /** The smallest set: with two members, parity is a copy (the partner level does that better). */
    static final int MIN_SET = 3;

    private final int rank;
    private final RankListener listener;
    private final int setSize;
    private Intracomm world;
    private Intracomm comm;
    /** This rank's set in {@link #comm}'s world, by ascending rank; null if it has none. */
    private Intracomm setComm;
    private List<Integer> members = List.of();
    /** The world the last rebuild ran on, and its duplicate. */
    private Intracomm restoreWorld;
    private Intracomm restoreComm;
    private final List<Request> inFlight = new ArrayList<>();
    /** Buffers the reduces under way read from or write to: referenced until they complete. */
    private final List<Object> pinned = new ArrayList<>();
    private Held incoming;
    /** This rank's parity, by epoch. */
    private final TreeMap<Long, Held> held = new TreeMap<>();
    /** Parity of an epoch no longer needed, whose buffers the next epoch's of the same size reuses. */
    private Held reusable;
    private long lastSentBytes;
    /** Whether the parity's size was logged: once per process, what the level costs this rank's memory. */
    private boolean toldMemory;

    /**
     * This rank's parity of one epoch, with what a rebuild needs to know of the set as it was:
     * the members (ascending ranks), the parts' lengths, the segment size.
     */
    record Held(long epoch, List<Integer> members, long[] lengths, int unit, List<ByteBuffer> stripes) {
        long bytes() {
            return (long) stripes.size() * unit;
        }
    }

    int setSize() {
        return setSize;
    }

    /** {@code listener}: the program's, told of each rebuild of this rank's part by its set. */
    XorSets(int rank, int setSize, RankListener listener) {
        if (setSize < MIN_SET) {
            throw new IllegalArgumentException("an XOR set needs at least " + MIN_SET + " nodes, got " + setSize);
        }
        this.rank = rank;
        this.setSize = setSize;
        this.listener = listener;
    }

    /**
     * The sets, each a list of ascending ranks on distinct nodes: the ranks at the same position
     * on their nodes (nodes in the order they first appear among the ranks), cut into groups of
     * about {@code setSize} (sizes from setSize to 2*setSize-1, as even as they come). A position
     * held on fewer than {@link #MIN_SET} nodes forms no set: its ranks are in none.
     */
    static List<List<Integer>> setsOf(List<String> nodeOfRank, int setSize) {
        Map<String, List<Integer>> ranksByNode = new LinkedHashMap<>();
        for (int r = 0; r < nodeOfRank.size(); r++) {
            ranksByNode.computeIfAbsent(nodeOfRank.get(r), n -> new ArrayList<>()).add(r);
        }
        TreeMap<Integer, List<Integer>> byPosition = new TreeMap<>();
        for (List<Integer> ranks : ranksByNode.values()) {
            for (int p = 0; p < ranks.size(); p++) {
                byPosition.computeIfAbsent(p, x -> new ArrayList<>()).add(ranks.get(p));
            }
        }
        List<List<Integer>> sets = new ArrayList<>();
        for (List<Integer> ranks : byPosition.values()) {
            if (ranks.size() < MIN_SET) {
                continue;
            }
            int count = Math.max(1, ranks.size() / setSize);
            for (int g = 0; g < count; g++) {
                List<Integer> set = new ArrayList<>(ranks.subList(g * ranks.size() / count, (g + 1) * ranks.size() / count));
                set.sort(null);
                sets.add(List.copyOf(set));
            }
        }
        return List.copyOf(sets);
    }

    /** Whether every rank is in a set: the level is used for an epoch only then, on every rank alike. */
    static boolean coversAll(List<String> nodeOfRank, int setSize) {
        return setsOf(nodeOfRank, setSize).stream().mapToInt(List::size).sum() == nodeOfRank.size();
    }

    /** The segment size for a set whose longest part has {@code longest} bytes: whole longs, at most {@link #MAX_UNIT}. */
    static int unitFor(long longest, int k) {
        long perMember = Math.ceilDiv(Math.max(longest, 1), k - 1);
        return (int) Math.min(MAX_UNIT, Math.ceilDiv(perMember, 8) * 8);
    }

    /** How many stripes a set with parts of at most {@code longest} bytes has. */
    static int stripesFor(long longest, int unit, int k) {
        return (int) Math.ceilDiv(Math.ceilDiv(Math.max(longest, 1), unit), k - 1);
    }

    /** The index of member {@code i}'s segment that member {@code j} (not i) keeps the parity of in stripe {@code q}. */
    static long segmentFor(int i, int j, int q, int k) {
        return (long) q * (k - 1) + Math.floorMod(j - i - 1, k);
    }

    /** Collective over {@code current}: duplicates it and makes this rank's set communicator, if it is a new world. */
    void useWorld(Intracomm current, List<String> nodeOfRank) throws MPIException {
        if (current == world) {
            return;
        }
        Intracomm duplicate = current.dup();
        duplicate.setErrhandler(MPI.ERRORS_RETURN);
        List<Integer> mine = List.of();
        for (List<Integer> set : setsOf(nodeOfRank, setSize)) {
            if (set.contains(rank)) {
                mine = set;
            }
        }
        setComm = split(duplicate, mine);
        world = current;
        comm = duplicate;
        members = mine;
    }

    /** Collective over {@code over}: this rank's set as a communicator (ranks in ascending order); null if it is in none. */
    private static Intracomm split(Intracomm over, List<Integer> set) throws MPIException {
        Intracomm part = over.split(set.isEmpty() ? MPI.UNDEFINED : set.getFirst(), over.getRank());
        if (part != null && !part.isNull()) {
            part.setErrhandler(MPI.ERRORS_RETURN);
            return part;
        }
        return null;
    }

    /**
     * At the safe point of a checkpoint, on every rank of a set: exchanges the parts' lengths and
     * starts the reduces that leave this rank its parity of {@code snapshot}'s epoch (captured
     * direct). The data moves while the program computes, until {@link #finish}.
     */
    void start(Snapshot snapshot) throws MPIException {
        inFlight.clear();
        pinned.clear();
        incoming = null;
        lastSentBytes = 0;
        if (setComm == null) {
            return;
        }
        int k = members.size();
        int me = members.indexOf(rank);
        List<ByteBuffer> pieces = snapshot.pieces();
        long[] lengths = new long[k];
        setComm.allGather(new long[] {snapshot.sizeInBytes()}, 1, MPI.LONG, lengths, 1, MPI.LONG);
        long longest = java.util.Arrays.stream(lengths).max().orElseThrow();
        int unit = unitFor(longest, k);
        int stripes = stripesFor(longest, unit, k);
        Held parity = parityBuffers(snapshot.epoch(), lengths, unit, stripes);
        ByteBuffer zeros = ByteBuffer.allocateDirect(unit);
        ByteBuffer scratch = ByteBuffer.allocateDirect(unit);
        pinned.add(zeros);
        pinned.add(scratch);
        Segments own = new Segments(pieces, snapshot.sizeInBytes(), unit);
        for (int q = 0; q < stripes; q++) {
            for (int j = 0; j < k; j++) {
                if (j == me) {
                    inFlight.add(setComm.iReduce(zeros, parity.stripes().get(q), unit / 8, MPI.LONG, MPI.BXOR, j));
                } else {
                    ByteBuffer segment = own.segment(segmentFor(me, j, q, k), zeros);
                    pinned.add(segment);
                    inFlight.add(setComm.iReduce(segment, scratch, unit / 8, MPI.LONG, MPI.BXOR, j));
                    lastSentBytes += unit;
                }
            }
        }
        incoming = parity;
    }

    /** Bytes this rank put into the set's reduces for the last epoch. */
    long lastSentBytes() {
        return lastSentBytes;
    }

    private Held parityBuffers(long epoch, long[] lengths, int unit, int stripes) {
        Held reuse = reusable;
        reusable = null;
        List<ByteBuffer> buffers;
        if (reuse != null && reuse.unit() == unit && reuse.stripes().size() == stripes) {
            buffers = reuse.stripes().stream().map(ByteBuffer::clear).toList();
        } else {
            buffers = new ArrayList<>(stripes);
            for (int q = 0; q < stripes; q++) {
                buffers.add(ByteBuffer.allocateDirect(unit));
            }
        }
        return new Held(epoch, members, lengths, unit, List.copyOf(buffers));
    }

    /** Waits for the reduces {@link #start} began; afterwards this rank holds its parity of the epoch. Throws as MPI does if a member failed. */
    void finish() throws MPIException {
        IdleWait.awaitAll(inFlight, comm);
        java.lang.ref.Reference.reachabilityFence(pinned);
        inFlight.clear();
        pinned.clear();
        if (incoming != null) {
            held.put(incoming.epoch(), incoming);
            if (!toldMemory) {
                toldMemory = true;
                Held h = incoming;
                long longest = java.util.Arrays.stream(h.lengths()).max().orElse(0);
                LOG.info(() -> String.format(Locale.ROOT, "rank %d: XOR set %s: parity=%d bytes per epoch here, for parts of up to %d bytes",
                        rank, h.members(), h.bytes(), longest));
            }
        }
        incoming = null;
    }

    /** Epoch {@code epoch} committed: older parity is of no use; its buffers take the next epoch's. */
    void committed(long epoch) {
        SortedMap<Long, Held> older = held.headMap(epoch);
        older.values().forEach(h -> reusable = h);
        older.clear();
    }

    /** The job rolled back to {@code epoch}: newer parity is discarded, reduces under way are abandoned with their world. */
    void rolledBackTo(long epoch) {
        held.tailMap(epoch, false).clear();
        reusable = null;
        inFlight.clear();
        pinned.clear();
        incoming = null;
        if (comm != null) {
            try {
                Ulfm.revoke(comm);
            } catch (RuntimeException e) {
                LOG.fine(() -> "rank " + rank + ": revoking the old XOR communicator: " + e.getMessage());
            }
        }
        world = null;
        comm = null;
        setComm = null;
        members = List.of();
    }

    /**
     * Collective over {@code current}: every set that lost exactly one member's part of
     * {@code manifest}'s epoch ({@code own} empty there) rebuilds it at that member. Empty unless
     * this rank needed its part and its set could rebuild it.
     */
    Optional<Snapshot> restore(Intracomm current, EpochManifest manifest, Optional<Snapshot> own) throws MPIException {
        if (current != restoreWorld) {
            // One duplicate per world for every epoch a rollback tries, apart from the program's traffic.
            Intracomm duplicate = current.dup();
            duplicate.setErrhandler(MPI.ERRORS_RETURN);
            restoreWorld = current;
            restoreComm = duplicate;
        }
        return restoreOver(restoreComm, manifest, own);
    }

    private Optional<Snapshot> restoreOver(Intracomm all, EpochManifest manifest, Optional<Snapshot> own) throws MPIException {
        int size = all.getSize();
        Held parity = held.get(manifest.epoch());
        // Per rank, as any member of its set knows it: set id + 1, part length + 1, needs its part, holds its parity.
        LongBuffer known = MPI.newLongBuffer(4 * size);
        if (parity != null) {
            for (int i = 0; i < parity.members().size(); i++) {
                int r = parity.members().get(i);
                if (r < size) {
                    known.put(r, parity.members().getFirst() + 1);
                    known.put(size + r, parity.lengths()[i] + 1);
                }
            }
            known.put(3 * size + rank, 1);
        }
        known.put(2 * size + rank, own.isEmpty() ? 1 : 0);
        all.allReduce(known, 4 * size, MPI.LONG, MPI.MAX);
        List<Integer> set = new ArrayList<>();
        long setId = known.get(rank);
        for (int r = 0; setId > 0 && r < size; r++) {
            if (known.get(r) == setId) {
                set.add(r);
            }
        }
        List<Integer> needing = set.stream().filter(r -> known.get(2 * size + r) == 1).toList();
        boolean rebuilds = set.size() >= MIN_SET && needing.size() == 1
                && set.stream().allMatch(r -> needing.contains(r) || known.get(3 * size + r) == 1);
        Intracomm setComm = split(all, rebuilds ? set : List.of());
        if (!rebuilds) {
            if (own.isEmpty()) {
                String why = set.isEmpty() ? "no XOR set holds parity of it"
                        : needing.size() > 1 ? "ranks " + needing + " of its XOR set " + set + " lost theirs too"
                        : "a member of its XOR set " + set + " holds no parity of it";
                LOG.warning(() -> "rank " + rank + ": cannot rebuild its part of epoch " + manifest.epoch() + ": " + why);
            }
            return Optional.empty();
        }
        try {
            return rebuild(setComm, set, needing.getFirst(), known, size, manifest, own, parity);
        } finally {
            setComm.free();
        }
    }

    private Optional<Snapshot> rebuild(Intracomm setComm, List<Integer> set, int lost, LongBuffer known, int size,
                                       EpochManifest manifest, Optional<Snapshot> own, Held parity) throws MPIException {
        int k = set.size();
        int me = set.indexOf(rank);
        int m = set.indexOf(lost);
        long[] lengths = new long[k];
        for (int i = 0; i < k; i++) {
            lengths[i] = known.get(size + set.get(i)) - 1;
        }
        long longest = java.util.Arrays.stream(lengths).max().orElseThrow();
        int unit = unitFor(longest, k);
        int stripes = stripesFor(longest, unit, k);
        long lostSegments = Math.ceilDiv(Math.max(lengths[m], 1), unit);
        ByteBuffer zeros = ByteBuffer.allocateDirect(unit);
        ByteBuffer scratch = ByteBuffer.allocateDirect(unit);
        List<Object> using = new ArrayList<>(List.of(zeros, scratch));
        Segments mine = me == m ? null : new Segments(own.orElseThrow().pieces(), lengths[me], unit);
        ByteBuffer[] rebuilt = me == m ? new ByteBuffer[(int) lostSegments] : null;
        List<Request> requests = new ArrayList<>();
        long start = System.nanoTime();
        for (int q = 0; q < stripes; q++) {
            for (int j = 0; j < k; j++) {
                if (j == m) {
                    continue;
                }
                long segment = segmentFor(m, j, q, k);
                if (segment >= lostSegments) {
                    continue;
                }
                if (me == m) {
                    ByteBuffer into = ByteBuffer.allocateDirect(unit);
                    rebuilt[(int) segment] = into;
                    requests.add(setComm.iReduce(zeros, into, unit / 8, MPI.LONG, MPI.BXOR, m));
                } else {
                    ByteBuffer give = me == j ? parity.stripes().get(q).duplicate().clear() : mine.segment(segmentFor(me, j, q, k), zeros);
                    using.add(give);
                    requests.add(setComm.iReduce(give, scratch, unit / 8, MPI.LONG, MPI.BXOR, m));
                }
            }
        }
        IdleWait.awaitAll(requests, setComm);
        java.lang.ref.Reference.reachabilityFence(using);
        if (me != m) {
            return Optional.empty();
        }
        long nanos = System.nanoTime() - start;
        List<ByteBuffer> pieces = new ArrayList<>(rebuilt.length);
        long left = lengths[m];
        for (ByteBuffer segment : rebuilt) {
            int length = (int) Math.min(unit, left);
            pieces.add(segment.slice(0, length));
            left -= length;
        }
        try {
            Snapshot snapshot = Snapshot.fromPieces(pieces, manifest.part(rank).bytes(), manifest.part(rank).crc32c());
            listener.stateTransferred(new RankListener.StateTransfer(rank, manifest.epoch(), rank, lengths[m], nanos,
                    RankListener.StateTransfer.Source.XOR));
            LOG.fine(() -> String.format(Locale.ROOT, "rank %d: its part of epoch %d (%d bytes) rebuilt by its XOR set %s in %.1f ms",
                    rank, manifest.epoch(), lengths[m], set, nanos / 1e6));
            return Optional.of(snapshot);
        } catch (CorruptPartException e) {
            LOG.warning(() -> "rank " + rank + ": its part of epoch " + manifest.epoch() + " rebuilt by XOR set " + set
                    + " is unusable: " + e.getMessage());
            return Optional.empty();
        }
    }

    /**
     * A part's bytes as segments of {@code unit}: a view where a segment lies inside one piece,
     * else a copy (across a piece's end, or padded with zeros past the part's end).
     */
    static final class Segments {
        private final List<ByteBuffer> pieces;
        private final long[] starts;
        private final long length;
        private final int unit;

        Segments(List<ByteBuffer> pieces, long length, int unit) {
            this.pieces = pieces;
            this.length = length;
            this.unit = unit;
            this.starts = new long[pieces.size() + 1];
            for (int p = 0; p < pieces.size(); p++) {
                starts[p + 1] = starts[p] + pieces.get(p).capacity();
            }
        }

        /** Segment {@code index}; {@code zeros} (unit bytes, never written) past the part's end. */
        ByteBuffer segment(long index, ByteBuffer zeros) {
            long from = index * unit;
            if (from >= length) {
                return zeros;
            }
            int p = pieceAt(from);
            long inPiece = from - starts[p];
            if (inPiece + unit <= pieces.get(p).capacity()) {
                return pieces.get(p).slice((int) inPiece, unit);
            }
            ByteBuffer copy = ByteBuffer.allocateDirect(unit);
            long at = from;
            long end = Math.min(from + unit, length);
            while (at < end) {
                p = pieceAt(at);
                int offset = (int) (at - starts[p]);
                int n = (int) Math.min(end - at, pieces.get(p).capacity() - offset);
                copy.put((int) (at - from), pieces.get(p), offset, n);
                at += n;
            }
            return copy.clear();
        }

        private int pieceAt(long offset) {
            int p = java.util.Arrays.binarySearch(starts, offset);
            // An exact hit is the start of piece p (or of the next, when a piece is empty).
            p = p >= 0 ? p : -p - 2;
            while (p < pieces.size() - 1 && starts[p + 1] <= offset) {
                p++;
            }
            return p;
        }
    }
}
