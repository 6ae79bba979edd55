package org.mpirunft.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpirunft.common.Names;
import org.mpirunft.membership.MembershipConfig;
import org.mpirunft.membership.NodeRole;
import org.mpirunft.membership.StackFile;

class FtdConfigReaderTest {
    private static final String VALID = """
            version: 1
            node: {name: spare1, role: spare, slots: 2}
            group:
              bind: 127.0.0.1
              members: [127.0.0.1:7800, 127.0.0.2]
              secret-file: /etc/mpirun-ft/secret
              profile: fast
            scheduler: /etc/mpirun-ft/cluster.yaml
            """;

    @TempDir
    Path dir;

    @Test
    void readsAValidFileWithDefaults() {
        FtdConfig config = FtdConfigReader.parse(VALID, "ftd.yaml");
        assertEquals("spare1", config.node());
        assertEquals(NodeRole.SPARE, config.role());
        assertEquals(2, config.slots());
        assertEquals(7800, config.groupPort());
        assertEquals(7801, config.peerPort());
        assertEquals(7800, config.members().get(1).getPort(), "a member without a port gets the group's");
        assertEquals(MembershipConfig.Profile.FAST, config.profile());
        assertEquals(Path.of("/run/mpirun-ft/ftd.sock"), config.socket());
        assertEquals(Optional.of(Path.of("/etc/mpirun-ft/cluster.yaml")), config.scheduler());
        assertEquals(Path.of("/run/mpirun-ft/ranks.sock"), config.rankSocket(), "the rank channel's default socket");
        assertTrue(config.encryption(), "group traffic is encrypted unless the file says otherwise");
        assertTrue(config.membershipConfig(new byte[MembershipConfig.MIN_SECRET_BYTES]).encryption(), "and the group is told so");
    }

    @Test
    void encryptionIsOffOnlyWhenTheFileSaysSo() {
        FtdConfig config = FtdConfigReader.parse(VALID.replace("profile: fast", "profile: fast\n  encryption: false"), "ftd.yaml");
        assertFalse(config.encryption());
        assertFalse(config.membershipConfig(new byte[MembershipConfig.MIN_SECRET_BYTES]).encryption());
    }

    @Test
    void transparentModeIsOffUnlessItsSectionIsGivenAndHasDefaults() {
        assertEquals(Optional.empty(), FtdConfigReader.parse(VALID, "ftd.yaml").transparent());
        FtdConfig.Transparent defaults = FtdConfigReader.parse(VALID + "transparent: {}\n", "ftd.yaml").transparent().orElseThrow();
        assertEquals("job0", defaults.jobInterface());
        assertEquals("eth0", defaults.parent());
        assertEquals(Path.of("/var/lib/mpirun-ft/images"), defaults.images());
        assertEquals(Path.of("/usr/sbin/criu"), defaults.criu());
        FtdConfig.Transparent set = FtdConfigReader.parse(VALID + "transparent: {interface: ib0.job, parent: ib0, timeout: 90s}\n",
                "ftd.yaml").transparent().orElseThrow();
        assertEquals("ib0.job", set.jobInterface());
        assertEquals(java.time.Duration.ofSeconds(90), set.timeout());
        assertError(VALID + "transparent: {interface: 'job 0'}\n",
                "ftd.yaml: transparent.interface: must be a network interface name (1-15 letters, digits, '_', '.', '-', not '.' or '..'), got 'job 0'");
        assertError(VALID + "transparent: {criu: criu}\n", "ftd.yaml: transparent.criu: must be an absolute path, got 'criu'");
        assertError(VALID + "transparent: {lock: nft}\n",
                "ftd.yaml: transparent.lock: unknown key (known here: criu, images, interface, parent, tcp-rto-max, timeout)");
    }

    /** The cap on the node's TCP retransmission timeout: Linux's range, and long enough for connections to outlive a lock. */
    @Test
    void theTcpRetransmissionCapIsInLinuxsRangeAndLetsConnectionsOutliveALock() {
        assertEquals(java.time.Duration.ofSeconds(1), FtdConfigReader.parse(VALID + "transparent: {}\n", "ftd.yaml").transparent()
                .orElseThrow().tcpRtoMax(), "a dropped message goes again within a second of the unlock");
        assertEquals(java.time.Duration.ofMillis(2500), FtdConfigReader.parse(VALID + "transparent: {tcp-rto-max: 2500ms}\n", "ftd.yaml")
                .transparent().orElseThrow().tcpRtoMax());
        String range = "must be between 1s and 120s in whole milliseconds (Linux's range of net.ipv4.tcp_rto_max_ms), got ";
        assertError(VALID + "transparent: {tcp-rto-max: 500ms}\n", "ftd.yaml: transparent.tcp-rto-max: " + range + "'500ms'");
        assertError(VALID + "transparent: {tcp-rto-max: 3m}\n", "ftd.yaml: transparent.tcp-rto-max: " + range + "'3m'");
        // 300 s per step: locks of up to 620 s, beyond 255 retransmissions of 1 s.
        assertError(VALID + "transparent: {timeout: 300s}\n", "ftd.yaml: transparent.tcp-rto-max: must let a connection outlive a lock"
                + " of up to 620 s (twice the peer reply bound, transparent.timeout + 10 s), which with 1000 ms takes more than Linux's"
                + " 255 tcp_retries2; set it to at least 3s or lower transparent.timeout");
        assertEquals(java.time.Duration.ofSeconds(3), FtdConfigReader.parse(VALID + "transparent: {timeout: 300s, tcp-rto-max: 3s}\n",
                "ftd.yaml").transparent().orElseThrow().tcpRtoMax(), "the cap the message names is enough");
    }

    @Test
    void everyErrorNamesTheFileTheKeyAndTheProblem() {
        assertError("version: 2", "ftd.yaml: version: must be 1, got '2'");
        assertError(VALID.replace("role: spare", "role: boss"), "ftd.yaml: node.role: must be compute, spare or launcher, got 'boss'");
        assertError(VALID.replace("slots: 2", "slots: -1"), "ftd.yaml: node.slots: must be an integer in 0..4096, got '-1'");
        assertError(VALID.replace("profile: fast", "profil: fast"), "ftd.yaml: group.profil: unknown key (known here: bind, cluster, "
                + "encryption, members, peer-port, port, profile, secret-file, stack)");
        assertError(VALID.replace("[127.0.0.1:7800, 127.0.0.2]", "[127.0.0.1:99999]"),
                "ftd.yaml: group.members: '127.0.0.1:99999' has no valid port");
        assertError(VALID.replace("/etc/mpirun-ft/secret", "secret"), "ftd.yaml: group.secret-file: must be an absolute path, got 'secret'");
        assertError(VALID.replace("name: spare1, ", ""), "ftd.yaml: node.name: is required");
        assertError(VALID.replace("name: spare1", "name: ../x"), "ftd.yaml: node.name: must be " + Names.RULE + ", got '../x'");
        assertError(VALID.replace("profile: fast", "profile: fast\n  cluster: -c"), "ftd.yaml: group.cluster: must be " + Names.RULE);
        assertError(VALID.replace("profile: fast", "profile: fast\n  profile: production"), "ftd.yaml: not valid YAML: Duplicate field 'profile'");
        assertError("node: [", "ftd.yaml: not valid YAML");
    }

    @Test
    void readsTheHealthCheckWithItsDefaults() {
        assertEquals(Optional.empty(), FtdConfigReader.parse(VALID, "ftd.yaml").health(), "no check unless configured");
        FtdConfig.HealthCheck check = FtdConfigReader.parse(VALID + "health: {command: /usr/sbin/node-health}\n", "ftd.yaml").health()
                .orElseThrow();
        assertEquals("/usr/sbin/node-health", check.command());
        assertEquals(java.time.Duration.ofSeconds(30), check.every());
        assertEquals(java.time.Duration.ofSeconds(10), check.timeout());
        assertEquals(java.util.OptionalDouble.empty(), check.threshold());
        FtdConfig.HealthCheck quick = FtdConfigReader.parse(VALID + "health: {command: temp, every: 2s, threshold: 85.5}\n", "ftd.yaml")
                .health().orElseThrow();
        assertEquals(java.time.Duration.ofSeconds(2), quick.timeout(), "no longer than the period");
        assertEquals(85.5, quick.threshold().getAsDouble());
    }

    @Test
    void aBadHealthCheckIsRefusedNamingTheKey() {
        assertError(VALID + "health: {every: 5s}\n", "ftd.yaml: health.command: is required when the section is given");
        assertError(VALID + "health: {command: x, every: 0s}\n", "ftd.yaml: health.every: ");
        assertError(VALID + "health: {command: x, threshold: hot}\n", "ftd.yaml: health.threshold: must be a number, got 'hot'");
        assertError(VALID + "health: {command: x, period: 5s}\n", "ftd.yaml: health.period: unknown key");
    }

    @Test
    void theGroupsStackFileIsTheShippedOneUnlessGivenAndGoesToTheMembershipConfig() throws IOException {
        FtdConfig shipped = FtdConfigReader.parse(VALID, "ftd.yaml");
        assertEquals(Optional.empty(), shipped.stack());
        MembershipConfig membership = shipped.membershipConfig(new byte[32]);
        assertEquals(Optional.empty(), membership.stackFile());
        assertTrue(membership.jmx(), "the daemon's group shows its MBeans");
        assertEquals(java.time.Duration.ofSeconds(2), membership.heartbeatTimeout(), "the fast profile");

        Path file = stackFile(StackFile.shippedXml().replace("${mpirunft.heartbeat_timeout}", "30s"));
        FtdConfig tuned = FtdConfigReader.parse(VALID.replace("profile: fast", "profile: fast\n  stack: " + file), "ftd.yaml");
        assertEquals(Optional.of(file), tuned.stack());
        assertEquals(Optional.of(file), tuned.membershipConfig(new byte[32]).stackFile());
    }

    @Test
    void aStackFileThatCannotBeUsedIsAConfigErrorNamingTheKeyAndTheFile() throws IOException {
        assertError(withStack("jgroups.xml"), "ftd.yaml: group.stack: must be an absolute path, got 'jgroups.xml'");
        Path missing = dir.resolve("missing.xml");
        assertError(withStack(missing.toString()), "ftd.yaml: group.stack: " + missing + ": no such file");
        Path yaml = stackFile("version: 1\n");
        assertError(withStack(yaml.toString()), "ftd.yaml: group.stack: " + yaml + ": not a JGroups stack: not well-formed XML");
        Path typo = stackFile(StackFile.shippedXml().replace("${mpirunft.heartbeat_timeout}", "${mpirunft.heartbeat_timout}"));
        assertError(withStack(typo.toString()), "ftd.yaml: group.stack: " + typo
                + ": unknown variable ${mpirunft.heartbeat_timout} in FD_ALL timeout (known: mpirunft.bind_addr, ");
        Path badAttribute = stackFile(StackFile.shippedXml().replace("<BARRIER/>", "<BARRIER max_close=\"5s\"/>"));
        assertError(withStack(badAttribute.toString()), "ftd.yaml: group.stack: " + badAttribute
                + ": JGroups cannot build the stack: JGRP000001: configuration error: the following properties in BARRIER are not recognized");
        // Encryption is on by default, so an operator's stack without SYM_ENCRYPT is refused.
        String encrypted = withStack(stackFile(StackFile.shippedXml().replaceAll("(?s)<SYM_ENCRYPT .*?/>", "")).toString());
        assertError(encrypted, "ftd.yaml: group.stack: ");
        String message = assertThrows(FtdConfigReader.ConfigException.class, () -> FtdConfigReader.parse(encrypted, "ftd.yaml")).getMessage();
        assertTrue(message.endsWith(": has no SYM_ENCRYPT, which encryption is on"), message);
    }

    private Path stackFile(String text) throws IOException {
        Path file = Files.createTempFile(dir, "jgroups", ".xml");
        Files.writeString(file, text);
        return file;
    }

    private static String withStack(String path) {
        return VALID.replace("profile: fast", "profile: fast\n  stack: " + path);
    }

    private static void assertError(String yaml, String expectedStart) {
        String message = assertThrows(FtdConfigReader.ConfigException.class, () -> FtdConfigReader.parse(yaml, "ftd.yaml")).getMessage();
        assertEquals(expectedStart, message.substring(0, Math.min(message.length(), expectedStart.length())), message);
    }
}
