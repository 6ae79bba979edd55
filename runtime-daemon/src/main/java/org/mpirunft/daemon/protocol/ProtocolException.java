package org.mpirunft.daemon.protocol;

import org.mpirunft.daemon.DaemonException;

/** A message that cannot be read: malformed JSON, an unknown type or field, a wrong version. */
public final class ProtocolException extends DaemonException {
    private static final long serialVersionUID = 1L;

    public ProtocolException(String message) {
        super(message);
    }
}
