package org.mpirunft.membership;

/**
 * Receives the application messages members send with {@link Membership#broadcast} and
 * {@link Membership#send}. Called on the membership service's own thread, the thread that also
 * delivers {@link MembershipEvent}s, one message at a time and never under a lock of the
 * service. Implementations must not block for long: later messages and events wait for them.
 */
@FunctionalInterface
public interface MessageListener {
    /**
     * @param sender  the node name of the member that sent the message
     * @param payload the bytes it sent; the listener owns this copy
     */
    void onMessage(String sender, byte[] payload);
}
