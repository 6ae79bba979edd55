package org.mpirunft.membership;

/** What a node is for: running ranks, or standing by to replace a node that failed. */
public enum NodeRole {
    COMPUTE,
    SPARE,
    /** A member that announced no metadata; never set by this module's own members. */
    UNKNOWN
}
