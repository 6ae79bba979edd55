package org.mpirunft.membership.cli;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Locale;
import org.mpirunft.membership.Discovery;
import org.mpirunft.membership.MembershipConfig;
import org.mpirunft.membership.NodeMetadata;
import org.mpirunft.membership.NodeRole;
import picocli.CommandLine.Option;

/**
 * Who a test's member process is and where its group is: the options that {@code membership
 * member} and the scheduler's {@code scheduler-node} share (a picocli mixin).
 */
public final class NodeOptions {
    @Option(names = "--name", required = true, description = "Node name, unique in the cluster.")
    String name;

    @Option(names = "--role", defaultValue = "compute", description = "compute, spare or launcher (default: ${DEFAULT-VALUE}).")
    String role;

    @Option(names = "--slots", defaultValue = "1", description = "Slots of this node (default: ${DEFAULT-VALUE}).")
    int slots;

    @Option(names = "--cluster", defaultValue = "mpirun-ft", description = "Cluster name (default: ${DEFAULT-VALUE}).")
    String cluster;

    @Option(names = "--bind-addr", defaultValue = "127.0.0.1", description = "Address of the group transport (default: ${DEFAULT-VALUE}).")
    String bindAddress;

    @Option(names = "--port", required = true, description = "Port of the group transport.")
    int port;

    @Option(names = "--peers", split = ",", converter = HostPortConverter.class,
            description = "Static discovery: host:port of every node, comma-separated (default: this node alone).")
    List<InetSocketAddress> peers;

    @Option(names = "--profile", defaultValue = "production", description = "Membership timeouts: production or fast (default: ${DEFAULT-VALUE}).")
    String profile;

    public String name() {
        return name;
    }

    public int port() {
        return port;
    }

    /** The membership configuration of these options, for the caller to add its own settings to. */
    public MembershipConfig.Builder config(byte[] secret) throws UnknownHostException {
        return MembershipConfig.builder(MembershipConfig.Profile.valueOf(profile.toUpperCase(Locale.ROOT)))
                .clusterName(cluster)
                .bindAddress(InetAddress.getByName(bindAddress))
                .bindPort(port)
                .clusterSecret(secret)
                .discovery(Discovery.staticHosts(peers != null && !peers.isEmpty() ? peers
                        : List.of(new InetSocketAddress(bindAddress, port))));
    }

    /** This node's metadata, with its daemon's control endpoint at {@code controlPort} of the bind address. */
    public NodeMetadata metadata(int controlPort) {
        return metadata(InetSocketAddress.createUnresolved(bindAddress, controlPort));
    }

    NodeMetadata metadata(InetSocketAddress control) {
        return new NodeMetadata(name, NodeRole.valueOf(role.toUpperCase(Locale.ROOT)), slots, control);
    }
}
