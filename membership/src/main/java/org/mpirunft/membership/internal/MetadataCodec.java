package org.mpirunft.membership.internal;

import java.net.InetSocketAddress;
import org.jgroups.Address;
import org.jgroups.util.ExtendedUUID;
import org.jgroups.util.NameCache;
import org.jgroups.util.UUID;
import org.mpirunft.membership.NodeMetadata;
import org.mpirunft.membership.NodeRole;

/**
 * Puts a member's {@link NodeMetadata} into its JGroups address (an {@link ExtendedUUID}), so
 * that every view carries every member's metadata: a member that installs a view knows who is in
 * it without waiting for a message, and all members agree on it. The cost is about 100 bytes
 * per address in each message header; JGroups limits the value to 255 bytes.
 */
public final class MetadataCodec {
    static final String KEY = "mpirunft.meta";
    private static final int MAX_BYTES = 0xff;

    /** The JSON form, versioned like the {@link WireMessage}s. */
    record NodeMetadataV1(int v, String name, NodeRole role, int slots, String controlHost, int controlPort) {
    }

    private MetadataCodec() {
    }

    public static byte[] encode(NodeMetadata metadata) {
        NodeMetadataV1 wire = new NodeMetadataV1(WireMessage.VERSION, metadata.name(), metadata.role(), metadata.slots(),
                metadata.controlAddress().getHostString(), metadata.controlAddress().getPort());
        byte[] bytes = WireCodec.encode(wire);
        if (bytes.length > MAX_BYTES) {
            throw new IllegalArgumentException("node metadata of " + metadata.name() + " takes " + bytes.length
                    + " bytes, more than the " + MAX_BYTES + " a group address can carry; shorten the names");
        }
        return bytes;
    }

    public static NodeMetadata decode(byte[] bytes) {
        NodeMetadataV1 wire = WireCodec.decode(bytes, NodeMetadataV1.class);
        return new NodeMetadata(wire.name(), wire.role() == null ? NodeRole.UNKNOWN : wire.role(), wire.slots(),
                InetSocketAddress.createUnresolved(wire.controlHost(), wire.controlPort()));
    }

    /** A fresh address for a new incarnation of this node, carrying its metadata. */
    public static ExtendedUUID newAddress(NodeMetadata metadata) {
        return ExtendedUUID.randomUUID(metadata.name()).put(KEY, encode(metadata));
    }

    /**
     * The metadata an address carries. An address without it (not one of ours) gets a
     * placeholder named after its logical name, so it can still be shown.
     */
    public static NodeMetadata metadataOf(Address address) {
        if (address instanceof ExtendedUUID extended) {
            byte[] bytes = extended.get(KEY);
            if (bytes != null) {
                return decode(bytes);
            }
        }
        String logical = NameCache.get(address);
        String name = logical == null ? "unknown-" + idOf(address).substring(0, 8) : logical.replaceAll("[^A-Za-z0-9._-]", "_");
        return new NodeMetadata(name, NodeRole.UNKNOWN, 0, InetSocketAddress.createUnresolved("unknown", 0));
    }

    /** The member id of an address: its UUID, which stays the same for one incarnation. */
    public static String idOf(Address address) {
        return address instanceof UUID uuid ? uuid.toStringLong() : String.valueOf(address);
    }
}
