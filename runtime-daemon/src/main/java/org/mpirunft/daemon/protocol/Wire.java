package org.mpirunft.daemon.protocol;

import org.mpirunft.common.JsonLines;

/**
 * The daemon protocols' JSON: {@link JsonLines}, the one definition of every line protocol's
 * JSON (one object per line, unknown fields refused), with the daemon protocols' error type.
 */
public final class Wire {
    /** A line longer than this is refused before it is parsed. */
    public static final int MAX_LINE = JsonLines.MAX_LINE;

    private Wire() {
    }

    /** Builds the codecs of {@code roots} and the types under them now ({@link JsonLines#prepare}). */
    public static void prepare(Class<?>... roots) {
        JsonLines.prepare(roots);
    }

    public static String encode(Object message) {
        return JsonLines.encode(message);
    }

    /** @throws ProtocolException with a one-line reason when the line is not a valid message of {@code type} */
    public static <T> T decode(String line, Class<T> type) {
        try {
            return JsonLines.decode(line, type);
        } catch (JsonLines.MalformedMessageException e) {
            throw new ProtocolException(e.getMessage());
        }
    }
}
