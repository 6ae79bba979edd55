package org.mpirunft.bridge;

/** The root of everything blcr-bridge throws; subclasses carry the rank, epoch or path involved. */
public class BridgeException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public BridgeException(String message) {
        super(message);
    }

    public BridgeException(String message, Throwable cause) {
        super(message, cause);
    }
}
