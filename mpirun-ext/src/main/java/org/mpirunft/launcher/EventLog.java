package org.mpirunft.launcher;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Logger;
import org.mpirunft.common.Json;

/**
 * The job's event log: one JSON object per line, appended and flushed as events happen, so a
 * crash loses nothing already written. Each line is
 * {@code {"version":1,"time":"2025-01-01T12:00:00.123Z","job":"...","type":"pause",...}}, the
 * fields of the {@link LauncherEvent} after {@code type}. Thread-safe.
 */
public final class EventLog implements AutoCloseable {
    public static final int VERSION = 1;
    private static final Logger LOG = Logger.getLogger(EventLog.class.getName());

    private final Path file;
    private final String job;
    private final Clock clock;
    /** Guarded by this. Null once closed, or while the log cannot be written (see {@link #append(LauncherEvent, Instant)}). */
    private BufferedWriter out;
    /** Guarded by this. Closed for good: nothing more is appended. */
    private boolean closed;
    /** Guarded by this. Events dropped since the last write failed (a full disk); 0 while the log is written. */
    private long dropped;

    private EventLog(Path file, String job, Clock clock, BufferedWriter out) {
        this.file = file;
        this.job = job;
        this.clock = clock;
        this.out = out;
    }

    /** Opens {@code file} for appending, creating it and its directory if needed. */
    public static EventLog open(Path file, String job, Clock clock) {
        try {
            Path parent = file.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            BufferedWriter out = Files.newBufferedWriter(file, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND, StandardOpenOption.WRITE);
            return new EventLog(file, job, clock, out);
        } catch (IOException e) {
            throw new BadSettingException("--event-log", "cannot write " + file + ": " + e.getMessage());
        }
    }

    public Path file() {
        return file;
    }

    public void append(LauncherEvent event) {
        append(event, now());
    }

    /** The log's clock: the time an event is stamped with when it is not given one. */
    public Instant now() {
        return clock.instant();
    }

    /**
     * Appends {@code event} stamped with {@code at}: when it happened, for an event logged after
     * what it led to was set going.
     */
    public void append(LauncherEvent event, Instant at) {
        ObjectNode line = Json.MAPPER.createObjectNode();
        line.put("version", VERSION);
        line.put("time", at.toString());
        line.put("job", job);
        line.setAll((ObjectNode) Json.MAPPER.valueToTree(event));
        String text = line.toString();
        synchronized (this) {
            if (closed) {
                return;
            }
            try {
                if (out == null) {
                    reopen();
                }
                out.write(text);
                out.newLine();
                out.flush();
            } catch (IOException e) {
                // A full disk, say: this event is lost, and the log is opened again with the next
                // one, so that it goes on once there is space. One warning per outage.
                if (dropped++ == 0) {
                    LOG.warning(() -> "mpirun-ft: cannot write the event log " + file + " (" + e.getMessage()
                            + "); events are not logged until it can be written again");
                }
                dropWriter();
                return;
            }
            if (dropped > 0) {
                long lost = dropped;
                dropped = 0;
                LOG.warning(() -> "mpirun-ft: the event log " + file + " is written again; " + lost + " event(s) before this one were not logged");
            }
        }
    }

    /**
     * Opens the file again for appending after a failed write. A line that write left torn is
     * ended first, so that every later line is whole ({@link #read} skips the torn one).
     */
    private void reopen() throws IOException {
        BufferedWriter writer = Files.newBufferedWriter(file, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                StandardOpenOption.APPEND, StandardOpenOption.WRITE);
        try {
            if (endsTorn()) {
                writer.newLine();
                writer.flush();
            }
        } catch (IOException e) {
            writer.close();
            throw e;
        }
        out = writer;
    }

    private boolean endsTorn() throws IOException {
        if (!Files.isRegularFile(file) || Files.size(file) == 0) {
            return false;
        }
        try (var channel = Files.newByteChannel(file, StandardOpenOption.READ)) {
            channel.position(channel.size() - 1);
            java.nio.ByteBuffer last = java.nio.ByteBuffer.allocate(1);
            channel.read(last);
            return last.get(0) != '\n';
        }
    }

    /** Every line of an event log, for tests and {@code mpirun-ft status}. */
    public static List<JsonNode> read(Path file) {
        List<JsonNode> events = new ArrayList<>();
        try {
            for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                if (line.isBlank()) {
                    continue;
                }
                try {
                    events.add(Json.MAPPER.readTree(line));
                } catch (com.fasterxml.jackson.core.JsonProcessingException torn) {
                    // A line a full disk cut short: not an event.
                    LOG.fine(() -> "mpirun-ft: skipping a torn line of " + file + ": " + torn.getOriginalMessage());
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the event log " + file, e);
        }
        return events;
    }

    @Override
    public synchronized void close() {
        closed = true;
        dropWriter();
    }

    private void dropWriter() {
        if (out != null) {
            try {
                out.close();
            } catch (IOException e) {
                LOG.fine(() -> "mpirun-ft: closing " + file + ": " + e.getMessage());
            }
            out = null;
        }
    }
}
