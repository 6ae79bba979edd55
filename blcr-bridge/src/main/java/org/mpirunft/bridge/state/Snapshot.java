package org.mpirunft.bridge.state;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.channels.WritableByteChannel;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32C;

/**
 * An immutable in-memory copy of a rank's state at one safe point. Taking it is the only part
 * of a checkpoint the rank's compute waits for; writing it to disk happens afterwards, off the
 * compute thread. It restores into the registered arrays in place.
 *
 * <p>Part layout, little-endian: a header ({@link PartHeader}) then each entry's raw elements
 * in registration order. Integrity is the CRC32C of the whole part, kept in the epoch's
 * manifest and checked before anything of a part read from disk is used.
 *
 * <p>A snapshot that is no longer needed can be handed to the next {@link #capture} to be
 * overwritten: a rank with a large state then keeps a fixed set of buffers instead of leaving
 * a state-sized garbage copy per checkpoint, which for NPB MG class C (905 MB per rank) pushed
 * four JVMs on one machine into the kernel's OOM killer. A recycled snapshot refuses all use.
 */
public final class Snapshot {
    /** Element data is held in chunks, so arrays of any size fit in ByteBuffers. */
    static final int CHUNK_BYTES = 1 << 30;

    private final PartHeader header;
    private final byte[] encodedHeader;
    private final List<List<ByteBuffer>> data;
    private volatile boolean recycled;

    private Snapshot(PartHeader header, byte[] encodedHeader, List<List<ByteBuffer>> data) {
        this.header = header;
        this.encodedHeader = encodedHeader;
        this.data = data;
    }

    /** Copies {@code state} into memory; {@code iteration} is where a rollback to it resumes. */
    public static Snapshot capture(RankState state, long epoch, int rank, long iteration) {
        return capture(state, epoch, rank, iteration, null);
    }

    /**
     * As {@link #capture(RankState, long, int, long)}, overwriting {@code reuse}'s buffers where
     * a chunk has the same size. {@code reuse} (may be null) must be out of every other use, a
     * write included: it is unusable afterwards.
     */
    public static Snapshot capture(RankState state, long epoch, int rank, long iteration, Snapshot reuse) {
        return capture(state, epoch, rank, iteration, reuse, false);
    }

    /**
     * As {@link #capture(RankState, long, int, long, Snapshot)}; with {@code direct}, into
     * buffers outside the Java heap, which MPI can send as they are (a partner copy).
     */
    public static Snapshot capture(RankState state, long epoch, int rank, long iteration, Snapshot reuse, boolean direct) {
        List<List<ByteBuffer>> old = List.of();
        if (reuse != null) {
            reuse.markRecycled();
            old = reuse.data;
        }
        List<StateEntry> entries = state.entries();
        List<PartHeader.Entry> layout = new ArrayList<>(entries.size());
        List<List<ByteBuffer>> data = new ArrayList<>(entries.size());
        for (int i = 0; i < entries.size(); i++) {
            StateEntry entry = entries.get(i);
            layout.add(new PartHeader.Entry(entry.name(), entry.type(), entry.length()));
            data.add(copyOut(entry, i < old.size() ? old.get(i) : null, direct));
        }
        PartHeader header = new PartHeader(epoch, rank, iteration,
                new LinkedHashMap<>(state.scalars().longs()), new LinkedHashMap<>(state.scalars().doubles()), layout);
        return new Snapshot(header, header.encode(), data);
    }

    public long epoch() {
        return header.epoch();
    }

    PartHeader header() {
        return header;
    }

    /** A snapshot of {@code header}'s layout over {@code data}, one chunk list per entry (a redistributed epoch). */
    static Snapshot of(PartHeader header, List<List<ByteBuffer>> data) {
        return new Snapshot(header, header.encode(), List.copyOf(data));
    }

    /** Entry {@code entry}'s elements, in chunks. */
    List<ByteBuffer> chunksOf(int entry) {
        requireLive();
        return data.get(entry);
    }

    /** A copy of a live entry's elements, in chunks. */
    static List<ByteBuffer> chunksOf(StateEntry entry) {
        return copyOut(entry, null, false);
    }

    /**
     * Bytes {@code [offset, offset + length)} of entry {@code entry}, as a view (writable if the
     * snapshot's buffers are). A block never crosses a chunk: chunks are whole multiples of
     * {@link DeltaPart#BLOCK_BYTES} but for each entry's last.
     */
    ByteBuffer block(int entry, long offset, int length) {
        requireLive();
        long start = 0;
        for (ByteBuffer chunk : data.get(entry)) {
            if (offset < start + chunk.capacity()) {
                int at = (int) (offset - start);
                if (at + length > chunk.capacity()) {
                    throw new IllegalStateException("block at " + offset + " of entry " + entry + " crosses a chunk");
                }
                return chunk.slice(at, length).order(ByteOrder.LITTLE_ENDIAN);
            }
            start += chunk.capacity();
        }
        throw new IllegalArgumentException("entry " + entry + " has no byte " + offset);
    }

    /** A writable copy of {@code base}'s state under {@code header} (a later epoch of the same layout). */
    static Snapshot copyOf(PartHeader header, Snapshot base) {
        List<List<ByteBuffer>> data = new ArrayList<>(base.data.size());
        for (List<ByteBuffer> chunks : base.data) {
            List<ByteBuffer> copies = new ArrayList<>(chunks.size());
            for (ByteBuffer chunk : chunks) {
                copies.add(ByteBuffer.allocate(chunk.capacity()).order(ByteOrder.LITTLE_ENDIAN).put(chunk.duplicate().clear()).clear());
            }
            data.add(copies);
        }
        return new Snapshot(header, header.encode(), data);
    }

    public int rank() {
        return header.rank();
    }

    /** The iteration a rollback to this snapshot resumes at. */
    public long iteration() {
        return header.iteration();
    }

    /** Whether this snapshot's buffers went to a later capture. */
    public boolean isRecycled() {
        return recycled;
    }

    private void markRecycled() {
        if (recycled) {
            throw new IllegalStateException("snapshot of rank " + rank() + " epoch " + epoch() + " was already recycled");
        }
        recycled = true;
    }

    private void requireLive() {
        if (recycled) {
            throw new IllegalStateException("snapshot of rank " + rank() + " epoch " + epoch() + " was recycled; its buffers hold a later state");
        }
    }

    public long sizeInBytes() {
        long bytes = encodedHeader.length;
        for (List<ByteBuffer> chunks : data) {
            for (ByteBuffer chunk : chunks) {
                bytes += chunk.capacity();
            }
        }
        return bytes;
    }

    /** Writes the part and returns its CRC32C; the channel is neither forced nor closed. */
    public long writeTo(WritableByteChannel channel) throws IOException {
        requireLive();
        CRC32C crc = new CRC32C();
        writeFully(channel, ByteBuffer.wrap(encodedHeader), crc);
        for (List<ByteBuffer> chunks : data) {
            for (ByteBuffer chunk : chunks) {
                writeFully(channel, chunk.duplicate().clear(), crc);
            }
        }
        return crc.getValue();
    }

    /** The part's CRC32C, as {@link #writeTo} computes it, without writing it anywhere. */
    public long crc32c() {
        requireLive();
        CRC32C crc = new CRC32C();
        for (ByteBuffer piece : pieces()) {
            crc.update(piece);
        }
        return crc.getValue();
    }

    /**
     * The part's bytes, in the order {@link #writeTo} writes them, as buffers MPI can send if the
     * snapshot was captured {@code direct}: the header (copied into a buffer of its own), then
     * each chunk. Each call returns fresh views; the snapshot must stay live while they are used.
     */
    public List<ByteBuffer> pieces() {
        requireLive();
        List<ByteBuffer> pieces = new ArrayList<>();
        pieces.add(ByteBuffer.allocateDirect(encodedHeader.length).put(encodedHeader).flip());
        for (List<ByteBuffer> chunks : data) {
            for (ByteBuffer chunk : chunks) {
                pieces.add(chunk.duplicate().clear());
            }
        }
        return pieces;
    }

    /**
     * Reads a part of exactly {@code expectedBytes} bytes and checks it against
     * {@code expectedCrc} before anything is parsed, so a damaged part is refused whole.
     */
    public static Snapshot readFrom(FileChannel file, long expectedBytes, long expectedCrc) throws IOException {
        return parseChecked(checkedBytes(file, expectedBytes, expectedCrc));
    }

    /**
     * A part file's bytes, mapped, once its size is {@code expectedBytes} and its CRC32C
     * {@code expectedCrc}: what {@link #parse} and {@link #parseDelta} read, or, for a compressed
     * part, what is decompressed first.
     */
    public static List<ByteBuffer> checkedBytes(FileChannel file, long expectedBytes, long expectedCrc) throws IOException {
        List<ByteBuffer> raw = mapped(file, expectedBytes);
        checkCrc(raw, expectedCrc);
        return raw;
    }

    /** A full part whose bytes were checked already (a compressed file's CRC is of the compressed bytes). */
    public static Snapshot parse(List<ByteBuffer> raw) throws CorruptPartException {
        return parseChecked(raw);
    }

    /** A delta part whose bytes were checked already. */
    public static DeltaPart parseDelta(List<ByteBuffer> raw) throws CorruptPartException {
        return DeltaPart.read(raw);
    }

    /**
     * A part received in {@code raw} pieces (a partner's copy), checked like one read from disk:
     * its size and CRC32C before anything is parsed. The snapshot uses the pieces' memory.
     */
    public static Snapshot fromPieces(List<ByteBuffer> raw, long expectedBytes, long expectedCrc) throws CorruptPartException {
        long size = 0;
        for (ByteBuffer piece : raw) {
            size += piece.remaining();
        }
        if (size != expectedBytes) {
            throw new CorruptPartException("part has " + size + " bytes, manifest says " + expectedBytes);
        }
        checkCrc(raw, expectedCrc);
        return parseChecked(raw);
    }

    private static void checkCrc(List<ByteBuffer> raw, long expectedCrc) throws CorruptPartException {
        CRC32C crc = new CRC32C();
        for (ByteBuffer chunk : raw) {
            crc.update(chunk.duplicate());
        }
        if (crc.getValue() != expectedCrc) {
            throw new CorruptPartException(String.format("part CRC32C is %08x, manifest says %08x", crc.getValue(), expectedCrc));
        }
    }

    private static Snapshot parseChecked(List<ByteBuffer> raw) throws CorruptPartException {
        ChunkCursor cursor = new ChunkCursor(raw);
        PartHeader header = PartHeader.decode(cursor);
        byte[] encodedHeader = header.encode();
        List<List<ByteBuffer>> data = new ArrayList<>();
        for (PartHeader.Entry entry : header.entries()) {
            data.add(cursor.take((long) entry.length() * entry.type().elementBytes(), entry.type().elementBytes()));
        }
        if (cursor.remaining() != 0) {
            throw new CorruptPartException("part has " + cursor.remaining() + " bytes after its last entry");
        }
        return new Snapshot(header, encodedHeader, data);
    }

    /**
     * A file's part, mapped rather than read: the checksum pass and the restore read the page
     * cache's own pages, with no copy into a buffer of this process and no state-sized buffer to
     * allocate and zero. Parts are never changed after they are written (a new part is a new
     * file, renamed into place), so a mapping cannot see one change under it.
     */
    private static List<ByteBuffer> mapped(FileChannel file, long expectedBytes) throws IOException {
        long size = file.size();
        if (size < expectedBytes) {
            throw new CorruptPartException("part ends after " + size + " bytes, manifest says " + expectedBytes);
        }
        if (size > expectedBytes) {
            throw new CorruptPartException("part is longer than the " + expectedBytes + " bytes the manifest says");
        }
        List<ByteBuffer> raw = new ArrayList<>();
        for (long position = 0; position < size; position += CHUNK_BYTES) {
            raw.add(file.map(FileChannel.MapMode.READ_ONLY, position, Math.min(CHUNK_BYTES, size - position)));
        }
        return raw;
    }

    /**
     * Copies this snapshot into {@code state}'s arrays, which must be the same entries with the
     * same types and lengths. Nothing is written unless everything matches.
     */
    public void restoreInto(RankState state) {
        requireLive();
        List<StateEntry> live = state.entries();
        List<PartHeader.Entry> saved = header.entries();
        if (live.size() != saved.size()) {
            throw new StateMismatchException("checkpoint of rank " + rank() + " epoch " + epoch() + " has " + saved.size()
                    + " entries, the rank registered " + live.size());
        }
        List<Distributed<?>> relaid = new ArrayList<>();
        for (int i = 0; i < saved.size(); i++) {
            PartHeader.Entry s = saved.get(i);
            StateEntry l = live.get(i);
            Distributed<?> part = state.distributedOf(l.name());
            // A part of another layout (an epoch redistributed to this rank count) gets an array of its length.
            boolean relaidBlock = part != null && s.length() != l.length() && s.length() == part.sizeOf(state.rank(), state.ranks());
            if (!s.name().equals(l.name()) || s.type() != l.type() || (s.length() != l.length() && !relaidBlock)) {
                throw new StateMismatchException("checkpoint entry " + i + " is '" + s.name() + "' " + s.type() + "[" + s.length()
                        + "], the rank registered '" + l.name() + "' " + l.type() + "[" + l.length() + "]");
            }
            if (relaidBlock) {
                relaid.add(part);
            }
        }
        for (Distributed<?> part : relaid) {
            part.replaceWith(part.sizeOf(state.rank(), state.ranks()));
        }
        live = state.entries();
        for (int i = 0; i < saved.size(); i++) {
            copyIn(data.get(i), live.get(i));
        }
        state.scalars().replaceWith(header.longs(), header.doubles());
    }

    /** Copies the entry's elements into {@code reuse}'s chunks where their sizes match, else into new ones. */
    private static List<ByteBuffer> copyOut(StateEntry entry, List<ByteBuffer> reuse, boolean direct) {
        List<ByteBuffer> chunks = new ArrayList<>();
        int perChunk = CHUNK_BYTES / entry.type().elementBytes();
        int offset = 0;
        do {
            int count = Math.min(perChunk, entry.length() - offset);
            int bytes = count * entry.type().elementBytes();
            // A part read from disk may be chunked differently, and is mapped read-only: only a
            // writable chunk of the exact size is reused.
            ByteBuffer chunk = reuse != null && chunks.size() < reuse.size() && reuse.get(chunks.size()).capacity() == bytes
                    && !reuse.get(chunks.size()).isReadOnly() && reuse.get(chunks.size()).isDirect() == direct
                    ? reuse.get(chunks.size()).clear().order(ByteOrder.LITTLE_ENDIAN)
                    : (direct ? ByteBuffer.allocateDirect(bytes) : ByteBuffer.allocate(bytes)).order(ByteOrder.LITTLE_ENDIAN);
            Object array = entry.array();
            switch (entry.type()) {
                case BYTE -> chunk.put((byte[]) array, offset, count);
                case SHORT -> chunk.asShortBuffer().put((short[]) array, offset, count);
                case CHAR -> chunk.asCharBuffer().put((char[]) array, offset, count);
                case INT -> chunk.asIntBuffer().put((int[]) array, offset, count);
                case FLOAT -> chunk.asFloatBuffer().put((float[]) array, offset, count);
                case LONG -> chunk.asLongBuffer().put((long[]) array, offset, count);
                case DOUBLE -> chunk.asDoubleBuffer().put((double[]) array, offset, count);
            }
            chunks.add(chunk.clear());
            offset += count;
        } while (offset < entry.length());
        return chunks;
    }

    private static void copyIn(List<ByteBuffer> chunks, StateEntry entry) {
        int offset = 0;
        Object array = entry.array();
        for (ByteBuffer chunk : chunks) {
            ByteBuffer source = chunk.duplicate().clear().order(ByteOrder.LITTLE_ENDIAN);
            int count = source.capacity() / entry.type().elementBytes();
            switch (entry.type()) {
                case BYTE -> source.get((byte[]) array, offset, count);
                case SHORT -> source.asShortBuffer().get((short[]) array, offset, count);
                case CHAR -> source.asCharBuffer().get((char[]) array, offset, count);
                case INT -> source.asIntBuffer().get((int[]) array, offset, count);
                case FLOAT -> source.asFloatBuffer().get((float[]) array, offset, count);
                case LONG -> source.asLongBuffer().get((long[]) array, offset, count);
                case DOUBLE -> source.asDoubleBuffer().get((double[]) array, offset, count);
            }
            offset += count;
        }
    }

    private static void writeFully(WritableByteChannel channel, ByteBuffer buffer, CRC32C crc) throws IOException {
        crc.update(buffer.duplicate());
        while (buffer.hasRemaining()) {
            channel.write(buffer);
        }
    }

    /** The fixed part of a checkpoint part: identity, resume point, scalars and entry layout. */
    record PartHeader(long epoch, int rank, long iteration, Map<String, Long> longs, Map<String, Double> doubles,
                      List<Entry> entries) {
        static final int MAGIC = 0x5054464D; // the bytes "MFTP"
        static final int FORMAT_VERSION = 1;
        static final int MAX_NAME_BYTES = 4096;

        record Entry(String name, EntryType type, int length) {
        }

        byte[] encode() {
            ByteSink out = new ByteSink();
            out.putInt(MAGIC).putInt(FORMAT_VERSION).putLong(epoch).putInt(rank).putLong(iteration);
            out.putInt(longs.size());
            longs.forEach((name, value) -> out.putName(name).putLong(value));
            out.putInt(doubles.size());
            doubles.forEach((name, value) -> out.putName(name).putLong(Double.doubleToRawLongBits(value)));
            out.putInt(entries.size());
            for (Entry entry : entries) {
                out.putName(entry.name()).putByte(entry.type().code()).putInt(entry.length());
            }
            return out.toByteArray();
        }

        static PartHeader decode(ChunkCursor in) throws CorruptPartException {
            if (in.getInt() != MAGIC) {
                throw new CorruptPartException("not a checkpoint part (bad magic)");
            }
            int version = in.getInt();
            if (version != FORMAT_VERSION) {
                throw new CorruptPartException("part format version " + version + " is not supported (expected " + FORMAT_VERSION + ")");
            }
            long epoch = in.getLong();
            int rank = in.getInt();
            long iteration = in.getLong();
            Map<String, Long> longs = new LinkedHashMap<>();
            for (int i = in.getCount(); i > 0; i--) {
                longs.put(in.getName(MAX_NAME_BYTES), in.getLong());
            }
            Map<String, Double> doubles = new LinkedHashMap<>();
            for (int i = in.getCount(); i > 0; i--) {
                doubles.put(in.getName(MAX_NAME_BYTES), Double.longBitsToDouble(in.getLong()));
            }
            List<Entry> entries = new ArrayList<>();
            for (int i = in.getCount(); i > 0; i--) {
                String name = in.getName(MAX_NAME_BYTES);
                EntryType type;
                try {
                    type = EntryType.ofCode(in.getByte());
                } catch (IllegalArgumentException e) {
                    throw new CorruptPartException(e.getMessage());
                }
                entries.add(new Entry(name, type, in.getCount()));
            }
            return new PartHeader(epoch, rank, iteration, longs, doubles, List.copyOf(entries));
        }
    }
}
