package org.mpirunft.membership.internal;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import org.jgroups.JChannel;
import org.jgroups.protocols.AUTH;
import org.jgroups.protocols.BARRIER;
import org.jgroups.protocols.FD_ALL3;
import org.jgroups.protocols.FD_SOCK2;
import org.jgroups.protocols.FRAG2;
import org.jgroups.protocols.MERGE3;
import org.jgroups.protocols.MPING;
import org.jgroups.protocols.SYM_ENCRYPT;
import org.jgroups.protocols.TCP;
import org.jgroups.protocols.TCPPING;
import org.jgroups.protocols.UNICAST3;
import org.jgroups.protocols.VERIFY_SUSPECT2;
import org.jgroups.protocols.pbcast.GMS;
import org.jgroups.protocols.pbcast.NAKACK2;
import org.jgroups.protocols.pbcast.STABLE;
import org.jgroups.stack.Protocol;
import org.mpirunft.membership.Discovery;
import org.mpirunft.membership.MembershipConfig;

/**
 * Builds the JGroups stack from a {@link MembershipConfig}, bottom to top:
 *
 * <pre>
 * TCP              bind_addr, bind_port, port_range=0, sock_conn_timeout; diagnostics off
 * TCPPING | MPING  static node list (port_range=0) | multicast discovery
 * SYM_ENCRYPT      optional; AES key derived from the secret
 * ExpulsionProbe   tells former members they were removed
 * MERGE3           min_interval, max_interval
 * FD_SOCK2         crash detection (offset, connect_timeout)
 * FD_ALL3          hang and cut-link detection (timeout, interval)
 * VERIFY_SUSPECT2  timeout
 * BARRIER, NAKACK2 (use_mcast_xmit=false, xmit_interval), UNICAST3 (xmit_interval), STABLE
 * AUTH             SecretToken, auth_coord=true
 * EventTap         verified suspicions and the service's ordered notices
 * GMS              join_timeout, leave_timeout, view_ack_collection_timeout
 * FRAG2
 * </pre>
 *
 * No flow control (MFC/UFC): the group's traffic is a few small messages per second, and a
 * flow-control block is one more way for a notice to be late. {@link #describe} prints the
 * effective stack in JGroups' XML form, which is what operators read.
 */
public final class GroupStack {
    /** Everything the service needs to keep from the stack. */
    public record Parts(JChannel channel, EventTap tap, ExpulsionProbe probe) {
    }

    private GroupStack() {
    }

    public static Parts create(MembershipConfig config) throws Exception {
        GroupIds.register();
        ClusterKeys keys = ClusterKeys.derive(config.clusterSecret(), config.clusterName());
        List<Protocol> stack = new ArrayList<>();

        TCP tcp = new TCP();
        tcp.setBindAddr(config.bindAddress());
        tcp.setBindPort(config.bindPort());
        tcp.setPortRange(0);
        tcp.setSockConnTimeout(millis(config.connectTimeout().toMillis()));
        stack.add(tcp);

        switch (config.discovery()) {
            case Discovery.StaticHosts hosts -> {
                TCPPING ping = new TCPPING();
                ping.setInitialHosts(new ArrayList<InetSocketAddress>(hosts.hosts()));
                ping.setPortRange(0);
                stack.add(ping);
            }
            case Discovery.Multicast multicast -> {
                MPING ping = new MPING();
                ping.setValue("mcast_addr", multicast.group());
                ping.setValue("mcast_port", multicast.port());
                ping.setValue("ip_ttl", multicast.timeToLive());
                ping.setValue("bind_addr", config.bindAddress());
                stack.add(ping);
            }
        }

        if (config.encryption()) {
            SYM_ENCRYPT encrypt = new SYM_ENCRYPT();
            encrypt.symAlgorithm("AES/CBC/PKCS5Padding");
            encrypt.symIvLength(16);
            encrypt.setSecretKey(keys.encryptionKey());
            stack.add(encrypt);
        }

        ExpulsionProbe probe = new ExpulsionProbe();
        probe.setNoticeInterval(Math.max(config.heartbeatInterval().toNanos() * 5, 200_000_000L));
        stack.add(probe);

        MERGE3 merge = new MERGE3();
        merge.setValue("min_interval", config.mergeMinInterval().toMillis());
        merge.setValue("max_interval", config.mergeMaxInterval().toMillis());
        merge.setCheckInterval((long) (config.mergeMaxInterval().toMillis() * 1.6));
        stack.add(merge);

        FD_SOCK2 fdSock = new FD_SOCK2();
        fdSock.setValue("offset", config.failureDetectorPortOffset());
        fdSock.setValue("connect_timeout", millis(config.connectTimeout().toMillis()));
        stack.add(fdSock);

        FD_ALL3 fdAll = new FD_ALL3();
        fdAll.setTimeout(config.heartbeatTimeout().toMillis());
        fdAll.setInterval(config.heartbeatInterval().toMillis());
        stack.add(fdAll);

        stack.add(new VERIFY_SUSPECT2().setTimeout(config.verifyTimeout().toMillis()));
        stack.add(new BARRIER());

        NAKACK2 nakack = new NAKACK2();
        nakack.setValue("use_mcast_xmit", false);
        nakack.setXmitInterval(config.retransmitInterval().toMillis());
        stack.add(nakack);
        stack.add(new UNICAST3().setXmitInterval(config.retransmitInterval().toMillis()));

        STABLE stable = new STABLE();
        stable.setValue("desired_avg_gossip", 50_000L);
        stable.setValue("max_bytes", 4_000_000L);
        stack.add(stable);

        AUTH auth = new AUTH();
        SecretToken token = new SecretToken(keys.authKey());
        token.setAuth(auth);
        auth.setAuthToken(token);
        auth.setAuthCoord(true);
        stack.add(auth);

        EventTap tap = new EventTap();
        stack.add(tap);

        GMS gms = new GMS();
        gms.setValue("join_timeout", config.joinTimeout().toMillis());
        gms.setValue("leave_timeout", config.leaveTimeout().toMillis());
        gms.setValue("view_ack_collection_timeout", config.viewAckTimeout().toMillis());
        gms.setValue("print_local_addr", false);
        stack.add(gms);

        stack.add(new FRAG2());

        JChannel channel = new JChannel(stack);
        // Diagnostics (probe.sh) listen on a multicast socket by default: not here.
        tcp.getDiagnosticsHandler().setEnabled(false);
        return new Parts(channel, tap, probe);
    }

    /** The effective stack in JGroups' XML form. */
    public static String describe(JChannel channel) {
        return channel.getProtocolStack().printProtocolSpecAsXML();
    }

    private static int millis(long value) {
        return (int) Math.min(Integer.MAX_VALUE, value);
    }
}
