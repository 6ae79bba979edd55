package org.mpirunft.membership;

/** The root of this module's exceptions. */
public class MembershipException extends RuntimeException {
    public MembershipException(String message) {
        super(message);
    }

    public MembershipException(String message, Throwable cause) {
        super(message, cause);
    }
}
