package org.mpirunft.membership.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import org.jgroups.JChannel;
import org.jgroups.protocols.FD_ALL3;
import org.jgroups.protocols.MERGE3;
import org.jgroups.protocols.MPING;
import org.jgroups.protocols.SYM_ENCRYPT;
import org.jgroups.protocols.TCP;
import org.jgroups.protocols.TCPPING;
import org.jgroups.protocols.VERIFY_SUSPECT2;
import org.jgroups.protocols.pbcast.GMS;
import org.jgroups.protocols.pbcast.NAKACK2;
import org.jgroups.stack.Protocol;
import org.junit.jupiter.api.Test;
import org.mpirunft.membership.Discovery;
import org.mpirunft.membership.MembershipConfig;

/** The stack is built from the configuration; nothing here connects or sends. */
class GroupStackTest {
    private static MembershipConfig.Builder config() {
        return MembershipConfig.builder()
                .bindAddress(InetAddress.getLoopbackAddress())
                .bindPort(17800)
                .discovery(Discovery.staticHosts(List.of(new InetSocketAddress("127.0.0.1", 17800))))
                .clusterSecret("0123456789abcdef0123456789abcdef");
    }

    @Test
    void stackHasTheIssuesProtocolsInOrderWithTheConfiguredTimeouts() throws Exception {
        MembershipConfig config = config().heartbeatTimeout(Duration.ofSeconds(4)).heartbeatInterval(Duration.ofMillis(400))
                .verifyTimeout(Duration.ofMillis(120)).build();
        JChannel channel = GroupStack.create(config).channel();
        try {
            List<String> names = channel.getProtocolStack().getProtocols().reversed().stream().map(Protocol::getName).toList();
            assertEquals(List.of("TCP", "TCPPING", "ExpulsionProbe", "MERGE3", "FD_SOCK2", "FD_ALL3", "VERIFY_SUSPECT2",
                    "BARRIER", "NAKACK2", "UNICAST3", "STABLE", "AUTH", "EventTap", "GMS", "FRAG2"), names, "bottom to top");
            FD_ALL3 fd = channel.getProtocolStack().findProtocol(FD_ALL3.class);
            assertEquals(4000, fd.getTimeout());
            assertEquals(400, fd.getInterval());
            assertEquals(120, ((VERIFY_SUSPECT2) channel.getProtocolStack().findProtocol(VERIFY_SUSPECT2.class)).getTimeout());
            assertEquals(config.mergeMaxInterval().toMillis(), ((MERGE3) channel.getProtocolStack().findProtocol(MERGE3.class)).getMaxInterval());
            assertEquals(config.joinTimeout().toMillis(), ((GMS) channel.getProtocolStack().findProtocol(GMS.class)).getJoinTimeout());
            assertEquals(config.retransmitInterval().toMillis(),
                    ((NAKACK2) channel.getProtocolStack().findProtocol(NAKACK2.class)).getXmitInterval(), "NAKACK2 xmit_interval");
            TCP tcp = channel.getProtocolStack().findProtocol(TCP.class);
            assertEquals(17800, tcp.getBindPort());
            assertTrue(!tcp.getDiagnosticsHandler().isEnabled(), "no diagnostics multicast socket");
            assertNull(channel.getProtocolStack().findProtocol(SYM_ENCRYPT.class), "encryption is opt-in");
            assertTrue(GroupStack.describe(channel).contains("FD_ALL3"), "the XML form lists the protocols");
        } finally {
            channel.close();
        }
    }

    @Test
    void encryptionAddsSymEncryptAboveDiscoveryWithAKeyFromTheSecret() throws Exception {
        JChannel channel = GroupStack.create(config().encryption(true).build()).channel();
        try {
            SYM_ENCRYPT encrypt = channel.getProtocolStack().findProtocol(SYM_ENCRYPT.class);
            assertNotNull(encrypt);
            assertEquals("TCPPING", encrypt.getDownProtocol().getName(), "discovery stays readable, all above is encrypted");
            assertEquals("AES", encrypt.secretKey().getAlgorithm());
        } finally {
            channel.close();
        }
    }

    @Test
    void multicastDiscoveryUsesMping() throws Exception {
        MembershipConfig config = config().discovery(Discovery.multicast(InetAddress.getByName("228.8.8.8"), 45588)).build();
        JChannel channel = GroupStack.create(config).channel();
        try {
            assertNotNull(channel.getProtocolStack().findProtocol(MPING.class));
            assertNull(channel.getProtocolStack().findProtocol(TCPPING.class));
            assertEquals(45588, channel.getProtocolStack().<MPING>findProtocol(MPING.class).getValue("mcast_port"));
        } finally {
            channel.close();
        }
    }
}
