package org.mpirunft.membership;

/**
 * Receives membership events, one at a time and in order, on the membership service's own
 * thread (never on a JGroups thread, never under a lock of the service). Implementations must
 * not block for long: later events wait for them.
 */
@FunctionalInterface
public interface MembershipListener {
    void onEvent(MembershipEvent event);
}
