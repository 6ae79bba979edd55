package org.mpirunft.scheduler.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jdk8.Jdk8Module;
import java.io.IOException;
import org.mpirunft.common.Json;
import org.mpirunft.common.JsonTypes;
import org.mpirunft.scheduler.SchedulerException;

/** JSON for the scheduler's group messages and its persisted table, in one configured mapper. */
public final class SchedulerCodec {
    /**
     * Tolerant ({@link Json#tolerantBuilder}): daemons of two versions share the group and the
     * replicated log during a rolling upgrade, and the job table outlives the daemon that saved
     * it; unknown fields are a newer writer's and ignored, and {@link #read} checks the version.
     * Two additions of its own: the Jdk8 module for {@code JobRecord}'s {@code Optional} fields
     * (common's policy leaves it out of the rank library), and a record without properties
     * written as {@code {}} rather than refused, as this codec has always done (no scheduler
     * record is empty today).
     */
    static final ObjectMapper MAPPER = Json.tolerantBuilder()
            .addModule(new Jdk8Module())
            .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS)
            .build();

    private SchedulerCodec() {
    }

    /** Builds the group messages' codecs now ({@link JsonTypes#prepare}). */
    public static void prepare() {
        JsonTypes.prepare(MAPPER, GroupMessage.class);
        JsonTypes.prepare(MAPPER, LogEntry.class);
    }

    /** An entry of the replicated log; {@link MalformedMessageException} if it is not one we read. */
    public static LogEntry decodeEntry(byte[] bytes) {
        return read(bytes, LogEntry.class, LogEntry::v, LogEntry.VERSION, "scheduler log entry");
    }

    /** A snapshot of the replicated log's state. */
    public static LogEntry.Snapshot decodeSnapshot(byte[] bytes) {
        return read(bytes, LogEntry.Snapshot.class, LogEntry.Snapshot::v, LogEntry.VERSION, "scheduler snapshot");
    }

    public static byte[] encode(Object value) {
        try {
            return MAPPER.writeValueAsBytes(value);
        } catch (JsonProcessingException e) {
            throw new SchedulerException("cannot encode " + value.getClass().getSimpleName() + ": " + e.getOriginalMessage(), e);
        }
    }

    /** A group message from another daemon; {@link MalformedMessageException} if it is not one we read. */
    public static GroupMessage decode(byte[] bytes) {
        return read(bytes, GroupMessage.class, GroupMessage::v, GroupMessage.VERSION, "scheduler message");
    }

    /** {@code bytes} as a {@code type} of format version {@code version}; {@link MalformedMessageException} names {@code what} otherwise. */
    private static <T> T read(byte[] bytes, Class<T> type, java.util.function.ToIntFunction<T> versionOf, int version, String what) {
        T value;
        try {
            value = MAPPER.readValue(bytes, type);
        } catch (IOException e) {
            throw new MalformedMessageException("not a " + what + ": " + firstLine(e.getMessage()));
        }
        if (versionOf.applyAsInt(value) != version) {
            throw new MalformedMessageException(what + " of version " + versionOf.applyAsInt(value) + ", this daemon reads " + version);
        }
        return value;
    }

    static String firstLine(String text) {
        if (text == null) {
            return "";
        }
        int newline = text.indexOf('\n');
        return newline < 0 ? text : text.substring(0, newline);
    }

    /** Bytes another daemon sent could not be read; the message is dropped and logged. */
    public static final class MalformedMessageException extends SchedulerException {
        private static final long serialVersionUID = 1L;

        public MalformedMessageException(String message) {
            super(message);
        }
    }
}
