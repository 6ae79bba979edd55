package org.mpirunft.common;

import com.fasterxml.jackson.core.JsonProcessingException;

/**
 * The JSON of every line protocol (the daemon's control and peer protocols, the rank channel):
 * one object per line, read and written by {@link Json#MAPPER}, so unknown fields and missing
 * primitives are refused and two sides of different versions fail loudly instead of misreading
 * each other.
 */
public final class JsonLines {
    /** A line longer than this is refused before it is parsed. */
    public static final int MAX_LINE = 1 << 20;

    private JsonLines() {
    }

    /** Builds the codecs of {@code roots} and the types under them now ({@link JsonTypes#prepare}). */
    public static void prepare(Class<?>... roots) {
        JsonTypes.prepare(Json.MAPPER, roots);
    }

    /** One line of JSON, without the newline. */
    public static String encode(Object message) {
        try {
            return Json.MAPPER.writeValueAsString(message);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot encode " + message.getClass().getSimpleName() + ": " + e.getMessage(), e);
        }
    }

    /** @throws MalformedMessageException with a one-line reason when the line is not a valid message of {@code type} */
    public static <T> T decode(String line, Class<T> type) {
        requireWithinLimit(line);
        try {
            return Json.MAPPER.readValue(line, type);
        } catch (JsonProcessingException e) {
            throw new MalformedMessageException("not a valid " + type.getSimpleName() + ": " + e.getOriginalMessage());
        }
    }

    /** @throws MalformedMessageException when {@code line} is longer than {@link #MAX_LINE}, before anything parses it */
    public static void requireWithinLimit(String line) {
        if (line.length() > MAX_LINE) {
            throw new MalformedMessageException("message of " + line.length() + " characters is longer than " + MAX_LINE);
        }
    }

    /** A line that is not a valid message: too long, not JSON, or not of the expected type. */
    public static final class MalformedMessageException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public MalformedMessageException(String message) {
            super(message);
        }
    }
}
