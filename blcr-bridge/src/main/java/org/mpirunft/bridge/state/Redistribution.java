package org.mpirunft.bridge.state;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * Rebuilds one rank's state from an epoch that another rank count wrote (issue 24): its part of
 * each distributed array ({@link Distributed}) from the runs of the old parts that overlap it,
 * replicated arrays and scalars from the old rank 0, per-rank arrays only where the program
 * handles the resize ({@link RankState#onResize}), as the program set them up. The result is an
 * ordinary snapshot of the new layout, which {@link Snapshot#restoreInto} puts in place.
 */
public final class Redistribution {
    private Redistribution() {
    }

    /** The old ranks whose parts rank {@code rank} of {@code ranks} reads to rebuild its state from an epoch of {@code fromRanks}. */
    public static SortedSet<Integer> sources(RankState state, int fromRanks, int rank, int ranks) {
        SortedSet<Integer> sources = new TreeSet<>();
        // The scalars and replicated arrays are the old rank 0's.
        sources.add(0);
        for (StateEntry entry : state.entries()) {
            Distributed<?> part = state.distributedOf(entry.name());
            if (part != null) {
                for (BlockDistribution.Piece piece : part.piecesFrom(fromRanks, rank, ranks)) {
                    sources.add(piece.fromRank());
                }
            }
        }
        return sources;
    }

    /**
     * Rank {@code rank} of {@code ranks}'s snapshot of the epoch whose parts, by old rank, are
     * {@code parts} (at least {@link #sources}), written by {@code fromRanks} ranks.
     *
     * @throws StateMismatchException if the parts do not hold what the rank registered, or the
     *                                rank has per-rank arrays and no resize listener
     */
    public static Snapshot assemble(RankState state, int fromRanks, int rank, int ranks, Map<Integer, Snapshot> parts) {
        Snapshot first = part(parts, 0);
        Snapshot.PartHeader old = first.header();
        List<StateEntry> live = state.entries();
        if (live.size() != old.entries().size()) {
            throw new StateMismatchException("epoch " + old.epoch() + " of " + fromRanks + " ranks has " + old.entries().size()
                    + " entries, the rank registered " + live.size());
        }
        List<Snapshot.PartHeader.Entry> layout = new ArrayList<>(live.size());
        List<List<ByteBuffer>> data = new ArrayList<>(live.size());
        for (int i = 0; i < live.size(); i++) {
            StateEntry entry = live.get(i);
            Snapshot.PartHeader.Entry saved = old.entries().get(i);
            if (!saved.name().equals(entry.name()) || saved.type() != entry.type()) {
                throw new StateMismatchException("checkpoint entry " + i + " is '" + saved.name() + "' " + saved.type()
                        + ", the rank registered '" + entry.name() + "' " + entry.type());
            }
            switch (state.kindOf(entry.name())) {
                case DISTRIBUTED -> {
                    Distributed<?> part = state.distributedOf(entry.name());
                    part.shape().forEach((dimension, value) -> {
                        Long written = old.longs().get(RankState.shapeKey(entry.name(), dimension));
                        if (written == null || written.longValue() != value) {
                            throw new StateMismatchException("'" + entry.name() + "' in epoch " + old.epoch() + " has " + dimension + " "
                                    + (written == null ? "unknown (it was not registered distributed so)" : written)
                                    + ", the rank registered " + value);
                        }
                    });
                    layout.add(new Snapshot.PartHeader.Entry(entry.name(), entry.type(), (int) part.sizeOf(rank, ranks)));
                    data.add(relaid(part, i, fromRanks, rank, ranks, parts));
                }
                case REPLICATED -> {
                    layout.add(saved);
                    data.add(first.chunksOf(i));
                }
                case PER_RANK -> {
                    if (!state.handlesResize()) {
                        throw new StateMismatchException("epoch " + old.epoch() + " was written by " + fromRanks + " ranks, not " + ranks
                                + ", and " + state.resizeRefusal().orElseThrow());
                    }
                    // The program's listener rebuilds it; until then it holds what the program set up.
                    layout.add(new Snapshot.PartHeader.Entry(entry.name(), entry.type(), entry.length()));
                    data.add(Snapshot.chunksOf(entry));
                }
            }
        }
        Snapshot.PartHeader header = new Snapshot.PartHeader(old.epoch(), rank, old.iteration(), old.longs(), old.doubles(),
                List.copyOf(layout));
        return Snapshot.of(header, data);
    }

    /** This rank's part in the layout of {@code ranks}, copied from the old parts of the layout of {@code fromRanks}. */
    private static List<ByteBuffer> relaid(Distributed<?> part, int entry, int fromRanks, int rank, int ranks, Map<Integer, Snapshot> parts) {
        int elementBytes = part.type().elementBytes();
        List<ByteBuffer> block = allocate(part.sizeOf(rank, ranks) * elementBytes, elementBytes);
        for (BlockDistribution.Piece piece : part.piecesFrom(fromRanks, rank, ranks)) {
            Snapshot source = part(parts, piece.fromRank());
            Snapshot.PartHeader.Entry saved = source.header().entries().get(entry);
            long expected = part.sizeOf(piece.fromRank(), fromRanks);
            if (saved.length() != expected) {
                throw new StateMismatchException("rank " + piece.fromRank() + "'s part of '" + part.name() + "' in epoch "
                        + source.epoch() + " has " + saved.length() + " elements; its layout over " + fromRanks + " ranks gives it " + expected);
            }
            copy(source.chunksOf(entry), piece.fromOffset() * elementBytes, block, piece.toOffset() * elementBytes,
                    piece.length() * elementBytes);
        }
        return block;
    }

    private static Snapshot part(Map<Integer, Snapshot> parts, int rank) {
        Snapshot part = parts.get(rank);
        if (part == null) {
            throw new IllegalArgumentException("the part of old rank " + rank + " is needed and was not read");
        }
        return part;
    }

    /** Zeroed chunks of {@code bytes} in all, each a whole number of elements. */
    private static List<ByteBuffer> allocate(long bytes, int elementBytes) {
        List<ByteBuffer> chunks = new ArrayList<>();
        long left = bytes;
        long most = Snapshot.CHUNK_BYTES - Snapshot.CHUNK_BYTES % elementBytes;
        do {
            int size = (int) Math.min(most, left);
            chunks.add(ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN));
            left -= size;
        } while (left > 0);
        return chunks;
    }

    /** Copies {@code bytes} bytes from offset {@code from} of one chunk list to offset {@code to} of another. */
    private static void copy(List<ByteBuffer> source, long from, List<ByteBuffer> target, long to, long bytes) {
        while (bytes > 0) {
            ByteBuffer in = at(source, from);
            ByteBuffer out = at(target, to);
            int run = (int) Math.min(bytes, Math.min(in.remaining(), out.remaining()));
            out.put(in.limit(in.position() + run));
            from += run;
            to += run;
            bytes -= run;
        }
    }

    /** A view of the chunk list from byte {@code offset} to the end of the chunk that holds it. */
    private static ByteBuffer at(List<ByteBuffer> chunks, long offset) {
        long start = 0;
        for (ByteBuffer chunk : chunks) {
            if (offset < start + chunk.capacity()) {
                return chunk.duplicate().clear().position((int) (offset - start));
            }
            start += chunk.capacity();
        }
        throw new IndexOutOfBoundsException("byte " + offset + " of " + start);
    }
}
