package org.mpirunft.daemon.protocol;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import org.mpirunft.common.JsonTypes;

/**
 * The daemon protocols' JSON: one object per line, unknown fields refused, so a client and a
 * daemon of different versions fail loudly instead of misreading each other.
 */
public final class Wire {
    /** A line longer than this is refused before it is parsed. */
    public static final int MAX_LINE = 1 << 20;
    private static final ObjectMapper JSON = new ObjectMapper()
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
            .disable(SerializationFeature.INDENT_OUTPUT);

    private Wire() {
    }

    /** Builds the codecs of {@code roots} and the types under them now ({@link JsonTypes#prepare}). */
    public static void prepare(Class<?>... roots) {
        JsonTypes.prepare(JSON, roots);
    }

    public static String encode(Object message) {
        try {
            return JSON.writeValueAsString(message);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot encode " + message.getClass().getSimpleName() + ": " + e.getMessage(), e);
        }
    }

    /** @throws ProtocolException with a one-line reason when the line is not a valid message of {@code type} */
    public static <T> T decode(String line, Class<T> type) {
        if (line.length() > MAX_LINE) {
            throw new ProtocolException("message of " + line.length() + " characters is longer than " + MAX_LINE);
        }
        try {
            return JSON.readValue(line, type);
        } catch (JsonProcessingException e) {
            throw new ProtocolException("not a valid " + type.getSimpleName() + ": " + e.getOriginalMessage());
        }
    }
}
