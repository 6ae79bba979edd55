package org.mpirunft.membership;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Immutable configuration of a {@link Membership}. Build it with {@link #builder()} (production
 * timeouts) or {@link #builder(Profile)}; every timeout can then be overridden.
 *
 * <p>Failure detection, as the JGroups stack implements it:
 * <ul>
 *   <li>a crashed process closes its sockets; {@code FD_SOCK2} notices in milliseconds and the
 *       node is removed after {@link #verifyTimeout()} (up to twice that, VERIFY_SUSPECT2 checks
 *       on a timer of that period);</li>
 *   <li>a hung process or a cut link is noticed by heartbeats ({@code FD_ALL}): after
 *       {@link #heartbeatTimeout()} without a message, give or take one
 *       {@link #heartbeatInterval()}, then verified for {@link #verifyTimeout()}.
 *       {@link #hangDetectionTime()} is that sum.</li>
 * </ul>
 * Field names follow the JGroups properties they set; {@code README.md} maps them.
 */
public final class MembershipConfig {
    /** Timeout sets. Production detects a hang in a few seconds; FAST is for tests on one machine. */
    public enum Profile {
        PRODUCTION(ms(250), ms(3000), ms(50), ms(2000), ms(6000), ms(2000), ms(2000), ms(2000), ms(1000), ms(2000), ms(200)),
        FAST(ms(100), ms(2000), ms(100), ms(500), ms(1500), ms(500), ms(1000), ms(1000), ms(500), ms(500), ms(100));

        final Duration heartbeatInterval;
        final Duration heartbeatTimeout;
        final Duration verifyTimeout;
        final Duration mergeMinInterval;
        final Duration mergeMaxInterval;
        final Duration joinTimeout;
        final Duration leaveTimeout;
        final Duration viewAckTimeout;
        final Duration connectTimeout;
        final Duration loadReportInterval;
        final Duration retransmitInterval;

        Profile(Duration heartbeatInterval, Duration heartbeatTimeout, Duration verifyTimeout,
                Duration mergeMinInterval, Duration mergeMaxInterval, Duration joinTimeout,
                Duration leaveTimeout, Duration viewAckTimeout, Duration connectTimeout,
                Duration loadReportInterval, Duration retransmitInterval) {
            this.heartbeatInterval = heartbeatInterval;
            this.heartbeatTimeout = heartbeatTimeout;
            this.verifyTimeout = verifyTimeout;
            this.mergeMinInterval = mergeMinInterval;
            this.mergeMaxInterval = mergeMaxInterval;
            this.joinTimeout = joinTimeout;
            this.leaveTimeout = leaveTimeout;
            this.viewAckTimeout = viewAckTimeout;
            this.connectTimeout = connectTimeout;
            this.loadReportInterval = loadReportInterval;
            this.retransmitInterval = retransmitInterval;
        }

        private static Duration ms(long millis) {
            return Duration.ofMillis(millis);
        }
    }

    /** A secret shorter than this is too easy to guess; generate one with 32 random bytes. */
    public static final int MIN_SECRET_BYTES = 16;

    private final String clusterName;
    private final InetAddress bindAddress;
    private final int bindPort;
    private final Discovery discovery;
    private final byte[] clusterSecret;
    private final boolean encryption;
    private final int failureDetectorPortOffset;
    private final Duration heartbeatInterval;
    private final Duration heartbeatTimeout;
    private final Duration verifyTimeout;
    private final Duration mergeMinInterval;
    private final Duration mergeMaxInterval;
    private final Duration joinTimeout;
    private final Duration leaveTimeout;
    private final Duration viewAckTimeout;
    private final Duration connectTimeout;
    private final Duration loadReportInterval;
    private final Duration retransmitInterval;
    private final Path stackFile;
    private final boolean jmx;
    private final Path logDirectory;
    private final int voterCount;
    private final List<String> voters;

    private MembershipConfig(Builder b) {
        this.clusterName = b.clusterName;
        this.bindAddress = b.bindAddress;
        this.bindPort = b.bindPort;
        this.discovery = b.discovery;
        this.clusterSecret = b.clusterSecret.clone();
        this.encryption = b.encryption;
        this.failureDetectorPortOffset = b.failureDetectorPortOffset;
        this.heartbeatInterval = b.heartbeatInterval;
        this.heartbeatTimeout = b.heartbeatTimeout;
        this.verifyTimeout = b.verifyTimeout;
        this.mergeMinInterval = b.mergeMinInterval;
        this.mergeMaxInterval = b.mergeMaxInterval;
        this.joinTimeout = b.joinTimeout;
        this.leaveTimeout = b.leaveTimeout;
        this.viewAckTimeout = b.viewAckTimeout;
        this.connectTimeout = b.connectTimeout;
        this.loadReportInterval = b.loadReportInterval;
        this.retransmitInterval = b.retransmitInterval;
        this.stackFile = b.stackFile;
        this.jmx = b.jmx;
        this.logDirectory = b.logDirectory;
        this.voters = b.voters != null ? List.copyOf(b.voters) : firstVoters(b.discovery, b.voterCount);
        this.voterCount = b.voterCount > 0 ? b.voterCount : voterCountFor(discoveredMembers(b.discovery));
    }

    /** 5 voters survive 2 losses between replacements, 3 survive 1; a smaller group votes whole. */
    private static int voterCountFor(int members) {
        return members >= 5 ? 5 : members >= 3 ? 3 : Math.max(members, 1);
    }

    private static int discoveredMembers(Discovery discovery) {
        return discovery instanceof Discovery.StaticHosts hosts ? hosts.hosts().size() : 1;
    }

    /**
     * The first voters: the first {@code count} ids of the static node list in sorted order, so that every
     * member that lists the same nodes, in any order, starts with the same voters.
     */
    private static List<String> firstVoters(Discovery discovery, int count) {
        if (!(discovery instanceof Discovery.StaticHosts hosts)) {
            return List.of();
        }
        int wanted = count > 0 ? count : voterCountFor(hosts.hosts().size());
        return hosts.hosts().stream().map(MembershipConfig::logId).distinct().sorted().limit(wanted).toList();
    }

    /** A member's id in the replicated log: its group address, {@code host:port}; unique among live members. */
    public static String logId(InetSocketAddress address) {
        String host = address.getAddress() != null ? address.getAddress().getHostAddress() : address.getHostString();
        return host + ":" + address.getPort();
    }

    public static Builder builder() {
        return new Builder(Profile.PRODUCTION);
    }

    public static Builder builder(Profile profile) {
        return new Builder(profile);
    }

    /** A builder holding this configuration's values, to derive a variant. */
    public Builder toBuilder() {
        Builder b = new Builder(Profile.PRODUCTION);
        b.clusterName = clusterName;
        b.bindAddress = bindAddress;
        b.bindPort = bindPort;
        b.discovery = discovery;
        b.clusterSecret = clusterSecret.clone();
        b.encryption = encryption;
        b.failureDetectorPortOffset = failureDetectorPortOffset;
        b.heartbeatInterval = heartbeatInterval;
        b.heartbeatTimeout = heartbeatTimeout;
        b.verifyTimeout = verifyTimeout;
        b.mergeMinInterval = mergeMinInterval;
        b.mergeMaxInterval = mergeMaxInterval;
        b.joinTimeout = joinTimeout;
        b.leaveTimeout = leaveTimeout;
        b.viewAckTimeout = viewAckTimeout;
        b.connectTimeout = connectTimeout;
        b.loadReportInterval = loadReportInterval;
        b.retransmitInterval = retransmitInterval;
        b.stackFile = stackFile;
        b.jmx = jmx;
        b.logDirectory = logDirectory;
        b.voterCount = voterCount;
        b.voters = voters;
        return b;
    }

    /** The JGroups cluster name; members of different clusters ignore each other. */
    public String clusterName() { return clusterName; }

    /** The address the group transport listens on (TCP {@code bind_addr}). */
    public InetAddress bindAddress() { return bindAddress; }

    /** The group transport's port (TCP {@code bind_port}); the failure detector uses this plus {@link #failureDetectorPortOffset()}. */
    public int bindPort() { return bindPort; }

    public Discovery discovery() { return discovery; }

    /** A copy of the shared secret (keys for AUTH and, when enabled, SYM_ENCRYPT are derived from it). */
    public byte[] clusterSecret() { return clusterSecret.clone(); }

    /**
     * Whether message payloads are encrypted (SYM_ENCRYPT with a key derived from the secret). On
     * by default: the group carries job names, node addresses and orders. Off only when the
     * builder is told so; every member of a group must have the same setting.
     */
    public boolean encryption() { return encryption; }

    /** FD_SOCK2 {@code offset}: its server socket listens on {@code bindPort + offset}. */
    public int failureDetectorPortOffset() { return failureDetectorPortOffset; }

    /** FD_ALL {@code interval}, and how often it checks for a silent member. */
    public Duration heartbeatInterval() { return heartbeatInterval; }

    /** FD_ALL {@code timeout}. */
    public Duration heartbeatTimeout() { return heartbeatTimeout; }

    /** VERIFY_SUSPECT2 {@code timeout}. */
    public Duration verifyTimeout() { return verifyTimeout; }

    /** MERGE3 {@code min_interval}. */
    public Duration mergeMinInterval() { return mergeMinInterval; }

    /** MERGE3 {@code max_interval}; partitions are checked every 1.6 times this. */
    public Duration mergeMaxInterval() { return mergeMaxInterval; }

    /** GMS {@code join_timeout}. */
    public Duration joinTimeout() { return joinTimeout; }

    /** How long a leaving member waits for the others to acknowledge its leave, and GMS {@code leave_timeout}. */
    public Duration leaveTimeout() { return leaveTimeout; }

    /** GMS {@code view_ack_collection_timeout}. */
    public Duration viewAckTimeout() { return viewAckTimeout; }

    /** TCP {@code sock_conn_timeout}, and FD_SOCK2 {@code connect_timeout}. */
    public Duration connectTimeout() { return connectTimeout; }

    /** How often a member samples its load and publishes it if it changed. */
    public Duration loadReportInterval() { return loadReportInterval; }

    /**
     * NAKACK2 and UNICAST3 {@code xmit_interval}: how soon a lost message is sent again. A view
     * or notice lost on a TCP connection that JGroups replaces (it happens while members join)
     * arrives this much later; JGroups' default of a second would break the 500 ms budget.
     */
    public Duration retransmitInterval() { return retransmitInterval; }

    /**
     * The JGroups stack file used instead of the one shipped in this module's jar
     * ({@code org/mpirunft/membership/ftd-stack.xml}, see {@link StackFile}); its
     * {@code ${mpirunft.*}} variables are filled in from this configuration. Empty: the shipped one.
     */
    public Optional<Path> stackFile() { return Optional.ofNullable(stackFile); }

    /**
     * Whether the member registers its channel and protocols with the platform MBean server
     * while it is joined ({@code mpirun-ft:type=protocol,cluster=CLUSTER/NODE,protocol=FD_ALL}, ...),
     * for jconsole and the like. Off by default; the daemon turns it on.
     */
    public boolean jmx() { return jmx; }

    /**
     * Where this member keeps its copy of the replicated log ({@link ReplicatedLog}); node-local,
     * never shared. Empty: the group has no replicated log (the stack leaves jgroups-raft out).
     */
    public Optional<Path> logDirectory() { return Optional.ofNullable(logDirectory); }

    /** This member's id in the replicated log, {@link #logId(InetSocketAddress)} of its bind address and port. */
    public String logId() { return logId(new InetSocketAddress(bindAddress, bindPort)); }

    /**
     * How many members vote on the log: 5 in a group of 5 or more, 3 in one of 3 or 4, else
     * all; the leader keeps the set at this size while enough members are in the view.
     */
    public int voterCount() { return voterCount; }

    /**
     * The first voters' ids, used only by a member whose log is empty: afterwards the log says
     * who votes. By default the first {@link #voterCount()} ids ({@code host:port}) of the static node list, sorted
     * (every member must list the same nodes); with multicast discovery they must be given.
     */
    public List<String> voters() { return voters; }

    /**
     * The time after which a silent (hung or cut-off) member is removed:
     * {@code heartbeatTimeout + verifyTimeout}, give or take one {@code heartbeatInterval}.
     */
    public Duration hangDetectionTime() {
        return heartbeatTimeout.plus(verifyTimeout);
    }

    @Override
    public String toString() {
        return "MembershipConfig{cluster=" + clusterName + ", bind=" + bindAddress.getHostAddress() + ":" + bindPort
                + ", discovery=" + discovery + ", secret=<" + clusterSecret.length + " bytes>, encryption=" + encryption
                + ", heartbeat=" + heartbeatInterval.toMillis() + "/" + heartbeatTimeout.toMillis() + " ms, verify="
                + verifyTimeout.toMillis() + " ms, merge=" + mergeMinInterval.toMillis() + "-" + mergeMaxInterval.toMillis()
                + " ms" + (stackFile == null ? "" : ", stack=" + stackFile) + "}";
    }

    public static final class Builder {
        private String clusterName = "mpirun-ft";
        private InetAddress bindAddress = InetAddress.getLoopbackAddress();
        private int bindPort = 7800;
        private Discovery discovery;
        private byte[] clusterSecret;
        private boolean encryption = true;
        private int failureDetectorPortOffset = 100;
        private Duration heartbeatInterval;
        private Duration heartbeatTimeout;
        private Duration verifyTimeout;
        private Duration mergeMinInterval;
        private Duration mergeMaxInterval;
        private Duration joinTimeout;
        private Duration leaveTimeout;
        private Duration viewAckTimeout;
        private Duration connectTimeout;
        private Duration loadReportInterval;
        private Duration retransmitInterval;
        private Path stackFile;
        private boolean jmx;
        private Path logDirectory;
        private int voterCount;
        private List<String> voters;

        private Builder(Profile profile) {
            heartbeatInterval = profile.heartbeatInterval;
            heartbeatTimeout = profile.heartbeatTimeout;
            verifyTimeout = profile.verifyTimeout;
            mergeMinInterval = profile.mergeMinInterval;
            mergeMaxInterval = profile.mergeMaxInterval;
            joinTimeout = profile.joinTimeout;
            leaveTimeout = profile.leaveTimeout;
            viewAckTimeout = profile.viewAckTimeout;
            connectTimeout = profile.connectTimeout;
            loadReportInterval = profile.loadReportInterval;
            retransmitInterval = profile.retransmitInterval;
        }

        public Builder clusterName(String name) { this.clusterName = name; return this; }
        public Builder bindAddress(InetAddress address) { this.bindAddress = address; return this; }
        public Builder bindPort(int port) { this.bindPort = port; return this; }
        public Builder discovery(Discovery d) { this.discovery = d; return this; }
        public Builder clusterSecret(byte[] secret) { this.clusterSecret = secret == null ? null : secret.clone(); return this; }
        public Builder clusterSecret(String secret) {
            return clusterSecret(secret == null ? null : secret.getBytes(StandardCharsets.UTF_8));
        }
        public Builder encryption(boolean enabled) { this.encryption = enabled; return this; }
        public Builder failureDetectorPortOffset(int offset) { this.failureDetectorPortOffset = offset; return this; }
        public Builder heartbeatInterval(Duration d) { this.heartbeatInterval = d; return this; }
        public Builder heartbeatTimeout(Duration d) { this.heartbeatTimeout = d; return this; }
        public Builder verifyTimeout(Duration d) { this.verifyTimeout = d; return this; }
        public Builder mergeMinInterval(Duration d) { this.mergeMinInterval = d; return this; }
        public Builder mergeMaxInterval(Duration d) { this.mergeMaxInterval = d; return this; }
        public Builder joinTimeout(Duration d) { this.joinTimeout = d; return this; }
        public Builder leaveTimeout(Duration d) { this.leaveTimeout = d; return this; }
        public Builder viewAckTimeout(Duration d) { this.viewAckTimeout = d; return this; }
        public Builder connectTimeout(Duration d) { this.connectTimeout = d; return this; }
        public Builder loadReportInterval(Duration d) { this.loadReportInterval = d; return this; }
        public Builder retransmitInterval(Duration d) { this.retransmitInterval = d; return this; }
        /** An operator's JGroups stack file instead of the shipped one; null for the shipped one. */
        public Builder stackFile(Path file) { this.stackFile = file; return this; }
        public Builder jmx(boolean enabled) { this.jmx = enabled; return this; }
        /** Where this member keeps the replicated log; null for a group without one. */
        public Builder logDirectory(Path directory) { this.logDirectory = directory; return this; }
        /** How many members vote; 0 for the default ({@link MembershipConfig#voterCount()}). */
        public Builder voterCount(int count) { this.voterCount = count; return this; }
        /** The first voters' ids ({@code host:port}); null for the default ({@link MembershipConfig#voters()}). */
        public Builder voters(List<String> ids) { this.voters = ids; return this; }

        public MembershipConfig build() {
            if (clusterName == null || clusterName.isBlank()) {
                throw new IllegalArgumentException("clusterName must be set");
            }
            Objects.requireNonNull(bindAddress, "bindAddress must be set");
            checkPort("bindPort", bindPort);
            if (discovery == null) {
                throw new IllegalArgumentException("discovery must be set: the cluster's static node list "
                        + "(Discovery.staticHosts) or multicast discovery (Discovery.multicast)");
            }
            if (clusterSecret == null || clusterSecret.length < MIN_SECRET_BYTES) {
                throw new IllegalArgumentException("clusterSecret must be set and at least " + MIN_SECRET_BYTES
                        + " bytes long (for example 32 random bytes, base64-encoded)");
            }
            if (failureDetectorPortOffset < 1) {
                throw new IllegalArgumentException("failureDetectorPortOffset must be > 0");
            }
            checkPort("bindPort + failureDetectorPortOffset", bindPort + failureDetectorPortOffset);
            positive("heartbeatInterval", heartbeatInterval);
            positive("heartbeatTimeout", heartbeatTimeout);
            positive("verifyTimeout", verifyTimeout);
            positive("mergeMinInterval", mergeMinInterval);
            positive("mergeMaxInterval", mergeMaxInterval);
            positive("joinTimeout", joinTimeout);
            positive("leaveTimeout", leaveTimeout);
            positive("viewAckTimeout", viewAckTimeout);
            positive("connectTimeout", connectTimeout);
            positive("loadReportInterval", loadReportInterval);
            positive("retransmitInterval", retransmitInterval);
            if (heartbeatInterval.compareTo(heartbeatTimeout) >= 0) {
                throw new IllegalArgumentException("heartbeatInterval must be < heartbeatTimeout");
            }
            if (mergeMinInterval.compareTo(mergeMaxInterval) >= 0) {
                throw new IllegalArgumentException("mergeMinInterval must be < mergeMaxInterval");
            }
            if (voterCount < 0) {
                throw new IllegalArgumentException("voterCount must be >= 0 (0: the default), got " + voterCount);
            }
            if (logDirectory != null && voters == null && !(discovery instanceof Discovery.StaticHosts)) {
                throw new IllegalArgumentException("voters must be given for a replicated log with multicast discovery: "
                        + "there is no node list to take them from");
            }
            if (voters != null && (voters.isEmpty() || voters.stream().anyMatch(v -> v == null || !v.matches("[^,\\s]+:\\d+")))) {
                throw new IllegalArgumentException("voters must be a non-empty list of host:port ids, got " + voters);
            }
            return new MembershipConfig(this);
        }

        private static void positive(String name, Duration value) {
            if (value == null || value.isNegative() || value.isZero() || value.toMillis() < 1) {
                throw new IllegalArgumentException(name + " must be > 0 (and at least 1 ms)");
            }
        }

        private static void checkPort(String name, int port) {
            if (port < 1 || port > 65535) {
                throw new IllegalArgumentException(name + " must be in 1..65535, got " + port);
            }
        }
    }
}
