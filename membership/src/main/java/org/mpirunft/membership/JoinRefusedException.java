package org.mpirunft.membership;

/**
 * The group did not admit this member: its coordinator refused the join (AUTH: the member does
 * not hold the cluster secret), or never answered it (with encryption on, a member with another
 * secret, or another encryption setting, cannot be read, so its join requests go unanswered).
 * Check that every node is configured with the same secret and encryption setting.
 */
public class JoinRefusedException extends JoinFailedException {
    public JoinRefusedException(String nodeName, String clusterName, String reason, Throwable cause) {
        super(nodeName, clusterName, "refused by the group (" + reason
                + "); check that this node has the same cluster secret as the others", cause);
    }

    /** The coordinator found by discovery did not answer {@code joinRequests} join requests. */
    public JoinRefusedException(String nodeName, String clusterName, int joinRequests) {
        super(nodeName, clusterName, "not admitted: the coordinator it found did not answer " + joinRequests
                + " join requests, which is what a different cluster secret or encryption setting looks like; check that "
                + "this node has the same cluster secret and encryption setting as the others", null);
    }
}
