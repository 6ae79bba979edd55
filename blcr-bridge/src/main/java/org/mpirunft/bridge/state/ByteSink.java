package org.mpirunft.bridge.state;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/** Little-endian encoder for part headers. */
final class ByteSink {
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();

    ByteSink putByte(byte value) {
        bytes.write(value);
        return this;
    }

    ByteSink putInt(int value) {
        for (int i = 0; i < 4; i++) {
            bytes.write(value >>> (8 * i));
        }
        return this;
    }

    ByteSink putLong(long value) {
        for (int i = 0; i < 8; i++) {
            bytes.write((int) (value >>> (8 * i)));
        }
        return this;
    }

    ByteSink putName(String name) {
        byte[] utf8 = name.getBytes(StandardCharsets.UTF_8);
        putInt(utf8.length);
        bytes.write(utf8, 0, utf8.length);
        return this;
    }

    byte[] toByteArray() {
        return bytes.toByteArray();
    }
}
