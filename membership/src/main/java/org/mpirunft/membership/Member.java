package org.mpirunft.membership;

import java.util.Objects;

/**
 * One member of the group.
 *
 * @param id       identifies this incarnation of the node: a daemon that joins again (after a
 *                 leave or a restart) gets a new id. A member that the group removed while it
 *                 was hung or partitioned keeps its id when it comes back through a merge; it
 *                 has been told it was expelled and has fenced itself, so treat its
 *                 {@link MembershipEvent.NodeJoined} like any new node's
 * @param metadata what the member announced when it joined
 * @param load     its last reported load, {@link NodeLoad#UNKNOWN} until it reports
 */
public record Member(String id, NodeMetadata metadata, NodeLoad load) {
    public Member {
        Objects.requireNonNull(id, "id must be set");
        Objects.requireNonNull(metadata, "metadata must be set");
        Objects.requireNonNull(load, "load must be set");
    }

    public String name() {
        return metadata.name();
    }

    public NodeRole role() {
        return metadata.role();
    }

    public Member withLoad(NodeLoad newLoad) {
        return new Member(id, metadata, newLoad);
    }

    @Override
    public String toString() {
        return metadata.name() + "(" + id.substring(0, Math.min(8, id.length())) + ")";
    }
}
