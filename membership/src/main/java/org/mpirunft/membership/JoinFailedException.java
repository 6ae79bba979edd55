package org.mpirunft.membership;

/** A member could not join the group. */
public class JoinFailedException extends MembershipException {
    private final String nodeName;
    private final String clusterName;

    public JoinFailedException(String nodeName, String clusterName, String reason, Throwable cause) {
        super(nodeName + ": could not join cluster '" + clusterName + "': " + reason, cause);
        this.nodeName = nodeName;
        this.clusterName = clusterName;
    }

    public String nodeName() {
        return nodeName;
    }

    public String clusterName() {
        return clusterName;
    }
}
