package org.mpirunft.membership;

import java.net.InetSocketAddress;
import java.util.Objects;
import org.mpirunft.common.Names;

/**
 * What a member announces about itself when it joins: it does not change while the member is in
 * the group. It travels inside the member's group address, so every view carries it and a join
 * event always has it (see {@code internal.MetadataCodec}).
 *
 * @param name           the node name from the cluster configuration, unique in the cluster
 * @param role           compute node or spare
 * @param slots          how many ranks the node can run
 * @param controlAddress where the node's daemon listens for control connections
 */
public record NodeMetadata(String name, NodeRole role, int slots, InetSocketAddress controlAddress) {
    private static final int MAX_HOST_LENGTH = 100;

    public NodeMetadata {
        Objects.requireNonNull(name, "name must be set");
        Objects.requireNonNull(role, "role must be set");
        Objects.requireNonNull(controlAddress, "controlAddress must be set");
        // Host-name-like (Names), so a node name can be used in file names and log prefixes.
        Names.requireName("name", name);
        if (slots < 0) {
            throw new IllegalArgumentException("slots must be >= 0, got " + slots);
        }
        if (controlAddress.getHostString().length() > MAX_HOST_LENGTH) {
            throw new IllegalArgumentException("controlAddress host must be at most " + MAX_HOST_LENGTH + " characters");
        }
    }

    public static NodeMetadata compute(String name, int slots, InetSocketAddress controlAddress) {
        return new NodeMetadata(name, NodeRole.COMPUTE, slots, controlAddress);
    }

    public static NodeMetadata spare(String name, int slots, InetSocketAddress controlAddress) {
        return new NodeMetadata(name, NodeRole.SPARE, slots, controlAddress);
    }

    /** host:port of the control address, without resolving it. */
    public String controlEndpoint() {
        return controlAddress.getHostString() + ":" + controlAddress.getPort();
    }
}
