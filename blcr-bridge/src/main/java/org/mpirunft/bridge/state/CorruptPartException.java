package org.mpirunft.bridge.state;

import java.io.IOException;

/** A checkpoint part failed its size, CRC or format check; its data must not be used. */
public final class CorruptPartException extends IOException {
    private static final long serialVersionUID = 1L;

    public CorruptPartException(String message) {
        super(message);
    }
}
