package org.mpirunft.membership;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class MembershipConfigTest {
    private static final String SECRET = "0123456789abcdef0123456789abcdef";

    private static MembershipConfig.Builder valid() {
        return MembershipConfig.builder()
                .discovery(Discovery.staticHosts(List.of(new InetSocketAddress("127.0.0.1", 7800))))
                .clusterSecret(SECRET);
    }

    @Test
    void productionDefaultsDetectAHangInAFewSeconds() {
        MembershipConfig config = valid().build();
        assertEquals(Duration.ofMillis(250), config.heartbeatInterval(), "FD_ALL interval");
        assertEquals(Duration.ofSeconds(3), config.heartbeatTimeout(), "FD_ALL timeout");
        assertEquals(Duration.ofMillis(3050), config.hangDetectionTime(), "heartbeat timeout + verify timeout");
        assertTrue(config.heartbeatInterval().toMillis() * 10 <= config.heartbeatTimeout().toMillis(),
                "detection varies by one heartbeat interval, which must stay well inside the 20% margin");
        assertTrue(config.verifyTimeout().toMillis() * 2 < 500,
                "a crash is reported after at most two verify periods, which must fit in the 500 ms budget");
        assertTrue(config.encryption(), "encryption is on by default");
        assertFalse(valid().encryption(false).build().encryption(), "off only when told");
        assertEquals(7800, config.bindPort(), "JGroups' usual port");
    }

    @Test
    void fastProfileIsFasterThanProductionForEveryTimeout() {
        MembershipConfig fast = MembershipConfig.builder(MembershipConfig.Profile.FAST)
                .discovery(Discovery.staticHosts(List.of(new InetSocketAddress("127.0.0.1", 7800))))
                .clusterSecret(SECRET).build();
        MembershipConfig production = valid().build();
        assertTrue(fast.hangDetectionTime().compareTo(production.hangDetectionTime()) < 0, "hang detection");
        assertTrue(fast.mergeMaxInterval().compareTo(production.mergeMaxInterval()) < 0, "merge interval");
        assertTrue(fast.joinTimeout().compareTo(production.joinTimeout()) < 0, "join timeout");
    }

    @Test
    void everyTimeoutCanBeOverridden() {
        MembershipConfig config = valid().heartbeatInterval(Duration.ofMillis(250)).heartbeatTimeout(Duration.ofSeconds(5))
                .verifyTimeout(Duration.ofMillis(300)).mergeMinInterval(Duration.ofSeconds(1)).mergeMaxInterval(Duration.ofSeconds(9))
                .joinTimeout(Duration.ofSeconds(4)).leaveTimeout(Duration.ofSeconds(3)).viewAckTimeout(Duration.ofSeconds(6))
                .connectTimeout(Duration.ofMillis(700)).loadReportInterval(Duration.ofSeconds(7))
                .retransmitInterval(Duration.ofMillis(150)).build();
        assertEquals(Duration.ofMillis(250), config.heartbeatInterval());
        assertEquals(Duration.ofSeconds(5), config.heartbeatTimeout());
        assertEquals(Duration.ofMillis(300), config.verifyTimeout());
        assertEquals(Duration.ofSeconds(1), config.mergeMinInterval());
        assertEquals(Duration.ofSeconds(9), config.mergeMaxInterval());
        assertEquals(Duration.ofSeconds(4), config.joinTimeout());
        assertEquals(Duration.ofSeconds(3), config.leaveTimeout());
        assertEquals(Duration.ofSeconds(6), config.viewAckTimeout());
        assertEquals(Duration.ofMillis(700), config.connectTimeout());
        assertEquals(Duration.ofSeconds(7), config.loadReportInterval());
        assertEquals(Duration.ofMillis(150), config.retransmitInterval());
        assertEquals(config.heartbeatTimeout(), config.toBuilder().build().heartbeatTimeout(), "toBuilder keeps values");
    }

    @Test
    void rejectsInvalidValuesWithMessagesNamingTheField() {
        assertMessage("heartbeatInterval must be > 0", valid().heartbeatInterval(Duration.ZERO));
        assertMessage("heartbeatTimeout must be > 0", valid().heartbeatTimeout(Duration.ofMillis(-1)));
        assertMessage("verifyTimeout must be > 0", valid().verifyTimeout(null));
        assertMessage("heartbeatInterval must be < heartbeatTimeout",
                valid().heartbeatInterval(Duration.ofSeconds(3)).heartbeatTimeout(Duration.ofSeconds(3)));
        assertMessage("mergeMinInterval must be < mergeMaxInterval",
                valid().mergeMinInterval(Duration.ofSeconds(10)).mergeMaxInterval(Duration.ofSeconds(5)));
        assertMessage("bindPort must be in 1..65535", valid().bindPort(0));
        assertMessage("clusterSecret must be set", valid().clusterSecret("short"));
        assertMessage("discovery must be set", valid().discovery(null));
        assertMessage("clusterName must be set", valid().clusterName(" "));
    }

    @Test
    void toStringDoesNotRevealTheSecret() {
        String text = valid().build().toString();
        assertFalse(text.contains(SECRET), "secret in toString: " + text);
        assertTrue(text.contains("32 bytes"), text);
    }

    @Test
    void secretIsCopiedInAndOut() {
        byte[] secret = SECRET.getBytes();
        MembershipConfig config = valid().clusterSecret(secret).build();
        secret[0] = 'X';
        byte[] out = config.clusterSecret();
        out[1] = 'Y';
        assertEquals('0', config.clusterSecret()[0], "a change to the caller's array must not reach the config");
        assertEquals('1', config.clusterSecret()[1], "a change to the returned array must not reach the config");
    }

    @Test
    void multicastDiscoveryNeedsAMulticastGroup() throws Exception {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Discovery.multicast(InetAddress.getByName("127.0.0.1"), 7500));
        assertTrue(e.getMessage().contains("multicast address"), e.getMessage());
        assertEquals(7500, ((Discovery.Multicast) Discovery.multicast(InetAddress.getByName("228.8.8.8"), 7500)).port());
    }

    @Test
    void theFirstVotersAreTheLowestAddressesOfTheNodeListWhateverItsOrder() {
        List<InetSocketAddress> nodes = new java.util.ArrayList<>();
        for (int i = 8; i >= 1; i--) {
            nodes.add(new InetSocketAddress("10.213.0." + i, 7800));
        }
        MembershipConfig config = valid().discovery(Discovery.staticHosts(nodes)).build();
        assertEquals(5, config.voterCount());
        assertEquals(List.of("10.213.0.1:7800", "10.213.0.2:7800", "10.213.0.3:7800", "10.213.0.4:7800", "10.213.0.5:7800"),
                config.voters());
        assertEquals(3, valid().discovery(Discovery.staticHosts(nodes.subList(0, 4))).build().voterCount());
        assertEquals(2, valid().discovery(Discovery.staticHosts(nodes.subList(0, 2))).build().voterCount());
        assertEquals("127.0.0.1:7800", valid().build().logId());
    }

    @Test
    void aReplicatedLogWithMulticastDiscoveryNeedsItsVotersNamed() throws Exception {
        MembershipConfig.Builder multicast = valid().discovery(Discovery.multicast(InetAddress.getByName("228.8.8.8"), 7500))
                .logDirectory(java.nio.file.Path.of("/tmp/log"));
        assertMessage("voters must be given for a replicated log with multicast discovery", multicast);
        assertMessage("voters must be a non-empty list of host:port ids", multicast.voters(List.of("node1")));
        assertEquals(List.of("10.0.0.1:7800"), multicast.voters(List.of("10.0.0.1:7800")).build().voters());
    }

    private static void assertMessage(String expected, MembershipConfig.Builder builder) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, builder::build);
        assertTrue(e.getMessage().startsWith(expected), "expected '" + expected + "...', got '" + e.getMessage() + "'");
    }
}
