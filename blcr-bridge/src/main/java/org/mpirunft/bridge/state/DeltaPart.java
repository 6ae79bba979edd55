package org.mpirunft.bridge.state;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.WritableByteChannel;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * An incremental part: the blocks of a rank's state that changed since the part of an earlier
 * epoch (its base), plus the CRC32C of every block of the whole state. Restoring applies it to
 * the base's snapshot, itself a full part or a delta on its own base (the chain back to a full
 * epoch), and checks every block of the result against the table, so a damaged link anywhere in
 * the chain refuses the epoch whole.
 *
 * <p>Layout, little-endian: magic {@code MFTD}, format version, base epoch, block size, number of
 * blocks, the snapshot header's length and bytes (identity, resume point, scalars, layout), the
 * changed blocks' bytes in block order, then the changed-block bitmap (64-bit words) and one
 * CRC32C per block. Blocks are numbered entry by entry; an entry's last block may be short.
 */
public final class DeltaPart {
    static final int MAGIC = 0x4454464D; // the bytes "MFTD"
    static final int FORMAT_VERSION = 1;
    /** A block of state: what is compared, sent and checked as one. */
    public static final int BLOCK_BYTES = 1 << 20;

    private final Snapshot.PartHeader header;
    private final long baseEpoch;
    private final BitSet changed;
    private final int[] blockCrcs;
    /** The changed blocks' bytes, in block order. */
    private final List<ByteBuffer> data;

    private DeltaPart(Snapshot.PartHeader header, long baseEpoch, BitSet changed, int[] blockCrcs, List<ByteBuffer> data) {
        this.header = header;
        this.baseEpoch = baseEpoch;
        this.changed = changed;
        this.blockCrcs = blockCrcs;
        this.data = data;
    }

    public long epoch() {
        return header.epoch();
    }

    public int rank() {
        return header.rank();
    }

    public long baseEpoch() {
        return baseEpoch;
    }

    public int changedBlocks() {
        return changed.cardinality();
    }

    public int blocks() {
        return blockCrcs.length;
    }

    /** Whether a file's first bytes are those of a delta part rather than a full one. */
    public static boolean isDelta(ByteBuffer start) {
        return start.remaining() >= 4 && start.duplicate().order(ByteOrder.LITTLE_ENDIAN).getInt() == MAGIC;
    }

    /** Whether {@code next} can be written as a delta on {@code base}: the same entries, types and lengths. */
    public static boolean sameLayout(Snapshot next, Snapshot base) {
        return next.header().entries().equals(base.header().entries()) && next.rank() == base.rank();
    }

    /**
     * Writes {@code next} as a delta on {@code base} (same layout, see {@link #sameLayout}) and
     * returns the file's CRC32C. Off the compute thread: it compares and checksums the whole state.
     */
    public static long write(Snapshot next, Snapshot base, WritableByteChannel channel) throws IOException {
        List<long[]> blocks = blocksOf(next);
        byte[] encodedHeader = next.header().encode();
        CRC32C fileCrc = new CRC32C();
        ByteSink front = new ByteSink().putInt(MAGIC).putInt(FORMAT_VERSION).putLong(base.epoch()).putInt(BLOCK_BYTES)
                .putInt(blocks.size()).putInt(encodedHeader.length);
        writeFully(channel, ByteBuffer.wrap(front.toByteArray()), fileCrc);
        writeFully(channel, ByteBuffer.wrap(encodedHeader), fileCrc);
        BitSet changed = new BitSet(blocks.size());
        int[] crcs = new int[blocks.size()];
        for (int b = 0; b < blocks.size(); b++) {
            long[] block = blocks.get(b);
            ByteBuffer mine = next.block((int) block[0], block[1], (int) block[2]);
            ByteBuffer theirs = base.block((int) block[0], block[1], (int) block[2]);
            CRC32C crc = new CRC32C();
            crc.update(mine.duplicate());
            crcs[b] = (int) crc.getValue();
            if (mine.mismatch(theirs) != -1) {
                changed.set(b);
                writeFully(channel, mine, fileCrc);
            }
        }
        long[] words = changed.toLongArray();
        ByteBuffer table = ByteBuffer.allocate(8 * wordsFor(blocks.size()) + 4 * crcs.length).order(ByteOrder.LITTLE_ENDIAN);
        for (int w = 0; w < wordsFor(blocks.size()); w++) {
            table.putLong(w < words.length ? words[w] : 0);
        }
        for (int crc : crcs) {
            table.putInt(crc);
        }
        writeFully(channel, table.flip(), fileCrc);
        return fileCrc.getValue();
    }

    /** Reads a delta part from {@code raw} (a file's mapped bytes, already checked against the manifest's CRC). */
    static DeltaPart read(List<ByteBuffer> raw) throws CorruptPartException {
        ChunkCursor in = new ChunkCursor(raw);
        if (in.getInt() != MAGIC) {
            throw new CorruptPartException("not a delta part (bad magic)");
        }
        int version = in.getInt();
        if (version != FORMAT_VERSION) {
            throw new CorruptPartException("delta part format version " + version + " is not supported (expected " + FORMAT_VERSION + ")");
        }
        long baseEpoch = in.getLong();
        int blockBytes = in.getInt();
        if (blockBytes != BLOCK_BYTES) {
            throw new CorruptPartException("delta part of " + blockBytes + "-byte blocks, expected " + BLOCK_BYTES);
        }
        int blocks = in.getCount();
        int headerLength = in.getCount();
        long before = in.remaining();
        Snapshot.PartHeader header = Snapshot.PartHeader.decode(in);
        if (before - in.remaining() != headerLength) {
            throw new CorruptPartException("delta part header is " + (before - in.remaining()) + " bytes, it says " + headerLength);
        }
        long tableBytes = 8L * wordsFor(blocks) + 4L * blocks;
        long dataBytes = in.remaining() - tableBytes;
        if (dataBytes < 0) {
            throw new CorruptPartException("delta part ends before its block table");
        }
        List<ByteBuffer> data = dataBytes == 0 ? List.of() : in.take(dataBytes, 1);
        long[] words = new long[wordsFor(blocks)];
        for (int w = 0; w < words.length; w++) {
            words[w] = in.getLong();
        }
        int[] crcs = new int[blocks];
        for (int b = 0; b < blocks; b++) {
            crcs[b] = in.getInt();
        }
        BitSet changed = BitSet.valueOf(words);
        if (changed.length() > blocks) {
            throw new CorruptPartException("delta part marks block " + (changed.length() - 1) + " of " + blocks);
        }
        DeltaPart part = new DeltaPart(header, baseEpoch, changed, crcs, data);
        if (part.blocksOf().size() != blocks) {
            throw new CorruptPartException("delta part has " + blocks + " blocks for a layout of " + part.blocksOf().size());
        }
        return part;
    }

    /**
     * The snapshot of this delta's epoch: {@code base}'s state with the changed blocks replaced,
     * in buffers of its own. Every block is checked against its CRC; a mismatch anywhere (a damaged
     * base, a damaged block) refuses the whole.
     */
    public Snapshot applyTo(Snapshot base) throws CorruptPartException {
        if (base.epoch() != baseEpoch || base.rank() != rank()) {
            throw new CorruptPartException("delta of rank " + rank() + " epoch " + epoch() + " is on epoch " + baseEpoch
                    + ", not on rank " + base.rank() + " epoch " + base.epoch());
        }
        if (!header.entries().equals(base.header().entries())) {
            throw new CorruptPartException("delta of epoch " + epoch() + " has another layout than its base epoch " + baseEpoch);
        }
        Snapshot composed = Snapshot.copyOf(header, base);
        List<long[]> blocks = blocksOf();
        ChunkCursor changedBytes = new ChunkCursor(data.stream().map(ByteBuffer::duplicate).toList());
        for (int b = 0; b < blocks.size(); b++) {
            long[] block = blocks.get(b);
            ByteBuffer target = composed.block((int) block[0], block[1], (int) block[2]);
            if (changed.get(b)) {
                for (ByteBuffer piece : changedBytes.take(block[2], 1)) {
                    target.put(piece);
                }
                target.flip();
            }
            CRC32C crc = new CRC32C();
            crc.update(target.duplicate());
            if ((int) crc.getValue() != blockCrcs[b]) {
                throw new CorruptPartException("block " + b + " of rank " + rank() + " epoch " + epoch() + " (on epoch " + baseEpoch
                        + ") has CRC32C " + Long.toHexString(crc.getValue()) + ", the delta says "
                        + Integer.toHexString(blockCrcs[b]));
            }
        }
        if (changedBytes.remaining() != 0) {
            throw new CorruptPartException("delta part has " + changedBytes.remaining() + " bytes beyond its changed blocks");
        }
        return composed;
    }

    private List<long[]> blocksOf() {
        return blocksOf(header);
    }

    private static List<long[]> blocksOf(Snapshot snapshot) {
        return blocksOf(snapshot.header());
    }

    /** Each block as {entry, byte offset in the entry, length}. */
    private static List<long[]> blocksOf(Snapshot.PartHeader header) {
        List<long[]> blocks = new ArrayList<>();
        List<Snapshot.PartHeader.Entry> entries = header.entries();
        for (int e = 0; e < entries.size(); e++) {
            long bytes = (long) entries.get(e).length() * entries.get(e).type().elementBytes();
            for (long offset = 0; offset < bytes; offset += BLOCK_BYTES) {
                blocks.add(new long[] {e, offset, Math.min(BLOCK_BYTES, bytes - offset)});
            }
        }
        return blocks;
    }

    private static int wordsFor(int blocks) {
        return (blocks + 63) / 64;
    }

    private static void writeFully(WritableByteChannel channel, ByteBuffer buffer, CRC32C crc) throws IOException {
        crc.update(buffer.duplicate());
        while (buffer.hasRemaining()) {
            channel.write(buffer);
        }
    }
}
