package org.mpirunft.bridge.internal;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.logging.Logger;

/**
 * A replacement's room for its own part at the partner level ({@link PartnerCopies}), made while
 * its program sets up: direct memory is zeroed as it is allocated (about 330 ms for MG class C's
 * 905 MB here), which would otherwise come between the holder's first byte and the restore's end.
 * The restore takes the room or drops it, once. Not thread-safe: the rank's main thread owns it
 * (only the allocation runs on a thread of its own).
 */
final class PartnerRoom {
    private static final Logger LOG = Logger.getLogger(PartnerRoom.class.getName());
    /** The most a replacement allocates in one buffer for its part (a Java buffer holds at most 2 GiB). */
    private static final long ROOM_BUFFER_BYTES = 1L << 30;

    private final int rank;
    /** The room being made, or made; null if none. */
    private CompletableFuture<ByteBuffer[]> room;

    PartnerRoom(int rank) {
        this.rank = rank;
    }

    /**
     * A replacement whose part of the newest epoch has {@code bytes} bytes at its partner starts
     * making room for it now, off its critical path.
     */
    void prepare(long bytes) {
        if (bytes <= 0) {
            return;
        }
        room = CompletableFuture.supplyAsync(() -> roomFor(bytes, ROOM_BUFFER_BYTES),
                command -> Thread.ofPlatform().daemon().name("partner-copy-room").start(command));
    }

    /** Whether room was made, or is being made, and neither taken nor dropped yet. */
    boolean isMade() {
        return room != null;
    }

    /** Drops the room, taken or not: room made for a copy this rank did not need is memory for nothing. */
    void drop() {
        room = null;
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

    /** Room for {@code sizes} pieces in order from {@link #prepare}'s buffers, taken; null if it does not fit or there is none. */
    List<ByteBuffer> take(long[] sizes) {
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
}
