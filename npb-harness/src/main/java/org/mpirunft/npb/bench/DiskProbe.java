package org.mpirunft.npb.bench;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.mpirunft.bridge.storage.CheckpointStore;

/**
 * A directory's write bandwidth measured the way a checkpoint part is written
 * ({@code CheckpointStore.writePart}): a new file under a temporary name, the bytes written from a
 * heap {@link ByteBuffer} through {@link FileChannel#write} in the store's slices
 * ({@link CheckpointStore#WRITE_SLICE_BYTES}; the JDK copies each through its temporary direct
 * buffer, as for a snapshot's heap chunks), {@code force(true)} (fsync), an
 * atomic rename and an fsync of the directory. The time runs from the open to the directory's
 * fsync, as the store's own timing does.
 *
 * <p>Page cache: every file is new and forced before its time stops, so the page cache cannot
 * absorb the write; {@code sync} runs before each repetition so that dirty pages of earlier work
 * (the run's own checkpoints, the previous repetition) are not flushed on this repetition's time.
 * Caches are not dropped: a write does not read, and dropping them would slow other work on the
 * machine. The bytes are pseudo-random, so neither the file system nor a virtual disk's host can
 * compress them away. What it cannot control: a virtual disk's host may acknowledge an fsync
 * from its own cache.
 */
public final class DiskProbe {
    /** A snapshot's chunks are at most 1 GiB (blcr-bridge {@code Snapshot.CHUNK_BYTES}). */
    static final int CHUNK_BYTES = 1 << 30;

    private final ByteBuffer data;

    /** A probe for files of up to {@code largest} bytes (the buffer it writes from is that size, at most 1 GiB). */
    public DiskProbe(long largest) {
        data = ByteBuffer.allocate((int) Math.max(1, Math.min(largest, CHUNK_BYTES)));
        fill(data);
    }

    /**
     * One repetition's outcome.
     *
     * @param mbps     all writers' bytes over first start to last end, MB (10^6 bytes) per second
     * @param writerMs each writer's own time
     */
    public record Repetition(double mbps, List<Double> writerMs) {
    }

    /**
     * After a {@code sync}, writes one file per entry of {@code sizes} into {@code directory}
     * (made if missing), all at once from one thread each; returns the aggregate bandwidth. The
     * files are deleted afterwards.
     */
    public Repetition measure(Path directory, List<Long> sizes) throws IOException, InterruptedException {
        return measure(java.util.Collections.nCopies(sizes.size(), directory), sizes);
    }

    /** As {@link #measure(Path, List)}, writer {@code i} writing into {@code directories.get(i)}. */
    public Repetition measure(List<Path> directories, List<Long> sizes) throws IOException, InterruptedException {
        for (Path directory : new java.util.LinkedHashSet<>(directories)) {
            Files.createDirectories(directory);
        }
        sync();
        return once(directories, sizes, data, 0);
    }

    private static Repetition once(List<Path> directories, List<Long> sizes, ByteBuffer data, int repetition)
            throws IOException, InterruptedException {
        int writers = sizes.size();
        long[] starts = new long[writers];
        long[] ends = new long[writers];
        Writers.together(writers, "disk-probe", "disk probe in " + new java.util.LinkedHashSet<>(directories), writer -> {
            Path target = directories.get(writer).resolve("probe-" + repetition + "-" + writer + ".part");
            starts[writer] = System.nanoTime();
            writePart(target, sizes.get(writer), data.duplicate());
            ends[writer] = System.nanoTime();
        });
        long first = Long.MAX_VALUE;
        long last = Long.MIN_VALUE;
        long bytes = 0;
        List<Double> writerMs = new ArrayList<>();
        for (int i = 0; i < writers; i++) {
            first = Math.min(first, starts[i]);
            last = Math.max(last, ends[i]);
            bytes += sizes.get(i);
            writerMs.add((ends[i] - starts[i]) / 1e6);
        }
        for (int i = 0; i < writers; i++) {
            Files.deleteIfExists(directories.get(i).resolve("probe-" + repetition + "-" + i + ".part"));
        }
        return new Repetition(ThroughputRates.megabytesPerSecond(bytes, (last - first) / 1e6), List.copyOf(writerMs));
    }

    /** As {@code CheckpointStore.writeFile}: temporary name, heap buffer writes, fsync, rename, directory fsync. */
    static void writePart(Path target, long size, ByteBuffer data) throws IOException {
        Path temporary = target.resolveSibling(target.getFileName() + ".tmp");
        try (FileChannel file = FileChannel.open(temporary, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            // Through the store's own channel: heap buffers go in its slices.
            java.nio.channels.WritableByteChannel out = CheckpointStore.sliced(file);
            long left = size;
            while (left > 0) {
                ByteBuffer chunk = data.duplicate().clear().limit((int) Math.min(left, data.capacity()));
                while (chunk.hasRemaining()) {
                    left -= out.write(chunk);
                }
            }
            file.force(true);
        }
        CheckpointStore.publish(temporary, target);
    }

    private static void fill(ByteBuffer buffer) {
        SplittableRandom random = new SplittableRandom(42);
        while (buffer.remaining() >= Long.BYTES) {
            buffer.putLong(random.nextLong());
        }
        buffer.clear();
    }

    /** Flushes every dirty page of the machine, so that this repetition pays for its own only. */
    static void sync() throws IOException, InterruptedException {
        Process sync = new ProcessBuilder("sync").redirectErrorStream(true).start();
        sync.getOutputStream().close();
        sync.getInputStream().readAllBytes();
        if (!sync.waitFor(120, TimeUnit.SECONDS)) {
            sync.destroyForcibly();
        }
    }
}
