package org.mpirunft.membership;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Objects;

/** How a member finds the others when it joins, and how partitions find each other to merge. */
public sealed interface Discovery {

    /**
     * The cluster's static node list (JGroups {@code TCPPING}): the group address and port of
     * every node, from the cluster configuration. The default; no multicast traffic.
     */
    record StaticHosts(List<InetSocketAddress> hosts) implements Discovery {
        public StaticHosts {
            Objects.requireNonNull(hosts, "hosts must be set");
            if (hosts.isEmpty()) {
                throw new IllegalArgumentException("static discovery needs at least one host");
            }
            hosts = List.copyOf(hosts);
        }
    }

    /**
     * IP multicast discovery (JGroups {@code MPING}) for networks that allow it. Only discovery
     * uses multicast; group traffic stays on TCP.
     */
    record Multicast(InetAddress group, int port, int timeToLive) implements Discovery {
        public Multicast {
            Objects.requireNonNull(group, "group must be set");
            if (!group.isMulticastAddress()) {
                throw new IllegalArgumentException("group must be a multicast address, got " + group.getHostAddress());
            }
            if (port < 1 || port > 65535) {
                throw new IllegalArgumentException("port must be in 1..65535, got " + port);
            }
            if (timeToLive < 0 || timeToLive > 255) {
                throw new IllegalArgumentException("timeToLive must be in 0..255, got " + timeToLive);
            }
        }
    }

    static Discovery staticHosts(List<InetSocketAddress> hosts) {
        return new StaticHosts(hosts);
    }

    static Discovery multicast(InetAddress group, int port) {
        return new Multicast(group, port, 2);
    }
}
