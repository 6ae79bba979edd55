package org.mpirunft.scheduler.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.logging.Logger;
import org.mpirunft.common.PrivateDirectories;
import org.mpirunft.scheduler.JobRecord;
import org.mpirunft.scheduler.JobTableFileException;

/**
 * The job table on shared storage, {@code <dir>/job-table.json}, so that a restart of the whole
 * cluster loses no job and no committed epoch:
 *
 * <pre>
 * {"format":"mpirun-ft-job-table","version":3,"term":7,"seq":42,"savedBy":"node2",
 *  "savedAt":"2026-11-21T14:00:00Z","jobs":[...]}
 * </pre>
 *
 * ({@code term} is the replicated log's term and {@code seq} the number of entries applied when
 * the copy was written: they tell a reader how current the copy is. The log is the table; this
 * file is the leader's copy, imported into a log that never held a table.)
 * A write goes to a temporary file of the writing node, is forced to disk, renamed over the
 * table (atomic on one file system), and the directory is forced too; a reader sees the old
 * table or the new one, never a mix. A file that is not a job table, or of another version, is
 * refused with {@link JobTableFileException}: it is never replaced silently.
 */
public final class JobTableStore {
    private static final Logger LOG = Logger.getLogger(JobTableStore.class.getName());
    public static final String FILE_NAME = "job-table.json";
    static final String FORMAT = "mpirun-ft-job-table";
    public static final int VERSION = 3;

    /** The table and its place in the leaders' log. */
    public record Saved(long term, long seq, List<JobRecord> jobs) {
        public static final Saved EMPTY = new Saved(0, 0, List.of());

        public Saved {
            jobs = List.copyOf(jobs);
        }
    }

    /** The file's JSON form. */
    record TableFile(String format, int version, long term, long seq, String savedBy, String savedAt, List<JobRecord> jobs) {
    }

    private final Path dir;
    private final Path file;
    private final Path temp;
    private final Path legacy;
    private final String node;

    public JobTableStore(Path dir, String node) {
        this(dir, null, node);
    }

    /** @param legacyDir where an older release kept the table, read while {@code dir} has none; null: nowhere */
    public JobTableStore(Path dir, Path legacyDir, String node) {
        this.dir = dir;
        this.file = dir.resolve(FILE_NAME);
        this.temp = dir.resolve(FILE_NAME + "." + node + ".tmp");
        this.legacy = legacyDir == null ? null : legacyDir.resolve(FILE_NAME);
        this.node = node;
    }

    /**
     * The table's directory in the site's shared storage, in the daemons' own directory: users
     * write their checkpoints to the same storage, and the table says who owns which job.
     */
    public static Path directoryIn(Path sharedStorage) {
        return sharedStorage.resolve(PrivateDirectories.DAEMONS).resolve("scheduler");
    }

    /** Where releases before the daemons' own directory kept the table. */
    public static Path legacyDirectoryIn(Path sharedStorage) {
        return sharedStorage.resolve("scheduler");
    }

    public Path file() {
        return file;
    }

    /**
     * The persisted table, empty if there is none yet.
     *
     * @throws JobTableFileException when the file cannot be read, is not a job table, or has another version
     */
    public Optional<Saved> load() {
        secureDirectory();
        Path from = file;
        if (!Files.exists(file) && legacy != null && Files.isRegularFile(legacy)) {
            // An upgrade: the table stays readable where the older release wrote it, but only
            // from a directory no user could have put it in; the next write goes to the new place.
            try {
                PrivateDirectories.ensureSecure(legacy.getParent());
            } catch (IllegalStateException e) {
                throw new JobTableFileException(legacy, "job table of an older release not read: " + e.getMessage(), e);
            }
            from = legacy;
            LOG.info(() -> node + ": reading the job table of an older release from " + legacy + "; it is written to " + file + " from now on");
        }
        return read(from);
    }

    /** The table's directory, made if missing; refused if anyone but this node's daemon user could change it. */
    private void secureDirectory() {
        try {
            PrivateDirectories.ensureSecure(dir);
        } catch (IllegalStateException e) {
            throw new JobTableFileException(file, e.getMessage(), e);
        }
    }

    private Optional<Saved> read(Path file) {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            throw new JobTableFileException(file, "cannot read the job table: " + e, e);
        }
        String refusal = "; the scheduler does not replace it: repair it, or move it away to start with no jobs";
        JsonNode root;
        try {
            root = SchedulerCodec.MAPPER.readTree(bytes);
        } catch (IOException e) {
            throw new JobTableFileException(file, "corrupt job table, not JSON (" + oneLine(e) + ")" + refusal, e);
        }
        if (root == null || !root.isObject() || !FORMAT.equals(root.path("format").asText())) {
            throw new JobTableFileException(file, "not a job table (no \"format\": \"" + FORMAT + "\")" + refusal, null);
        }
        if (!root.path("version").canConvertToInt() || root.path("version").asInt() != VERSION) {
            throw new JobTableFileException(file, "job table of version " + root.path("version") + ", this daemon reads version "
                    + VERSION + refusal, null);
        }
        try {
            TableFile table = SchedulerCodec.MAPPER.treeToValue(root, TableFile.class);
            if (table.jobs() == null) {
                throw new JobTableFileException(file, "corrupt job table (no \"jobs\")" + refusal, null);
            }
            return Optional.of(new Saved(table.term(), table.seq(), table.jobs()));
        } catch (JsonProcessingException | IllegalArgumentException | NullPointerException e) {
            throw new JobTableFileException(file, "corrupt job table (" + oneLine(e) + ")" + refusal, e);
        }
    }

    /** Writes {@code saved} atomically; only one thread of this node may call it at a time. */
    public void save(Saved saved, Instant now) throws IOException {
        // The table holds every user's jobs and who owns each: only the daemons (root) may read or
        // change it; users see others' jobs without details, and own only their own.
        try {
            PrivateDirectories.ensureSecure(dir);
        } catch (IllegalStateException e) {
            throw new IOException(e.getMessage(), e);
        }
        byte[] bytes = SchedulerCodec.encode(new TableFile(FORMAT, VERSION, saved.term(), saved.seq(), node, now.toString(), saved.jobs()));
        try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            ByteBuffer buffer = ByteBuffer.wrap(bytes);
            while (buffer.hasRemaining()) {
                channel.write(buffer);
            }
            channel.force(true);
        }
        try {
            Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            throw new IOException("the file system of " + dir + " cannot rename atomically: " + e.getMessage(), e);
        }
        // The rename is durable only once the directory is; some file systems cannot force one.
        try (FileChannel directory = FileChannel.open(dir, StandardOpenOption.READ)) {
            directory.force(true);
        } catch (IOException e) {
            LOG.fine(() -> node + ": cannot force directory " + dir + " (" + e + "); the rename may be lost on a crash");
        }
    }

    private static String oneLine(Exception e) {
        String message = e instanceof JsonProcessingException j ? j.getOriginalMessage() : e.getMessage();
        return SchedulerCodec.firstLine(String.valueOf(message)).strip();
    }
}
