package org.mpirunft.bridge.storage;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;
import java.util.zip.CRC32C;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.mpirunft.bridge.state.CorruptPartException;
import org.mpirunft.bridge.state.DeltaPart;
import org.mpirunft.bridge.state.Snapshot;
import org.mpirunft.common.Json;
import org.mpirunft.common.Names;
import org.mpirunft.common.PrivateDirectories;

/**
 * Checkpoint epochs of one job under one directory: {@code ROOT/JOB/epoch-N/rank-R.part} plus,
 * on the shared store, {@code manifest.json}. Every file appears under its final name only
 * once it is complete and forced to disk (write to a temporary name, fsync, rename, fsync the
 * directory), so a crash at any moment leaves either the old or the new file, never half.
 * Every directory it makes is its user's alone (0700): a job's checkpoints are its owner's to
 * read ({@link PrivateDirectories}).
 */
public final class CheckpointStore {
    private static final Logger LOG = Logger.getLogger(CheckpointStore.class.getName());
    private static final String MANIFEST = "manifest.json";
    private static final Pattern EPOCH_DIR = Pattern.compile("epoch-(\\d{10})");
    /**
     * The policy, but a missing primitive reads as its zero: a restart reads the manifests earlier
     * versions left on disk, and those from before deltas have no {@code base} (a full part: 0).
     * An unknown field is still refused: a manifest this version does not understand in full
     * describes a checkpoint it must not restore from (the epoch is skipped with a warning).
     */
    private static final ObjectMapper JSON = Json.builder().disable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES).build();

    /** The directory the store keeps every job's epochs under: which storage level it is. */
    private final Path root;
    private final Path jobDirectory;
    private final String job;
    /** How this store writes parts; it reads any, as each part's record says. */
    private final PartCodec codec;
    /** Told of every part this store writes or copies, on the thread that does it. */
    private final PartWriteListener listener;

    public CheckpointStore(Path root, String job) {
        this(root, job, PartCodec.NONE);
    }

    public CheckpointStore(Path root, String job, PartCodec codec) {
        this(root, job, codec, PartWriteListener.NONE);
    }

    public CheckpointStore(Path root, String job, PartCodec codec, PartWriteListener listener) {
        // The job id is a path component here: the rule keeps '..' and '/' out.
        this.job = Names.requireName("job id", job);
        this.root = root;
        this.jobDirectory = root.resolve(job);
        this.codec = codec;
        this.listener = listener;
    }

    /**
     * Builds the manifest codec and runs it once now: a warm spare does so while idle, not while
     * the survivors wait for it to read the job's manifests.
     */
    public static void prepare() {
        org.mpirunft.common.JsonTypes.prepare(JSON, EpochManifest.class);
        try {
            EpochManifest sample = EpochManifest.of("prepare", 1, 0, List.of(new PartRecord(0, partFileName(0), 0, 0)));
            JSON.readValue(JSON.writeValueAsBytes(sample), EpochManifest.class);
        } catch (IOException e) {
            LOG.fine(() -> "manifest codec not run: " + e.getMessage());
        }
    }

    /** Manifests as the ranks exchange them in a recovery: the same JSON as on disk, in a list. */
    public static byte[] encodeManifests(List<EpochManifest> manifests) {
        try {
            return JSON.writeValueAsBytes(manifests);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot encode manifests", e);
        }
    }

    /** What {@link #encodeManifests} wrote; every manifest is validated as one read from disk. */
    public static List<EpochManifest> decodeManifests(byte[] bytes) throws IOException {
        return List.of(JSON.readValue(bytes, EpochManifest[].class));
    }

    /** Whether parts go through a compressing codec: the writer then computes for long, not only waits for the disk. */
    public boolean compresses() {
        return codec != PartCodec.NONE;
    }

    public Path jobDirectory() {
        return jobDirectory;
    }

    public Path epochDirectory(long epoch) {
        return jobDirectory.resolve(String.format("epoch-%010d", epoch));
    }

    public static String partFileName(int rank) {
        return String.format("rank-%06d.part", rank);
    }

    /** Writes {@code snapshot} as its rank's part of its epoch, durably. */
    public PartRecord writePart(Snapshot snapshot) throws IOException {
        return writeFile(snapshot, 0, snapshot::writeTo);
    }

    /** Writes {@code snapshot} as a delta on {@code base} (same layout), durably: its blocks that changed since. */
    public PartRecord writeDelta(Snapshot snapshot, Snapshot base) throws IOException {
        return writeFile(snapshot, base.epoch(), channel -> DeltaPart.write(snapshot, base, channel));
    }

    /** Writes a part file under a temporary name, through this store's codec, forced to disk, then renamed into place. */
    private PartRecord writeFile(Snapshot snapshot, long base, PartWriter part) throws IOException {
        listener.partWriteStarting(PartWrite.Op.WRITE, snapshot.rank(), snapshot.epoch());
        Started started = Started.now();
        Path directory = epochDirectory(snapshot.epoch());
        PrivateDirectories.createPrivate(directory);
        String name = partFileName(snapshot.rank());
        Path temporary = directory.resolve(name + ".tmp");
        long crc;
        long written;
        try (FileChannel out = FileChannel.open(temporary, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            crc = encoded(out, part);
            written = System.nanoTime();
            out.force(true);
        }
        long bytes = Files.size(temporary);
        publish(temporary, directory.resolve(name));
        listener.partWritten(started.write(PartWrite.Op.WRITE, snapshot.rank(), snapshot.epoch(), root, bytes, written));
        return new PartRecord(snapshot.rank(), name, bytes, crc, base, codec.label());
    }

    /** The clocks at a write's start, for its {@link PartWrite}. */
    private record Started(long micros, long nanos) {
        static Started now() {
            java.time.Instant now = java.time.Instant.now();
            return new Started(now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000, System.nanoTime());
        }

        /** The write as timed from here to now; {@code dataAt}: when its bytes were handed to the file. */
        PartWrite write(PartWrite.Op op, int rank, long epoch, Path root, long bytes, long dataAt) {
            return new PartWrite(op, rank, epoch, root, bytes, micros, dataAt - nanos, System.nanoTime() - nanos);
        }
    }

    /** What writes a part's plain bytes to a channel and returns their CRC32C. */
    private interface PartWriter {
        long writeTo(WritableByteChannel channel) throws IOException;
    }

    /**
     * At most this many bytes of a heap buffer go to the file in one write. The JDK copies a heap
     * buffer through a temporary direct buffer of the whole remaining size: a snapshot's chunk of
     * a hundred MB became a hundred-MB copy out of every cache before the kernel's own copy into
     * the page cache. In slices the temporary buffer is this small and stays in cache. A 116 MB
     * part (MG class A's and B's per rank), written alone on this machine's 2 cores (other work
     * running): whole, 2-3 of every 7 writes cost the writing thread 114-278 ms of CPU (the others
     * 31-39 ms; one series' median was 117 ms); in 1, 2 or 8 MiB slices every write cost 31-36 ms.
     * In a run the writer shares the cores with the kernels, so its CPU time is its write time's floor.
     */
    public static final int WRITE_SLICE_BYTES = 1 << 20;

    /**
     * {@code file} for a part's writes, heap buffers written {@link #WRITE_SLICE_BYTES} at a time
     * (public for {@code npb-bench throughput}'s disk probe, which writes as the store does).
     */
    public static WritableByteChannel sliced(FileChannel file) {
        return new WritableByteChannel() {
            @Override
            public int write(ByteBuffer source) throws IOException {
                if (source.isDirect() || source.remaining() <= WRITE_SLICE_BYTES) {
                    return file.write(source);
                }
                int written = 0;
                while (source.hasRemaining()) {
                    ByteBuffer slice = source.slice(source.position(), Math.min(source.remaining(), WRITE_SLICE_BYTES));
                    int n = file.write(slice);
                    source.position(source.position() + n);
                    written += n;
                }
                return written;
            }

            @Override
            public boolean isOpen() {
                return file.isOpen();
            }

            @Override
            public void close() {
                // The file is the caller's, who forces and closes it.
            }
        };
    }

    /** Writes a part through this store's codec; returns the CRC32C of the bytes the file holds. */
    private long encoded(FileChannel file, PartWriter part) throws IOException {
        WritableByteChannel out = sliced(file);
        if (codec == PartCodec.NONE) {
            return part.writeTo(out);
        }
        CRC32C crc = new CRC32C();
        WritableByteChannel counted = new WritableByteChannel() {
            @Override
            public int write(ByteBuffer source) throws IOException {
                crc.update(source.duplicate());
                int n = 0;
                while (source.hasRemaining()) {
                    n += out.write(source);
                }
                return n;
            }

            @Override
            public boolean isOpen() {
                return file.isOpen();
            }

            @Override
            public void close() {
                // The file is the caller's, who forces it after the compressed stream ends.
            }
        };
        try (WritableByteChannel compressed = codec.compressing(counted)) {
            part.writeTo(compressed);
        }
        return crc.getValue();
    }

    /**
     * A part's plain bytes: the file mapped and checked against the manifest's size and CRC, then,
     * for a compressed part, decompressed.
     */
    private static List<ByteBuffer> plainBytes(Path file, PartRecord part) throws IOException {
        List<ByteBuffer> raw;
        try (FileChannel in = FileChannel.open(file, StandardOpenOption.READ)) {
            raw = Snapshot.checkedBytes(in, part.bytes(), part.crc32c());
        } catch (NoSuchFileException e) {
            throw new CorruptPartException("part " + file + " is missing");
        }
        if (part.codec().isEmpty()) {
            return raw;
        }
        try {
            return PartCodec.ofLabel(part.codec()).decompress(raw);
        } catch (IOException e) {
            throw new CorruptPartException("part " + file + " does not decompress: " + e.getMessage());
        }
    }

    /** Copies a part that {@code source} holds into this store, durably; the CRC is re-checked on load. */
    public PartRecord copyPart(CheckpointStore source, long epoch, PartRecord part) throws IOException {
        listener.partWriteStarting(PartWrite.Op.COPY, part.rank(), epoch);
        Started started = Started.now();
        Path directory = epochDirectory(epoch);
        PrivateDirectories.createPrivate(directory);
        Path temporary = directory.resolve(part.file() + ".tmp");
        Files.copy(source.epochDirectory(epoch).resolve(part.file()), temporary, StandardCopyOption.REPLACE_EXISTING);
        long copied = System.nanoTime();
        try (FileChannel out = FileChannel.open(temporary, StandardOpenOption.WRITE)) {
            out.force(true);
        }
        if (Files.size(temporary) != part.bytes()) {
            throw new IOException("copy of " + part.file() + " of epoch " + epoch + " has " + Files.size(temporary)
                    + " bytes, expected " + part.bytes());
        }
        publish(temporary, directory.resolve(part.file()));
        listener.partWritten(started.write(PartWrite.Op.COPY, part.rank(), epoch, root, part.bytes(), copied));
        return part;
    }

    /** Makes {@code manifest}'s epoch a recovery line. Call only when every part is durable here. */
    public void commit(EpochManifest manifest) throws IOException {
        if (!manifest.job().equals(job)) {
            throw new IllegalArgumentException("manifest of job " + manifest.job() + " committed to the store of job " + job);
        }
        Path directory = epochDirectory(manifest.epoch());
        for (PartRecord part : manifest.parts()) {
            Path file = directory.resolve(part.file());
            if (!Files.isRegularFile(file) || Files.size(file) != part.bytes()) {
                throw new IOException("cannot commit epoch " + manifest.epoch() + ": part " + file + " is missing or not "
                        + part.bytes() + " bytes");
            }
        }
        Path temporary = directory.resolve(MANIFEST + ".tmp");
        try (FileChannel out = FileChannel.open(temporary, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            out.write(java.nio.ByteBuffer.wrap(JSON.writeValueAsBytes(manifest)));
            out.force(true);
        }
        publish(temporary, directory.resolve(MANIFEST));
    }

    /** Committed epochs, newest first. An unreadable manifest is skipped with a warning: it never committed. */
    public List<EpochManifest> committedEpochs() {
        List<EpochManifest> manifests = new ArrayList<>();
        for (long epoch : epochsOnDisk()) {
            readManifest(epoch).ifPresent(manifests::add);
        }
        manifests.sort(Comparator.comparingLong(EpochManifest::epoch).reversed());
        return manifests;
    }

    public Optional<EpochManifest> latestCommitted() {
        List<EpochManifest> all = committedEpochs();
        return all.isEmpty() ? Optional.empty() : Optional.of(all.getFirst());
    }

    /**
     * Reads {@code rank}'s part of {@code manifest}'s epoch, refusing it unless size and CRC match.
     * A delta is applied to its base's part, read the same way from this store with the base
     * epoch's manifest ({@code manifests}), back to a full part; every block of the result is checked.
     */
    public Snapshot loadPart(EpochManifest manifest, int rank, java.util.function.LongFunction<Optional<EpochManifest>> manifests)
            throws IOException {
        PartRecord part = manifest.part(rank);
        if (!part.isDelta()) {
            return loadPart(manifest, rank);
        }
        EpochManifest baseManifest = manifests.apply(part.base()).orElseThrow(() -> new CorruptPartException(
                "part of rank " + rank + " epoch " + manifest.epoch() + " is a delta on epoch " + part.base() + ", which is gone"));
        Snapshot base;
        try {
            base = loadPart(baseManifest, rank, manifests);
        } catch (CorruptPartException e) {
            throw new CorruptPartException("its base, epoch " + part.base() + ": " + e.getMessage());
        }
        Path file = epochDirectory(manifest.epoch()).resolve(part.file());
        DeltaPart delta = Snapshot.parseDelta(plainBytes(file, part));
        if (delta.epoch() != manifest.epoch() || delta.rank() != rank) {
            throw new CorruptPartException(file + " holds rank " + delta.rank() + " epoch " + delta.epoch());
        }
        return delta.applyTo(base);
    }

    /** Reads {@code rank}'s full part of {@code manifest}'s epoch, refusing it unless size and CRC match. */
    public Snapshot loadPart(EpochManifest manifest, int rank) throws IOException {
        PartRecord part = manifest.part(rank);
        if (part.isDelta()) {
            throw new CorruptPartException("part of rank " + rank + " epoch " + manifest.epoch() + " is a delta; its base is needed");
        }
        Path file = epochDirectory(manifest.epoch()).resolve(part.file());
        Snapshot snapshot = Snapshot.parse(plainBytes(file, part));
        if (snapshot.epoch() != manifest.epoch() || snapshot.rank() != rank) {
            throw new CorruptPartException(file + " holds rank " + snapshot.rank() + " epoch " + snapshot.epoch());
        }
        return snapshot;
    }

    /** Deletes every epoch older than {@code epoch}, committed or not. */
    public void deleteEpochsBefore(long epoch) {
        for (long old : epochsOnDisk()) {
            if (old < epoch) {
                deleteEpoch(old);
            }
        }
    }

    /** Deletes every epoch newer than {@code epoch}: attempts that never committed. */
    public void deleteEpochsAfter(long epoch) {
        for (long newer : epochsOnDisk()) {
            if (newer > epoch) {
                deleteEpoch(newer);
            }
        }
    }

    /** Epoch {@code epoch}'s manifest if it is committed here (an unreadable one counts as not committed, with a warning). */
    public Optional<EpochManifest> manifest(long epoch) {
        return readManifest(epoch);
    }

    private Optional<EpochManifest> readManifest(long epoch) {
        Path file = epochDirectory(epoch).resolve(MANIFEST);
        if (!Files.isRegularFile(file)) {
            return Optional.empty();
        }
        try {
            EpochManifest manifest = JSON.readValue(file.toFile(), EpochManifest.class);
            if (manifest.epoch() != epoch || !manifest.job().equals(job)) {
                LOG.warning(() -> file + " names job " + manifest.job() + " epoch " + manifest.epoch() + "; ignored");
                return Optional.empty();
            }
            return Optional.of(manifest);
        } catch (IOException | RuntimeException e) {
            LOG.log(Level.WARNING, file + " is not a valid manifest; epoch " + epoch + " ignored: " + e.getMessage());
            return Optional.empty();
        }
    }

    private List<Long> epochsOnDisk() {
        List<Long> epochs = new ArrayList<>();
        if (!Files.isDirectory(jobDirectory)) {
            return epochs;
        }
        try (DirectoryStream<Path> children = Files.newDirectoryStream(jobDirectory)) {
            for (Path child : children) {
                Matcher matcher = EPOCH_DIR.matcher(child.getFileName().toString());
                if (matcher.matches() && Files.isDirectory(child)) {
                    epochs.add(Long.parseLong(matcher.group(1)));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + jobDirectory, e);
        }
        epochs.sort(null);
        return epochs;
    }

    private void deleteEpoch(long epoch) {
        Path directory = epochDirectory(epoch);
        // The manifest goes first, so a half-deleted epoch is never mistaken for a committed one.
        try {
            Files.deleteIfExists(directory.resolve(MANIFEST));
            try (DirectoryStream<Path> files = Files.newDirectoryStream(directory)) {
                for (Path file : files) {
                    Files.deleteIfExists(file);
                }
            }
            Files.deleteIfExists(directory);
        } catch (java.nio.file.NoSuchFileException e) {
            // Another rank sharing this storage (the ranks of one node share its local level)
            // deleted the same epoch first.
            LOG.log(Level.FINE, () -> directory + " was deleted by another rank meanwhile");
        } catch (IOException e) {
            LOG.log(Level.WARNING, "cannot delete " + directory + ": " + e.getMessage());
        }
    }

    /**
     * Renames a forced file into place atomically and forces its directory: a part is whole or
     * absent (public for the disk probe, as {@link #sliced}).
     */
    public static void publish(Path temporary, Path target) throws IOException {
        try {
            Files.move(temporary, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            throw new IOException("checkpoint storage " + target.getParent() + " does not support atomic rename", e);
        }
        // The rename is durable only once the directory entry is.
        try (FileChannel directory = FileChannel.open(target.getParent(), StandardOpenOption.READ)) {
            directory.force(true);
        }
    }
}
