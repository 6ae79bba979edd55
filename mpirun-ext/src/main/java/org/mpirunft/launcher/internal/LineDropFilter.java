package org.mpirunft.launcher.internal;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Passes a stream through, except the lines that start with one of {@code prefixes}: those are
 * dropped whole. Any other line streams on as it comes: only while the start of a line could
 * still become one of the prefixes are its bytes held back, and they go out at the first byte
 * that rules it out. {@link #flush} keeps a held start (the writer before this one flushes after
 * every write); {@link #finish} lets it out once the stream is over.
 *
 * <p>For the notices a JVM prints because of options mpirun-ft gave it, which the user did not
 * ask for and would otherwise see once per rank.
 */
public final class LineDropFilter extends OutputStream {
    private final OutputStream target;
    private final List<byte[]> prefixes;
    private final ByteArrayOutputStream held = new ByteArrayOutputStream(128);
    private State state = State.LINE_START;

    private enum State { LINE_START, HOLDING, PASSING, DROPPING }

    public LineDropFilter(OutputStream target, List<String> prefixes) {
        this.target = target;
        this.prefixes = prefixes.stream().filter(p -> !p.isEmpty()).map(p -> p.getBytes(StandardCharsets.UTF_8)).toList();
    }

    @Override
    public void write(int b) throws IOException {
        write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] bytes, int offset, int length) throws IOException {
        if (prefixes.isEmpty()) {
            target.write(bytes, offset, length);
            return;
        }
        int passFrom = -1;
        for (int i = offset; i < offset + length; i++) {
            byte b = bytes[i];
            switch (state) {
                case PASSING -> {
                    if (passFrom < 0) {
                        passFrom = i;
                    }
                    if (b == '\n') {
                        state = State.LINE_START;
                    }
                }
                case DROPPING -> {
                    if (b == '\n') {
                        state = State.LINE_START;
                    }
                }
                case LINE_START, HOLDING -> {
                    if (passFrom >= 0) {
                        target.write(bytes, passFrom, i - passFrom);
                        passFrom = -1;
                    }
                    held.write(b);
                    byte[] line = held.toByteArray();
                    if (startsWithAny(line)) {
                        held.reset();
                        state = b == '\n' ? State.LINE_START : State.DROPPING;
                    } else if (b == '\n' || !couldStartAny(line)) {
                        held.writeTo(target);
                        held.reset();
                        state = b == '\n' ? State.LINE_START : State.PASSING;
                    } else {
                        state = State.HOLDING;
                    }
                }
            }
        }
        if (passFrom >= 0) {
            target.write(bytes, passFrom, offset + length - passFrom);
        }
    }

    /** Flushes what has been let through; a held line start stays held. */
    @Override
    public void flush() throws IOException {
        target.flush();
    }

    /** The stream is over: a line start still held goes out (it ended before it could match). */
    public void finish() throws IOException {
        if (held.size() > 0) {
            held.writeTo(target);
            held.reset();
        }
        state = State.LINE_START;
        target.flush();
    }

    private boolean startsWithAny(byte[] line) {
        for (byte[] prefix : prefixes) {
            if (line.length >= prefix.length && regionEquals(line, prefix, prefix.length)) {
                return true;
            }
        }
        return false;
    }

    private boolean couldStartAny(byte[] line) {
        for (byte[] prefix : prefixes) {
            if (line.length < prefix.length && regionEquals(line, prefix, line.length)) {
                return true;
            }
        }
        return false;
    }

    private static boolean regionEquals(byte[] a, byte[] b, int length) {
        return java.util.Arrays.equals(a, 0, length, b, 0, length);
    }
}
