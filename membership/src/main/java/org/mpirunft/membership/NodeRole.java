package org.mpirunft.membership;

/** What a node is for: running ranks, standing by to replace a node that failed, or launching jobs. */
public enum NodeRole {
    COMPUTE,
    SPARE,
    /** Runs mpirun-ft and Open MPI's mpirun but never ranks (a login or head node). */
    LAUNCHER,
    /** A member that announced no metadata; never set by this module's own members. */
    UNKNOWN
}
