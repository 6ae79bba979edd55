package org.mpirunft.launcher.internal;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * Passes a stream through, except the lines that match one of the {@link Drop}s: those go
 * whole. Any other line streams on as it comes: only while the start of a line could still
 * become a dropped one are its bytes held back (and, for a drop that also looks inside the line,
 * until the line ends), and they go out at the first byte that rules it out. {@link #flush}
 * keeps a held start (the writer before this one flushes after every write); {@link #finish}
 * lets it out once the stream is over.
 *
 * <p>For the notices a JVM prints because of options mpirun-ft gave it, which the user did not
 * ask for and would otherwise see once per rank.
 */
public final class LineDropFilter extends OutputStream {
    /** A held line longer than this is let out: no notice is this long. */
    static final int MAX_HELD = 64 * 1024;

    /** Drops a line that starts with {@code prefix} and, if {@code containing} is not empty, also contains it. */
    public record Drop(String prefix, String containing) {
        public static Drop startingWith(String prefix) {
            return new Drop(prefix, "");
        }
    }

    private final OutputStream target;
    private final List<byte[]> prefixes;
    private final List<byte[]> containing;
    private byte[] held = new byte[256];
    private int heldLength;
    private State state = State.LINE_START;

    private enum State { LINE_START, HOLDING, PASSING, DROPPING }

    public LineDropFilter(OutputStream target, List<Drop> drops) {
        this.target = target;
        List<Drop> real = drops.stream().filter(d -> !d.prefix().isEmpty()).toList();
        this.prefixes = real.stream().map(d -> d.prefix().getBytes(StandardCharsets.UTF_8)).toList();
        this.containing = real.stream().map(d -> d.containing().getBytes(StandardCharsets.UTF_8)).toList();
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
                    if (heldLength == held.length) {
                        held = Arrays.copyOf(held, held.length * 2);
                    }
                    held[heldLength++] = b;
                    state = judge(b == '\n');
                }
            }
        }
        if (passFrom >= 0) {
            target.write(bytes, passFrom, offset + length - passFrom);
        }
    }

    /**
     * The state after the held line start grew by one byte; lets it out or drops it once that is
     * decided. Each byte costs at most one comparison per prefix; a line is searched for its
     * {@code containing} part once, when it ends.
     */
    private State judge(boolean ended) throws IOException {
        boolean undecided = false;
        for (int d = 0; d < prefixes.size(); d++) {
            byte[] prefix = prefixes.get(d);
            if (heldLength < prefix.length) {
                undecided |= !ended && Arrays.equals(held, 0, heldLength, prefix, 0, heldLength);
            } else if (Arrays.equals(held, 0, prefix.length, prefix, 0, prefix.length)) {
                if (containing.get(d).length == 0 || (ended && contains(held, heldLength, containing.get(d)))) {
                    heldLength = 0;
                    return ended ? State.LINE_START : State.DROPPING;
                }
                undecided |= !ended && heldLength < MAX_HELD;
            }
        }
        if (undecided) {
            return State.HOLDING;
        }
        letOut();
        return ended ? State.LINE_START : State.PASSING;
    }

    private void letOut() throws IOException {
        target.write(held, 0, heldLength);
        heldLength = 0;
    }

    private static boolean contains(byte[] line, int length, byte[] part) {
        outer:
        for (int i = 0; i + part.length <= length; i++) {
            for (int j = 0; j < part.length; j++) {
                if (line[i + j] != part[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    /** Flushes what has been let through; a held line start stays held. */
    @Override
    public void flush() throws IOException {
        target.flush();
    }

    /** The stream is over: a line start still held goes out (it ended before it could match). */
    public void finish() throws IOException {
        if (heldLength > 0) {
            letOut();
        }
        state = State.LINE_START;
        target.flush();
    }
}
