package org.mpirunft.membership;

/**
 * The group's coordinator refused the join: the member does not hold the cluster secret (or
 * holds a different one). Check that every node is configured with the same secret.
 */
public class JoinRefusedException extends JoinFailedException {
    public JoinRefusedException(String nodeName, String clusterName, String reason, Throwable cause) {
        super(nodeName, clusterName, "refused by the group (" + reason
                + "); check that this node has the same cluster secret as the others", cause);
    }
}
