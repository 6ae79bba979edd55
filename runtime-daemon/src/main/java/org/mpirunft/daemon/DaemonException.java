package org.mpirunft.daemon;

/** The root of the daemon's exceptions; the message is one line, fit for a user. */
public class DaemonException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public DaemonException(String message) {
        super(message);
    }

    public DaemonException(String message, Throwable cause) {
        super(message, cause);
    }
}
