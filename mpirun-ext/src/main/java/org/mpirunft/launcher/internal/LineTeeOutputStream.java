package org.mpirunft.launcher.internal;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Passes bytes through to {@code target} unchanged and at once (the job's output must stream
 * as mpirun would print it), and hands each complete line to {@code lines} as well. A line
 * longer than {@link #MAX_LINE} bytes is handed on in pieces. A listener that throws is logged,
 * never allowed to stop the stream. One writer thread per instance, as Commons Exec's pumps do.
 */
public final class LineTeeOutputStream extends OutputStream {
    static final int MAX_LINE = 64 * 1024;
    private static final Logger LOG = Logger.getLogger(LineTeeOutputStream.class.getName());

    private final OutputStream target;
    private final Consumer<String> lines;
    private final ByteArrayOutputStream current = new ByteArrayOutputStream(256);

    public LineTeeOutputStream(OutputStream target, Consumer<String> lines) {
        this.target = target;
        this.lines = lines;
    }

    @Override
    public void write(int b) throws IOException {
        write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] bytes, int offset, int length) throws IOException {
        target.write(bytes, offset, length);
        target.flush();
        int start = offset;
        int end = offset + length;
        for (int i = offset; i < end; i++) {
            if (bytes[i] == '\n') {
                current.write(bytes, start, i - start);
                emit();
                start = i + 1;
            } else if (current.size() + (i - start) >= MAX_LINE) {
                current.write(bytes, start, i - start);
                emit();
                start = i;
            }
        }
        current.write(bytes, start, end - start);
    }

    @Override
    public void flush() throws IOException {
        target.flush();
    }

    /** Hands on an unfinished last line; the target stays open (it is the launcher's own stdout or stderr). */
    @Override
    public void close() throws IOException {
        if (current.size() > 0) {
            emit();
        }
        target.flush();
    }

    private void emit() {
        String line = current.toString(StandardCharsets.UTF_8);
        current.reset();
        if (line.endsWith("\r")) {
            line = line.substring(0, line.length() - 1);
        }
        try {
            lines.accept(line);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "mpirun-ft: reading a line of the job's output failed: " + e.getMessage(), e);
        }
    }
}
