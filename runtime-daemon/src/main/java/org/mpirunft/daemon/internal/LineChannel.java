package org.mpirunft.daemon.internal;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import org.mpirunft.daemon.protocol.ProtocolException;
import org.mpirunft.daemon.protocol.Wire;

/** Newline-delimited messages over a stream, with a bound on the line length. */
final class LineChannel {
    private final InputStream in;
    private final OutputStream out;

    LineChannel(InputStream in, OutputStream out) {
        this.in = in;
        this.out = out;
    }

    /** The next line, or null at end of stream; a line over {@link Wire#MAX_LINE} bytes is refused. */
    String readLine() throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int b;
        while ((b = in.read()) >= 0) {
            if (b == '\n') {
                return line.toString(StandardCharsets.UTF_8);
            }
            if (line.size() >= Wire.MAX_LINE) {
                throw new ProtocolException("message longer than " + Wire.MAX_LINE + " bytes");
            }
            line.write(b);
        }
        return line.size() == 0 ? null : line.toString(StandardCharsets.UTF_8);
    }

    synchronized void write(Object message) throws IOException {
        out.write((Wire.encode(message) + "\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
    }
}
