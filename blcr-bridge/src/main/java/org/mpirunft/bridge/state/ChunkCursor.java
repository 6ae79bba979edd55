package org.mpirunft.bridge.state;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** Little-endian reader over a part held in several buffers; every overrun is corruption. */
final class ChunkCursor {
    private final List<ByteBuffer> chunks;
    private int index;

    ChunkCursor(List<ByteBuffer> chunks) {
        this.chunks = chunks;
    }

    byte getByte() throws CorruptPartException {
        return current().get();
    }

    int getInt() throws CorruptPartException {
        int value = 0;
        for (int i = 0; i < 4; i++) {
            value |= (getByte() & 0xff) << (8 * i);
        }
        return value;
    }

    long getLong() throws CorruptPartException {
        long value = 0;
        for (int i = 0; i < 8; i++) {
            value |= (long) (getByte() & 0xff) << (8 * i);
        }
        return value;
    }

    int getCount() throws CorruptPartException {
        int count = getInt();
        if (count < 0) {
            throw new CorruptPartException("negative count " + count + " in part header");
        }
        return count;
    }

    String getName(int maxBytes) throws CorruptPartException {
        int length = getCount();
        if (length > maxBytes) {
            throw new CorruptPartException("name of " + length + " bytes in part header");
        }
        byte[] utf8 = new byte[length];
        for (int i = 0; i < length; i++) {
            utf8[i] = getByte();
        }
        return new String(utf8, StandardCharsets.UTF_8);
    }

    /**
     * The next {@code bytes} bytes as chunks of whole elements: a view of the part's own buffer
     * when the entry lies in one of them (no copy: a replacement's state passes through memory
     * once less), else copied into chunks that end on element boundaries.
     */
    List<ByteBuffer> take(long bytes, int elementBytes) throws CorruptPartException {
        int perChunk = (Snapshot.CHUNK_BYTES / elementBytes) * elementBytes;
        if (bytes > 0 && bytes <= perChunk && current().remaining() >= bytes) {
            ByteBuffer source = current();
            ByteBuffer view = source.slice(source.position(), (int) bytes).order(ByteOrder.LITTLE_ENDIAN);
            source.position(source.position() + (int) bytes);
            return List.of(view);
        }
        List<ByteBuffer> out = new ArrayList<>();
        long left = bytes;
        do {
            ByteBuffer chunk = ByteBuffer.allocate((int) Math.min(perChunk, left)).order(ByteOrder.LITTLE_ENDIAN);
            while (chunk.hasRemaining()) {
                ByteBuffer source = current();
                int n = Math.min(source.remaining(), chunk.remaining());
                chunk.put(source.slice(source.position(), n));
                source.position(source.position() + n);
            }
            out.add(chunk.clear());
            left -= chunk.capacity();
        } while (left > 0);
        return out;
    }

    long remaining() {
        long left = 0;
        for (int i = index; i < chunks.size(); i++) {
            left += chunks.get(i).remaining();
        }
        return left;
    }

    private ByteBuffer current() throws CorruptPartException {
        while (index < chunks.size() && !chunks.get(index).hasRemaining()) {
            index++;
        }
        if (index >= chunks.size()) {
            throw new CorruptPartException("part ends inside its own layout");
        }
        return chunks.get(index);
    }
}
