package org.mpirunft.daemon;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.mpirunft.common.BadValueException;
import org.mpirunft.common.Durations;
import org.mpirunft.common.InterfaceNames;
import org.mpirunft.common.Names;
import org.mpirunft.common.yaml.StrictYaml;
import org.mpirunft.membership.MembershipConfig;
import org.mpirunft.membership.NodeRole;
import org.mpirunft.membership.StackFile;
import org.mpirunft.membership.StackFileException;

/**
 * Reads and validates a node daemon's config file:
 *
 * <pre>
 * version: 1
 * node:
 *   name: node1
 *   role: compute            # compute, spare or launcher
 *   slots: 1
 * group:
 *   cluster: mpirun-ft
 *   bind: 10.213.0.1
 *   port: 7800               # the group's port
 *   peer-port: 7801          # daemon-to-daemon requests
 *   members: [10.213.0.1:7800, 10.213.0.2:7800]
 *   secret-file: /etc/mpirun-ft/secret
 *   encryption: true         # the default; false sends group traffic in clear (a warning at every start)
 *   profile: production      # or fast, for tests
 *   stack: /etc/mpirun-ft/jgroups.xml   # optional: the group's JGroups stack instead of the shipped one (`ftd stack`)
 * control:
 *   socket: /run/mpirun-ft/ftd.sock
 *   operators: hpcadmin    # optional: a group whose members may act on every job and node, as root
 * runtime:
 *   prted: /usr/bin/prted
 *   rank-socket: /run/mpirun-ft/ranks.sock
 *   state: /var/lib/mpirun-ft
 * scheduler: /etc/mpirun-ft/cluster.yaml   # optional
 * health:                  # optional: the node's health check (FtdConfig.HealthCheck)
 *   command: /usr/sbin/node-health
 *   every: 30s
 *   timeout: 10s           # default: the smaller of 10 s and every
 *   threshold: 85          # optional: the command prints a number, above it the node degrades
 * transparent:             # optional: this node takes part in transparent mode (FtdConfig.Transparent); {} for the defaults
 *   interface: job0        # the job network's interface, holding the node's floating address
 *   parent: eth0           # where a spare hangs a lost node's floating address (a macvlan)
 *   images: /var/lib/mpirun-ft/images   # node-local CRIU images
 *   criu: /usr/sbin/criu
 *   timeout: 60s           # one dump or restore (the peer requests' reply bound grows to match)
 *   tcp-rto-max: 1s        # net.ipv4.tcp_rto_max_ms the daemon sets in its network namespace (1s-120s)
 * </pre>
 *
 * The file is read by {@link StrictYaml}: every error is one line naming the file and the key,
 * and unknown keys are errors, since a misspelt key must not fall back to a default in silence.
 * A stack file ({@code group.stack}) is built here, with this node's values, so that a bad one is
 * such an error too, not a failed join.
 * The node's and the cluster's names follow {@link Names}.
 */
public final class FtdConfigReader {
    private FtdConfigReader() {
    }

    public static FtdConfig read(Path file) {
        return read(StrictYaml.read(file, ConfigException::new));
    }

    public static FtdConfig parse(String yaml, String source) {
        return read(StrictYaml.parse(yaml, source, ConfigException::new));
    }

    private static FtdConfig read(StrictYaml root) {
        root.keys("version", "node", "group", "control", "runtime", "scheduler", "health", "transparent").requireVersion(FtdConfig.VERSION);
        StrictYaml node = root.section("node", "name", "role", "slots");
        String name = node.required("name", Names::requireName);
        NodeRole role = node.value("role", "compute", FtdConfigReader::role);
        int slots = node.integer("slots", role == NodeRole.LAUNCHER ? 0 : 1, 0, 4096);

        StrictYaml group = root.section("group", "cluster", "bind", "port", "peer-port", "members", "secret-file", "encryption",
                "profile", "stack");
        String cluster = group.value("cluster", "mpirun-ft", Names::requireName);
        InetAddress bind = group.required("bind", FtdConfigReader::address);
        int port = group.integer("port", 7800, 1, 65535);
        int peerPort = group.integer("peer-port", port + 1, 1, 65535);
        if (peerPort == port) {
            throw group.error("peer-port", "must differ from group.port (" + port + ")");
        }
        List<InetSocketAddress> members = members(group, port);
        Path secretFile = group.required("secret-file", StrictYaml::absolute);
        boolean encryption = group.bool("encryption", true);
        MembershipConfig.Profile profile = group.value("profile", "production", (key, text) -> switch (text.toLowerCase(Locale.ROOT)) {
            case "production" -> MembershipConfig.Profile.PRODUCTION;
            case "fast" -> MembershipConfig.Profile.FAST;
            default -> throw new BadValueException(key, "must be production or fast, got '" + text + "'");
        });
        Optional<Path> stack = group.optional("stack", StrictYaml::absolute);

        StrictYaml control = root.section("control", "socket", "operators");
        Path socket = control.absolutePath("socket", "/run/mpirun-ft/ftd.sock");
        Optional<String> operators = control.optional("operators", (key, text) -> {
            if (!text.matches("[a-z_][a-z0-9_.-]{0,31}")) {
                throw new BadValueException(key, "must be a group name, got '" + text + "'");
            }
            return text;
        });
        StrictYaml runtime = root.section("runtime", "prted", "rank-socket", "state");
        Path prted = runtime.absolutePath("prted", "/usr/bin/prted");
        Path rankSocket = runtime.absolutePath("rank-socket", "/run/mpirun-ft/ranks.sock");
        Path state = runtime.absolutePath("state", "/var/lib/mpirun-ft");
        Optional<Path> scheduler = root.optional("scheduler", StrictYaml::absolute);
        FtdConfig config = new FtdConfig(name, role, slots, cluster, bind, port, peerPort, members, secretFile, encryption, profile,
                socket, prted, rankSocket, state, scheduler, health(root), transparent(root), stack, operators);
        if (stack.isPresent()) {
            checkStack(group, config);
        }
        return config;
    }

    private static void checkStack(StrictYaml group, FtdConfig config) {
        try {
            // The secret is read when the daemon starts; building the stack needs only its length.
            StackFile.check(config.membershipConfig(new byte[MembershipConfig.MIN_SECRET_BYTES]));
        } catch (StackFileException e) {
            throw group.error("stack", e.getMessage());
        }
    }

    private static Optional<FtdConfig.Transparent> transparent(StrictYaml root) {
        if (!root.has("transparent")) {
            return Optional.empty();
        }
        StrictYaml transparent = root.section("transparent", "interface", "parent", "images", "criu", "timeout", "tcp-rto-max");
        String jobInterface = transparent.value("interface", "job0", InterfaceNames::requireName);
        String parent = transparent.value("parent", "eth0", InterfaceNames::requireName);
        Path images = transparent.absolutePath("images", "/var/lib/mpirun-ft/images");
        Path criu = transparent.absolutePath("criu", "/usr/sbin/criu");
        Duration timeout = transparent.value("timeout", "60s", Durations::parsePositive);
        Duration tcpRtoMax = transparent.value("tcp-rto-max", Durations.format(FtdConfig.Transparent.DEFAULT_TCP_RTO_MAX),
                FtdConfigReader::tcpRtoMax);
        FtdConfig.Transparent settings = new FtdConfig.Transparent(jobInterface, parent, images, criu, timeout, tcpRtoMax);
        org.mpirunft.daemon.internal.TcpRetransmission.tooShort(tcpRtoMax, settings.longestLock()).ifPresent(why -> {
            throw transparent.error("tcp-rto-max", why);
        });
        return Optional.of(settings);
    }

    /** Linux's range of net.ipv4.tcp_rto_max_ms, in whole milliseconds. */
    private static Duration tcpRtoMax(String key, String text) {
        Duration cap = Durations.parse(key, text);
        if (cap.compareTo(Duration.ofSeconds(1)) < 0 || cap.compareTo(Duration.ofSeconds(120)) > 0 || cap.toNanos() % 1_000_000 != 0) {
            throw new BadValueException(key, "must be between 1s and 120s in whole milliseconds (Linux's range of"
                    + " net.ipv4.tcp_rto_max_ms), got '" + text + "'");
        }
        return cap;
    }

    private static Optional<FtdConfig.HealthCheck> health(StrictYaml root) {
        StrictYaml health = root.section("health", "command", "every", "timeout", "threshold");
        Optional<String> command = health.optional("command").filter(c -> !c.isEmpty());
        if (command.isEmpty()) {
            if (health.optional("every").isPresent() || health.optional("timeout").isPresent() || health.optional("threshold").isPresent()) {
                throw health.error("command", "is required when the section is given");
            }
            return Optional.empty();
        }
        Duration every = health.value("every", "30s", Durations::parsePositive);
        Duration timeout = health.value("timeout", Durations.format(every.compareTo(Duration.ofSeconds(10)) < 0 ? every
                : Duration.ofSeconds(10)), Durations::parsePositive);
        java.util.OptionalDouble threshold = health.optional("threshold", (key, text) -> {
            try {
                double value = Double.parseDouble(text);
                if (!Double.isFinite(value)) {
                    throw new BadValueException(key, "must be a finite number, got '" + text + "'");
                }
                return value;
            } catch (NumberFormatException e) {
                throw new BadValueException(key, "must be a number, got '" + text + "'");
            }
        }).map(java.util.OptionalDouble::of).orElse(java.util.OptionalDouble.empty());
        return Optional.of(new FtdConfig.HealthCheck(command.get(), every, timeout, threshold));
    }

    private static NodeRole role(String key, String value) {
        return switch (value.toLowerCase(Locale.ROOT)) {
            case "compute" -> NodeRole.COMPUTE;
            case "spare" -> NodeRole.SPARE;
            case "launcher" -> NodeRole.LAUNCHER;
            default -> throw new BadValueException(key, "must be compute, spare or launcher, got '" + value + "'");
        };
    }

    /** Every node's group address, {@code host[:port]}; the group's port where none is given. */
    private static List<InetSocketAddress> members(StrictYaml group, int defaultPort) {
        List<String> entries = group.list("members");
        if (entries.isEmpty()) {
            throw group.error("members", "must be a non-empty list of host[:port] (every node's group address)");
        }
        List<InetSocketAddress> members = new ArrayList<>();
        for (String text : entries) {
            int colon = text.lastIndexOf(':');
            String host = colon < 0 ? text : text.substring(0, colon);
            int port = defaultPort;
            if (colon >= 0) {
                try {
                    port = Integer.parseInt(text.substring(colon + 1));
                } catch (NumberFormatException e) {
                    port = -1;
                }
                if (port < 1 || port > 65535) {
                    throw group.error("members", "'" + text + "' has no valid port");
                }
            }
            try {
                members.add(new InetSocketAddress(address("members", host), port));
            } catch (BadValueException e) {
                throw group.error("members", e.problem());
            }
        }
        return members;
    }

    private static InetAddress address(String key, String host) {
        try {
            return InetAddress.getByName(host);
        } catch (UnknownHostException e) {
            throw new BadValueException(key, "cannot resolve host '" + host + "'");
        }
    }

    /** A config file that cannot be used; the message names the file, the key and the problem. */
    public static final class ConfigException extends DaemonException {
        private static final long serialVersionUID = 1L;

        public ConfigException(String message) {
            super(message);
        }
    }
}
