package org.mpirunft.bridge.state;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SnapshotTest {
    @TempDir
    Path dir;

    @Test
    void restoresEveryTypeInPlaceIntoTheSameArrays() {
        double[] doubles = {1.5, -2.25, Double.NaN, Double.MIN_VALUE};
        long[] longs = {Long.MIN_VALUE, 0, 42};
        int[] ints = {7, -7};
        float[] floats = {3.5f};
        short[] shorts = {-1, 2};
        char[] chars = {'a', '\u20ac'};
        byte[] bytes = {1, -128, 127};
        RankState state = new RankState().register("d", doubles).register("j", longs).register("i", ints)
                .register("f", floats).register("s", shorts).register("c", chars).register("b", bytes);
        state.scalars().setDouble("norm", 0.125);
        state.scalars().setLong("seed", 314159265L);
        Snapshot snapshot = Snapshot.capture(state, 3, 1, 40);

        double[] doublesBefore = doubles.clone();
        Arrays.fill(doubles, 0);
        Arrays.fill(longs, 0);
        ints[0] = 0;
        floats[0] = 0;
        shorts[1] = 0;
        chars[1] = 'z';
        bytes[2] = 0;
        state.scalars().setDouble("norm", 9);
        state.scalars().setLong("seed", 1);
        snapshot.restoreInto(state);

        assertSame(doubles, state.entries().getFirst().array(), "restore must not replace the array object");
        assertArrayEquals(doublesBefore, doubles);
        assertArrayEquals(new long[] {Long.MIN_VALUE, 0, 42}, longs);
        assertArrayEquals(new int[] {7, -7}, ints);
        assertArrayEquals(new float[] {3.5f}, floats);
        assertArrayEquals(new short[] {-1, 2}, shorts);
        assertArrayEquals(new char[] {'a', '\u20ac'}, chars);
        assertArrayEquals(new byte[] {1, -128, 127}, bytes);
        assertEquals(0.125, state.scalars().getDouble("norm", -1));
        assertEquals(314159265L, state.scalars().getLong("seed", -1));
    }

    @Test
    void roundTripsThroughItsOnDiskFormatWithItsCrc() throws IOException {
        double[] field = new double[10_000];
        for (int i = 0; i < field.length; i++) {
            field[i] = Math.sqrt(i);
        }
        RankState state = new RankState().register("field", field);
        Snapshot snapshot = Snapshot.capture(state, 7, 2, 70);
        byte[] part = write(snapshot);
        assertEquals(snapshot.sizeInBytes(), part.length);
        CRC32C crc = new CRC32C();
        crc.update(part);

        Snapshot read = readFromFile(part, part.length, crc.getValue());
        assertEquals(7, read.epoch());
        assertEquals(2, read.rank());
        assertEquals(70, read.iteration());
        Arrays.fill(field, -1);
        read.restoreInto(state);
        assertEquals(Math.sqrt(9999), field[9999]);
    }

    @Test
    void refusesAPartWithOneFlippedBit() throws IOException {
        RankState state = new RankState().register("x", new long[1000]);
        byte[] part = write(Snapshot.capture(state, 1, 0, 0));
        long crc = crc(part);
        part[part.length / 2] ^= 0x01;
        CorruptPartException e = assertThrows(CorruptPartException.class,
                () -> readFromFile(part, part.length, crc));
        assertTrue(e.getMessage().contains("CRC32C"), e.getMessage());
    }

    @Test
    void refusesATruncatedPart() throws IOException {
        RankState state = new RankState().register("x", new int[1000]);
        byte[] part = write(Snapshot.capture(state, 1, 0, 0));
        byte[] truncated = Arrays.copyOf(part, part.length - 100);
        CorruptPartException e = assertThrows(CorruptPartException.class,
                () -> readFromFile(truncated, part.length, crc(part)));
        assertTrue(e.getMessage().contains("ends after"), e.getMessage());
    }

    @Test
    void refusesToRestoreIntoDifferentlyRegisteredStateAndLeavesItUntouched() {
        Snapshot snapshot = Snapshot.capture(new RankState().register("x", new double[] {1, 2}), 1, 0, 0);
        double[] other = {5, 6, 7};
        StateMismatchException e = assertThrows(StateMismatchException.class,
                () -> snapshot.restoreInto(new RankState().register("x", other)));
        assertTrue(e.getMessage().contains("'x' DOUBLE[2]"), e.getMessage());
        assertArrayEquals(new double[] {5, 6, 7}, other);
    }

    @Test
    void aRecycledCaptureWritesTheSameBytesAsAFreshOneWithoutAllocatingTheState() throws IOException {
        double[] field = new double[1 << 20]; // 8 MB
        int[] keys = new int[1000];
        RankState state = new RankState().register("field", field).register("keys", keys);
        Snapshot first = Snapshot.capture(state, 1, 0, 10);
        for (int i = 0; i < field.length; i++) {
            field[i] = i * 0.5;
        }
        Arrays.fill(keys, 9);
        state.scalars().setLong("seed", 5);

        long before = allocatedBytes();
        Snapshot recycled = Snapshot.capture(state, 2, 0, 20, first);
        long allocated = allocatedBytes() - before;
        Snapshot fresh = Snapshot.capture(state, 2, 0, 20);

        assertTrue(allocated < 1 << 20, "a recycled capture of 8 MB allocated " + allocated + " bytes");
        assertArrayEquals(write(fresh), write(recycled));
        assertTrue(first.isRecycled());
        assertThrows(IllegalStateException.class, () -> first.restoreInto(state));
        assertThrows(IllegalStateException.class, () -> write(first));
        assertThrows(IllegalStateException.class, () -> Snapshot.capture(state, 3, 0, 30, first));
    }

    @Test
    void recyclingASnapshotOfAnotherShapeOrReadFromDiskStillCapturesTheState() throws IOException {
        long[] small = {1, 2, 3};
        Snapshot other = Snapshot.capture(new RankState().register("small", small), 1, 0, 0);
        double[] field = {4, 5, 6, 7};
        RankState state = new RankState().register("field", field);
        Snapshot reshaped = Snapshot.capture(state, 2, 0, 0, other);
        byte[] part = write(reshaped);
        Snapshot read = readFromFile(part, part.length, crc(part));

        field[0] = 40;
        Snapshot fromRead = Snapshot.capture(state, 3, 0, 0, read);
        Arrays.fill(field, 0);
        fromRead.restoreInto(state);
        assertArrayEquals(new double[] {40, 5, 6, 7}, field);
        Arrays.fill(field, 0);
        reshaped.restoreInto(state);
        assertArrayEquals(new double[] {4, 5, 6, 7}, field);
    }

    private static long allocatedBytes() {
        return ((com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean())
                .getCurrentThreadAllocatedBytes();
    }

    @Test
    void rejectsDuplicateNames() {
        RankState state = new RankState().register("x", new double[1]);
        assertThrows(IllegalArgumentException.class, () -> state.register("x", new int[1]));
    }

    /** Reads {@code bytes} back as a rank does: from a part file on disk. */
    private Snapshot readFromFile(byte[] bytes, long expectedBytes, long expectedCrc) throws IOException {
        Path file = Files.write(Files.createTempFile(dir, "rank-", ".part"), bytes);
        try (FileChannel in = FileChannel.open(file)) {
            return Snapshot.readFrom(in, expectedBytes, expectedCrc);
        }
    }

    private static byte[] write(Snapshot snapshot) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        long crc = snapshot.writeTo(Channels.newChannel(out));
        assertEquals(crc(out.toByteArray()), crc, "writeTo must return the CRC of what it wrote");
        return out.toByteArray();
    }

    private static long crc(byte[] bytes) {
        CRC32C crc = new CRC32C();
        crc.update(bytes);
        return crc.getValue();
    }
}
