package org.mpirunft.daemon;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalDouble;
import org.mpirunft.membership.Discovery;
import org.mpirunft.membership.MembershipConfig;
import org.mpirunft.membership.NodeRole;

/**
 * One node daemon's settings, read from its YAML file by {@link FtdConfigReader}. Immutable and
 * validated when read.
 *
 * @param node          this node's name, unique in the cluster
 * @param role          compute, spare or launcher
 * @param slots         ranks the node may run
 * @param clusterName   the group's name
 * @param bind          the address the group and the peer port listen on
 * @param groupPort     the group's (JGroups) port
 * @param peerPort      the port other daemons reach this one on (launches, rank control)
 * @param members       every node's group address, for static discovery
 * @param secretFile    the cluster secret, readable by the daemon's user only
 * @param encryption    whether group traffic is encrypted (on unless the file says {@code encryption: false})
 * @param profile       the group's timeouts: production or fast (tests)
 * @param socket        the control socket for local clients
 * @param prted         Open MPI's node daemon: the only program remote launches may start
 * @param rankSocket    the rank control channel's socket: each rank of the node connects to it
 * @param stateDir      the daemon's own files: logs of the node daemons it started
 * @param scheduler     the cluster-wide scheduler config file, if this daemon runs a scheduler
 * @param health        the node's health check, if it has one
 * @param transparent   how this node takes part in transparent mode (CRIU), if it does
 * @param stack         the group's JGroups stack file, if the operator replaced the shipped one
 * @param operators     the group whose members may act on every job and on the nodes, as root may
 */
public record FtdConfig(String node, NodeRole role, int slots, String clusterName, InetAddress bind, int groupPort,
                        int peerPort, List<InetSocketAddress> members, Path secretFile, boolean encryption,
                        MembershipConfig.Profile profile, Path socket, Path prted, Path rankSocket, Path stateDir,
                        Optional<Path> scheduler, Optional<HealthCheck> health, Optional<Transparent> transparent,
                        Optional<Path> stack, Optional<String> operators) {
    public static final int VERSION = 1;

    public FtdConfig {
        members = List.copyOf(members);
        health = health == null ? Optional.empty() : health;
        transparent = transparent == null ? Optional.empty() : transparent;
        stack = stack == null ? Optional.empty() : stack;
        operators = operators == null ? Optional.empty() : operators;
    }

    /** As below, with no transparent mode. */
    public FtdConfig(String node, NodeRole role, int slots, String clusterName, InetAddress bind, int groupPort, int peerPort,
                     List<InetSocketAddress> members, Path secretFile, boolean encryption, MembershipConfig.Profile profile, Path socket,
                     Path prted, Path rankSocket, Path stateDir, Optional<Path> scheduler, Optional<HealthCheck> health) {
        this(node, role, slots, clusterName, bind, groupPort, peerPort, members, secretFile, encryption, profile, socket, prted,
                rankSocket, stateDir, scheduler, health, Optional.empty(), Optional.empty(), Optional.empty());
    }

    /** As above, with no health check. */
    public FtdConfig(String node, NodeRole role, int slots, String clusterName, InetAddress bind, int groupPort, int peerPort,
                     List<InetSocketAddress> members, Path secretFile, boolean encryption, MembershipConfig.Profile profile, Path socket,
                     Path prted, Path rankSocket, Path stateDir, Optional<Path> scheduler) {
        this(node, role, slots, clusterName, bind, groupPort, peerPort, members, secretFile, encryption, profile, socket, prted,
                rankSocket, stateDir, scheduler, Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty());
    }

    /**
     * The group's settings for this node's membership: the profile's timeouts, static discovery of
     * {@link #members()}, the stack file if one is configured, the replicated log under
     * {@link #groupLogDirectory()}, and the channel's MBeans on the platform MBean server (JMX),
     * so that jconsole on the node shows the group's counters.
     */
    public MembershipConfig membershipConfig(byte[] secret) {
        return MembershipConfig.builder(profile)
                .clusterName(clusterName)
                .bindAddress(bind)
                .bindPort(groupPort)
                .discovery(Discovery.staticHosts(members))
                .clusterSecret(secret)
                .encryption(encryption)
                .stackFile(stack.orElse(null))
                .logDirectory(groupLogDirectory())
                .jmx(true)
                .build();
    }

    /** This node's copy of the group's replicated log (the scheduler's decisions): node-local, the daemon's only. */
    public Path groupLogDirectory() {
        return stateDir.resolve("group-log");
    }

    /**
     * The node's own health check, as sites run one for Slurm ({@code HealthCheckProgram}): a
     * command run by {@code /bin/sh -c} every {@code every}. It finds the node degrading when it
     * exits non-zero, runs longer than {@code timeout}, or, with a {@code threshold}, prints a
     * last line that is a number above it (a temperature, a count of corrected memory errors).
     * A degrading node is drained: its ranks are moved to spares before it fails.
     */
    public record HealthCheck(String command, Duration every, Duration timeout, OptionalDouble threshold) {
    }

    /**
     * Transparent mode on this node. A job's processes talk over the job network only: on each
     * node an interface of its own ({@code jobInterface}) holding the node's floating address,
     * which a spare takes over when the node is lost (a macvlan of {@code parent}), so that the
     * restored processes' connections find their peers where they were.
     *
     * @param jobInterface the job network's interface (Open MPI's {@code btl_tcp_if_include})
     * @param parent       the interface a spare hangs a taken-over floating address on
     * @param images       node-local storage for this node's CRIU images
     * @param criu         the CRIU binary
     * @param timeout      the bound of one dump or restore on this node
     * @param tcpRtoMax    the cap on a TCP retransmission timeout the daemon sets in its network
     *                     namespace ({@code net.ipv4.tcp_rto_max_ms}): how long after a checkpoint's
     *                     lock the job's dropped messages go again, at most
     */
    public record Transparent(String jobInterface, String parent, Path images, Path criu, Duration timeout, Duration tcpRtoMax) {
        /** The default cap: a dropped message goes again within a second of the unlock. */
        public static final Duration DEFAULT_TCP_RTO_MAX = Duration.ofSeconds(1);

        /** As above, with the default cap. */
        public Transparent(String jobInterface, String parent, Path images, Path criu, Duration timeout) {
            this(jobInterface, parent, images, criu, timeout, DEFAULT_TCP_RTO_MAX);
        }

        /** How long a daemon waits for another's reply to one step: the step's own bound and a margin, at least 30 s. */
        public Duration replyBound() {
            Duration bound = timeout.plusSeconds(10);
            return bound.compareTo(Duration.ofSeconds(30)) > 0 ? bound : Duration.ofSeconds(30);
        }

        /**
         * The longest the coordinator can hold a job's lock: its LOCK and DUMP steps (or LOCK and
         * STOP before a restore, which kills the connections), each waited for within the reply bound.
         */
        public Duration longestLock() {
            return replyBound().multipliedBy(2);
        }
    }

    public InetSocketAddress peerAddress() {
        return new InetSocketAddress(bind, peerPort);
    }
}
