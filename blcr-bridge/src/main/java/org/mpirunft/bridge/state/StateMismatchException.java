package org.mpirunft.bridge.state;

import org.mpirunft.bridge.BridgeException;

/** A checkpoint does not match what the rank registered: other names, types or lengths. */
public final class StateMismatchException extends BridgeException {
    private static final long serialVersionUID = 1L;

    public StateMismatchException(String message) {
        super(message);
    }
}
