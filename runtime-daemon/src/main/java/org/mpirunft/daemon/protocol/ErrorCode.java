package org.mpirunft.daemon.protocol;

/** Why a request failed; clients map these to exit codes. */
public enum ErrorCode {
    /** Malformed JSON, an unknown type, a wrong version or a bad field value. */
    BAD_REQUEST,
    /** The caller may not do this: wrong user, wrong secret, a command that is not Open MPI's daemon. */
    REFUSED,
    /** A node or job that the daemon does not know. */
    NOT_FOUND,
    /** The target node's daemon did not answer. */
    UNREACHABLE,
    /** The daemon fenced itself and takes no new work until the group takes it back. */
    FENCED,
    /** Anything else; the message says what. */
    INTERNAL
}
