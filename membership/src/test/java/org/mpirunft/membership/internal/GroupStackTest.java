package org.mpirunft.membership.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.MatchResult;
import java.util.regex.Pattern;
import org.jgroups.JChannel;
import org.jgroups.protocols.AUTH;
import org.jgroups.protocols.FD_ALL;
import org.jgroups.protocols.FD_SOCK2;
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
import org.jgroups.stack.ProtocolStack;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpirunft.membership.Discovery;
import org.mpirunft.membership.MembershipConfig;
import org.mpirunft.membership.StackFile;
import org.mpirunft.membership.StackFileException;

/** The stack is built from the stack file and the configuration; nothing here connects or sends. */
class GroupStackTest {
    @TempDir
    Path dir;

    private static MembershipConfig.Builder config() {
        return MembershipConfig.builder()
                .bindAddress(InetAddress.getLoopbackAddress())
                .bindPort(17800)
                .discovery(Discovery.staticHosts(List.of(new InetSocketAddress("127.0.0.1", 17800))))
                .clusterSecret("0123456789abcdef0123456789abcdef");
    }

    @Test
    void stackHasTheProtocolsInOrderWithTheConfiguredTimeouts() throws Exception {
        MembershipConfig config = config().heartbeatTimeout(Duration.ofSeconds(4)).heartbeatInterval(Duration.ofMillis(400))
                .verifyTimeout(Duration.ofMillis(120)).build();
        JChannel channel = GroupStack.create(config).channel();
        try {
            List<String> names = channel.getProtocolStack().getProtocols().reversed().stream().map(Protocol::getName).toList();
            assertEquals(List.of("TCP", "TCPPING", "SYM_ENCRYPT", "SERIALIZE", "ExpulsionProbe", "MERGE3", "FD_SOCK2", "FD_ALL", "VERIFY_SUSPECT2",
                    "BARRIER", "NAKACK2", "UNICAST3", "STABLE", "AUTH", "EventTap", "GMS", "FRAG2"), names, "bottom to top");
            FD_ALL fd = channel.getProtocolStack().findProtocol(FD_ALL.class);
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
            assertTrue(GroupStack.describe(channel).contains("FD_ALL"), "the XML form lists the protocols");
        } finally {
            channel.close();
        }
    }

    @Test
    void encryptionIsOnByDefaultAboveDiscoveryWithAKeyFromTheSecret() throws Exception {
        JChannel channel = GroupStack.create(config().build()).channel();
        try {
            SYM_ENCRYPT encrypt = channel.getProtocolStack().findProtocol(SYM_ENCRYPT.class);
            assertNotNull(encrypt);
            assertEquals("TCPPING", encrypt.getDownProtocol().getName(), "discovery stays readable, all above is encrypted");
            assertEquals("ChaCha20-Poly1305", encrypt.symAlgorithm(), "an authenticated cipher");
            assertEquals("ChaCha20-Poly1305", encrypt.secretKey().getAlgorithm(), "the key's algorithm is the cipher's");
            assertEquals(32, encrypt.secretKey().getEncoded().length);
            assertEquals("SERIALIZE", encrypt.getUpProtocol().getName(), "every header above goes inside the encryption");
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

    /**
     * The shipped file with the FAST profile's values gives the stack the FAST profile stands for,
     * protocol by protocol and attribute by attribute.
     */
    @Test
    void shippedStackWithTheFastProfileGivesTheProfilesValues() throws Exception {
        MembershipConfig config = MembershipConfig.builder(MembershipConfig.Profile.FAST)
                .bindAddress(InetAddress.getLoopbackAddress()).bindPort(17800)
                .discovery(Discovery.staticHosts(List.of(new InetSocketAddress("127.0.0.1", 17800), new InetSocketAddress("127.0.0.1", 17801))))
                .clusterSecret("0123456789abcdef0123456789abcdef").build();
        JChannel channel = GroupStack.create(config).channel();
        try {
            ProtocolStack stack = channel.getProtocolStack();
            FD_ALL fd = stack.findProtocol(FD_ALL.class);
            assertEquals(2000, fd.getTimeout(), "FD_ALL timeout");
            assertEquals(100, fd.getInterval(), "FD_ALL interval");
            assertEquals(100, stack.<VERIFY_SUSPECT2>findProtocol(VERIFY_SUSPECT2.class).getTimeout(), "VERIFY_SUSPECT2 timeout");
            MERGE3 merge = stack.findProtocol(MERGE3.class);
            assertEquals(500, merge.getMinInterval(), "MERGE3 min_interval");
            assertEquals(1500, merge.getMaxInterval(), "MERGE3 max_interval");
            assertEquals(2400, merge.getCheckInterval(), "MERGE3 check_interval, 1.6 x max_interval");
            GMS gms = stack.findProtocol(GMS.class);
            assertEquals(500, gms.getJoinTimeout(), "GMS join_timeout");
            assertEquals(1000L, (long) gms.getValue("leave_timeout"), "GMS leave_timeout");
            assertEquals(1000L, (long) gms.getValue("view_ack_collection_timeout"), "GMS view_ack_collection_timeout");
            assertEquals(false, gms.getValue("print_local_addr"));
            assertEquals(100, stack.<NAKACK2>findProtocol(NAKACK2.class).getXmitInterval(), "NAKACK2 xmit_interval");
            assertEquals(false, stack.<NAKACK2>findProtocol(NAKACK2.class).getValue("use_mcast_xmit"));
            assertEquals(100, stack.<UNICAST3>findProtocol(UNICAST3.class).getXmitInterval(), "UNICAST3 xmit_interval");
            STABLE stable = stack.findProtocol(STABLE.class);
            assertEquals(50_000L, (long) stable.getValue("desired_avg_gossip"));
            assertEquals(4_000_000L, (long) stable.getValue("max_bytes"));
            TCP tcp = stack.findProtocol(TCP.class);
            assertEquals(InetAddress.getLoopbackAddress(), tcp.getBindAddr());
            assertEquals(0, tcp.getPortRange());
            assertEquals(500, (int) tcp.getValue("sock_conn_timeout"), "TCP sock_conn_timeout");
            FD_SOCK2 fdSock = stack.findProtocol(FD_SOCK2.class);
            assertEquals(100, (int) fdSock.getValue("offset"));
            assertEquals(500, (int) fdSock.getValue("connect_timeout"));
            TCPPING ping = stack.findProtocol(TCPPING.class);
            assertEquals(List.of(new InetSocketAddress("127.0.0.1", 17800), new InetSocketAddress("127.0.0.1", 17801)),
                    ping.getInitialHosts().stream().map(a -> new InetSocketAddress(a.getIpAddress(), a.getPort())).toList());
            assertEquals(500, stack.<ExpulsionProbe>findProtocol(ExpulsionProbe.class).getNoticeInterval(),
                    "ExpulsionProbe notice_interval: 5 heartbeats of 100 ms");
            AUTH auth = stack.findProtocol(AUTH.class);
            assertTrue(auth.getAuthToken() instanceof SecretToken, "AUTH's token is set in code, from the secret");
        } finally {
            channel.close();
        }
    }

    /**
     * What the shipped stack keeps per peer is sized for a group that sends a few messages a
     * second, so that a daemon in a 1,000-node group does not hold megabytes of empty slots
     * (membership/README.md, "At scale").
     */
    @Test
    void theShippedStackKeepsLittlePerPeer() throws Exception {
        JChannel channel = GroupStack.create(config().build()).channel();
        try {
            ProtocolStack stack = channel.getProtocolStack();
            for (Class<? extends org.jgroups.stack.Protocol> reliable : List.of(NAKACK2.class, UNICAST3.class)) {
                org.jgroups.stack.Protocol protocol = stack.findProtocol(reliable);
                assertEquals(64, (int) protocol.getValue("xmit_table_msgs_per_row"), reliable.getSimpleName() + " table row");
                assertEquals(64, (int) protocol.getValue("max_batch_size"), reliable.getSimpleName() + " delivery batch");
            }
            assertEquals(false, stack.<NAKACK2>findProtocol(NAKACK2.class).getValue("log_discard_msgs"));
            org.jgroups.protocols.Bundler bundler = stack.<TCP>findProtocol(TCP.class).getBundler();
            assertFalse(((org.jgroups.protocols.BaseBundler) bundler).useRingBuffer(), "a linked send queue per peer");
        } finally {
            channel.close();
        }
    }

    @Test
    void anOperatorsStackFileIsUsedInsteadOfTheShippedOneWithTheSameVariables() throws Exception {
        Path file = dir.resolve("jgroups.xml");
        Files.writeString(file, StackFile.shippedXml()
                .replace("timeout=\"${mpirunft.heartbeat_timeout}\"", "timeout=\"7s\"")
                .replace("<BARRIER/>", "<BARRIER max_close_time=\"${mpirunft.barrier_close:12345}\"/>"));
        JChannel channel = GroupStack.create(config().stackFile(file).build()).channel();
        try {
            FD_ALL fd = channel.getProtocolStack().findProtocol(FD_ALL.class);
            assertEquals(7000, fd.getTimeout(), "the file's literal timeout, not the config's 3 s");
            assertEquals(250, fd.getInterval(), "the config's interval, through the file's variable");
            assertEquals(12345L, (long) channel.getProtocolStack().findProtocol("BARRIER").getValue("max_close_time"),
                    "a variable no member defines takes its default");
        } finally {
            channel.close();
        }
    }

    @Test
    void anUnknownVariableIsAnErrorNamingItTheProtocolAndTheFile() throws Exception {
        Path file = write(StackFile.shippedXml().replace("${mpirunft.verify_timeout}", "${mpirunft.verify_timout}"));
        StackFileException e = assertThrows(StackFileException.class, () -> GroupStack.create(config().stackFile(file).build()));
        assertTrue(e.getMessage().startsWith(file + ": unknown variable ${mpirunft.verify_timout} in VERIFY_SUSPECT2 timeout (known: "),
                e.getMessage());
        assertTrue(e.getMessage().contains("mpirunft.verify_timeout"), "the known ones are listed: " + e.getMessage());
        assertEquals(1, e.getMessage().lines().count(), "one line");
    }

    @Test
    void aFileThatIsNoJGroupsStackIsAnErrorNamingIt() throws Exception {
        assertStackError(write("version: 1\nnode: {name: node1}\n"), "not a JGroups stack");
        assertStackError(write("<config xmlns=\"urn:org:jgroups\"><TCP bind_port=\"7800\"></config>"), "not a JGroups stack");
        assertStackError(write("<config xmlns=\"urn:org:jgroups\"></config>"), "not a JGroups stack");
        assertStackError(dir.resolve("missing.xml"), "no such file");
        assertStackError(write(StackFile.shippedXml().replace("<BARRIER/>", "<BARRIER max_close_tim=\"5s\"/>")),
                "JGroups cannot build the stack: ");
        assertStackError(write(StackFile.shippedXml().replace("<BARRIER/>", "<NO_SUCH_PROTOCOL/>")),
                "JGroups cannot build the stack: ");
        assertStackError(write(StackFile.shippedXml().replace("<AUTH auth_coord=\"true\"/>", "")),
                "has no AUTH, which keeps members without the cluster secret out");
    }

    @Test
    void encryptionNeedsSymEncryptInTheFileAndIsRemovedWithoutIt() throws Exception {
        Path file = write(StackFile.shippedXml().replaceAll("(?s)<SYM_ENCRYPT .*?/>", ""));
        StackFileException e = assertThrows(StackFileException.class,
                () -> GroupStack.create(config().stackFile(file).build()));
        assertEquals(file + ": has no SYM_ENCRYPT, which encryption is on", e.getMessage());
        JChannel channel = GroupStack.create(config().stackFile(file).encryption(false).build()).channel();
        channel.close();
        JChannel shipped = GroupStack.create(config().encryption(false).build()).channel();
        try {
            assertNull(shipped.getProtocolStack().findProtocol(SYM_ENCRYPT.class), "removed when encryption is off");
        } finally {
            shipped.close();
        }
    }

    @Test
    void checkBuildsTheStackWithoutOpeningItsPorts() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            StackFile.check(config().bindPort(taken.getLocalPort()).build());
        }
        Path file = write(StackFile.shippedXml().replace("${mpirunft.join_timeout}", "${mpirunft.join}"));
        StackFileException e = assertThrows(StackFileException.class, () -> StackFile.check(config().stackFile(file).build()));
        assertTrue(e.getMessage().contains("${mpirunft.join}"), e.getMessage());
    }

    @Test
    void theShippedFilesCommentListsExactlyTheVariablesMembersDefine() {
        Set<String> defined = new TreeSet<>(GroupStack.variables(config().build()).keySet());
        defined.addAll(GroupStack.variables(config().discovery(multicast()).build()).keySet());
        defined.addAll(GroupStack.variables(config().logDirectory(dir).build()).keySet());
        String comment = StackFile.shippedXml().substring(0, StackFile.shippedXml().indexOf("-->"));
        Set<String> listed = new TreeSet<>(Pattern.compile("mpirunft\\.[a-z_]+").matcher(comment)
                .results().map(MatchResult::group).toList());
        assertEquals(defined, listed);
    }

    @Test
    void theReplicatedLogsProtocolsAreInTheStackOnlyWithALogDirectory() throws Exception {
        assertFalse(GroupStack.configure(config().build()).has("PromptCommitRAFT"), "no log directory: no RAFT");
        StackTemplate withLog = GroupStack.configure(config().logDirectory(dir).build());
        for (String protocol : List.of("LeaderWatchELECTION", "PromptCommitRAFT", "REDIRECT")) {
            assertTrue(withLog.has(protocol), protocol);
        }
        Path noRaft = write(StackFile.shippedXml().replaceAll("(?s)<org\\.mpirunft\\.membership\\.internal\\.PromptCommitRAFT .*?/>", ""));
        StackFileException e = assertThrows(StackFileException.class, () -> GroupStack.create(config().stackFile(noRaft).logDirectory(dir).build()));
        assertTrue(e.problem().startsWith("has no PromptCommitRAFT"), e.getMessage());
    }

    private static Discovery multicast() {
        try {
            return Discovery.multicast(InetAddress.getByName("228.8.8.8"), 45588);
        } catch (UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    private Path write(String text) throws IOException {
        Path file = Files.createTempFile(dir, "stack", ".xml");
        Files.writeString(file, text);
        return file;
    }

    private static void assertStackError(Path file, String problemStart) {
        StackFileException e = assertThrows(StackFileException.class, () -> GroupStack.create(config().stackFile(file).build()));
        assertEquals(file.toString(), e.source());
        assertTrue(e.problem().startsWith(problemStart), e.getMessage());
        assertEquals(1, e.getMessage().lines().count(), "one line: " + e.getMessage());
    }
}
