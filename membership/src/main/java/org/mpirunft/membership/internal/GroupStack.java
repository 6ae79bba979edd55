package org.mpirunft.membership.internal;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.jgroups.JChannel;
import org.jgroups.conf.ProtocolConfiguration;
import org.jgroups.conf.ProtocolStackConfigurator;
import org.jgroups.protocols.AUTH;
import org.jgroups.protocols.SYM_ENCRYPT;
import org.jgroups.protocols.raft.RAFT;
import org.jgroups.stack.Protocol;
import org.mpirunft.membership.Discovery;
import org.mpirunft.membership.MembershipConfig;
import org.mpirunft.membership.StackFileException;

/**
 * Builds a member's JGroups stack from a stack file in JGroups' XML form: the one shipped in this
 * jar ({@code org/mpirunft/membership/ftd-stack.xml}: TCP, TCPPING, SYM_ENCRYPT, SERIALIZE, ExpulsionProbe,
 * MERGE3, FD_SOCK2, FD_ALL, VERIFY_SUSPECT2, BARRIER, NAKACK2, UNICAST3, STABLE, AUTH, EventTap,
 * GMS, FRAG2) or an operator's ({@link MembershipConfig#stackFile()}). The file's
 * {@code ${mpirunft.*}} variables are filled in from the member's config ({@link #variables}).
 *
 * <p>What the file cannot say stays here, because it is not text:
 * <ul>
 *   <li>AUTH's token and SYM_ENCRYPT's key, both derived from the cluster secret, are set on the
 *       protocols as JGroups creates them, before their {@code init};</li>
 *   <li>SYM_ENCRYPT and SERIALIZE are removed unless {@link MembershipConfig#encryption()} is on
 *       (and must be in the file when it is);</li>
 *   <li>with {@link Discovery.Multicast}, MPING takes TCPPING's place (the file describes the
 *       static node list, which is what the daemon uses).</li>
 * </ul>
 * {@link #describe} prints the effective stack in JGroups' XML form.
 */
public final class GroupStack {
    /** Everything the service needs to keep from the stack. */
    public record Parts(JChannel channel, EventTap tap, ExpulsionProbe probe, RAFT raft) {
    }

    /** Multicast discovery, in JGroups' one-line form; its variables are filled in as the file's are. */
    private static final String MPING = "MPING(bind_addr=${mpirunft.bind_addr};mcast_addr=${mpirunft.mcast_addr};"
            + "mcast_port=${mpirunft.mcast_port};ip_ttl=${mpirunft.ip_ttl})";

    /** jgroups-raft's protocols, in the stack only when the member keeps a replicated log. */
    private static final List<String> RAFT_PROTOCOLS = List.of("LeaderWatchELECTION", "PromptCommitRAFT", "REDIRECT");

    private GroupStack() {
    }

    public static Parts create(MembershipConfig config) throws Exception {
        GroupIds.register();
        StackTemplate stack = configure(config);
        ClusterKeys keys = ClusterKeys.derive(config.clusterSecret(), config.clusterName());
        JChannel channel;
        try {
            channel = new JChannel(new Configured(stack, keys));
        } catch (StackFileException e) {
            throw e;
        } catch (Exception e) {
            throw new StackFileException(stack.source(), "JGroups cannot build the stack: " + StackTemplate.oneLine(e), e);
        }
        return new Parts(channel, channel.getProtocolStack().findProtocol(EventTap.class),
                channel.getProtocolStack().findProtocol(ExpulsionProbe.class), channel.getProtocolStack().findProtocol(RAFT.class));
    }

    /** Builds the stack {@code config} names (opening no socket) and closes it; a {@link StackFileException} if it cannot. */
    public static void check(MembershipConfig config) {
        try {
            create(config).channel().close();
        } catch (StackFileException e) {
            throw e;
        } catch (Exception e) {
            throw new StackFileException(config.stackFile().map(Object::toString).orElse("classpath:" + StackTemplate.SHIPPED),
                    StackTemplate.oneLine(e), e);
        }
    }

    /** The shipped stack file's text. */
    public static String shippedXml() {
        return StackTemplate.shippedText();
    }

    /** The stack file's protocols for this member: SYM_ENCRYPT and discovery as configured, variables filled in. */
    static StackTemplate configure(MembershipConfig config) {
        StackTemplate stack = config.stackFile().map(StackTemplate::read).orElseGet(StackTemplate::shipped);
        stack.require("AUTH", "keeps members without the cluster secret out");
        stack.require("ExpulsionProbe", "tells removed members they were removed (org.mpirunft.membership.internal.ExpulsionProbe)");
        stack.require("EventTap", "the service needs, right below GMS (org.mpirunft.membership.internal.EventTap)");
        if (config.encryption()) {
            stack.require("SYM_ENCRYPT", "encryption is on");
            stack.require("SERIALIZE", "keeps the headers above SYM_ENCRYPT (sequence numbers included) inside the "
                    + "encryption; without it a captured message with an edited header is delivered again");
        } else {
            stack.remove("SYM_ENCRYPT");
            stack.remove("SERIALIZE");
        }
        if (config.logDirectory().isPresent()) {
            for (String protocol : RAFT_PROTOCOLS) {
                stack.require(protocol, "the replicated log needs (a log directory is configured)");
            }
        } else {
            RAFT_PROTOCOLS.forEach(stack::remove);
        }
        if (config.discovery() instanceof Discovery.Multicast) {
            try {
                stack.replace("TCPPING", new ProtocolConfiguration(MPING));
            } catch (Exception e) {
                throw new IllegalStateException("MPING's configuration: " + e.getMessage(), e);
            }
        }
        stack.substitute(variables(config));
        return stack;
    }

    /** The values of the stack file's variables for this member (times in milliseconds). */
    static Map<String, String> variables(MembershipConfig config) {
        Map<String, String> v = new TreeMap<>();
        v.put("mpirunft.bind_addr", config.bindAddress().getHostAddress());
        v.put("mpirunft.bind_port", Integer.toString(config.bindPort()));
        v.put("mpirunft.connect_timeout", ms(config.connectTimeout()));
        v.put("mpirunft.fd_sock_offset", Integer.toString(config.failureDetectorPortOffset()));
        v.put("mpirunft.heartbeat_interval", ms(config.heartbeatInterval()));
        v.put("mpirunft.heartbeat_timeout", ms(config.heartbeatTimeout()));
        v.put("mpirunft.verify_timeout", ms(config.verifyTimeout()));
        v.put("mpirunft.merge_min_interval", ms(config.mergeMinInterval()));
        v.put("mpirunft.merge_max_interval", ms(config.mergeMaxInterval()));
        v.put("mpirunft.retransmit_interval", ms(config.retransmitInterval()));
        v.put("mpirunft.join_timeout", ms(config.joinTimeout()));
        v.put("mpirunft.leave_timeout", ms(config.leaveTimeout()));
        v.put("mpirunft.view_ack_timeout", ms(config.viewAckTimeout()));
        // A few heartbeats: a former member that keeps talking hears it again soon, not at every message.
        v.put("mpirunft.notice_interval", ms(max(config.heartbeatInterval().multipliedBy(5), Duration.ofMillis(200))));
        config.logDirectory().ifPresent(dir -> {
            v.put("mpirunft.log_id", config.logId());
            v.put("mpirunft.voters", String.join(",", config.voters()));
            v.put("mpirunft.log_dir", dir.toString());
            v.put("mpirunft.log_resend_interval", ms(config.retransmitInterval()));
        });
        switch (config.discovery()) {
            case Discovery.StaticHosts hosts -> v.put("mpirunft.initial_hosts",
                    hosts.hosts().stream().map(GroupStack::hostAndPort).collect(Collectors.joining(",")));
            case Discovery.Multicast multicast -> {
                v.put("mpirunft.mcast_addr", multicast.group().getHostAddress());
                v.put("mpirunft.mcast_port", Integer.toString(multicast.port()));
                v.put("mpirunft.ip_ttl", Integer.toString(multicast.timeToLive()));
            }
        }
        return v;
    }

    /** The effective stack in JGroups' XML form. */
    public static String describe(JChannel channel) {
        return channel.getProtocolStack().printProtocolSpecAsXML();
    }

    private static String hostAndPort(InetSocketAddress address) {
        String host = address.getAddress() != null ? address.getAddress().getHostAddress() : address.getHostString();
        return host + "[" + address.getPort() + "]";
    }

    private static String ms(Duration d) {
        return Long.toString(d.toMillis());
    }

    private static Duration max(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
    }

    /**
     * The filled-in protocols, as JGroups asks for them, and the secret-derived parts, set on each
     * protocol after JGroups created it and set its attributes, and before its {@code init}.
     */
    private record Configured(StackTemplate stack, ClusterKeys keys) implements ProtocolStackConfigurator {
        @Override
        public List<ProtocolConfiguration> getProtocolStack() {
            return stack.protocols();
        }

        @Override
        public String getProtocolStackString() {
            return stack.protocols().stream().map(ProtocolConfiguration::getProtocolString).collect(Collectors.joining(":"));
        }

        @Override
        public void afterCreation(Protocol protocol) {
            switch (protocol) {
                case AUTH auth -> {
                    SecretToken token = new SecretToken(keys.authKey());
                    token.setAuth(auth);
                    auth.setAuthToken(token);
                }
                case SYM_ENCRYPT encrypt -> encrypt.setSecretKey(keys.encryptionKey(encrypt.symAlgorithm()));
                default -> {
                }
            }
        }
    }
}
