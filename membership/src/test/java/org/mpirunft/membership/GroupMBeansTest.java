package org.mpirunft.membership;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mpirunft.membership.Await.waitUntil;

import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Set;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.mpirunft.membership.loopback.InJvmGroup;

/** A member with {@code jmx(true)} shows its stack's settings and counters on the platform MBean server. */
class GroupMBeansTest {
    private static final String SECRET = "mbeans-test-secret-0123456789abcd";
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final MBeanServer SERVER = ManagementFactory.getPlatformMBeanServer();

    @RegisterExtension
    final InJvmGroup group = new InJvmGroup("jmx-", 2, SECRET);

    @Test
    void ourProtocolsSettingsAndCountersAreReadableOverJmxWhileJoined() throws Exception {
        Membership a = start("a", 0);
        Membership b = start("b", 1);
        waitUntil(WAIT, () -> a.view().size() == 2 && b.view().size() == 2, () -> "views " + a.view().names() + " " + b.view().names());
        ObjectName probe = protocol("b", "ExpulsionProbe");
        assertEquals(500L, SERVER.getAttribute(probe, "notice_interval"), "@Property, 5 heartbeats of the FAST profile");
        ObjectName tap = protocol("b", "EventTap");
        assertTrue((int) SERVER.getAttribute(tap, "join_requests_sent") >= 1, "b joined a's group: it sent a JOIN request");
        assertEquals(0L, SERVER.getAttribute(protocol("a", "ExpulsionProbe"), "notices_sent"), "nobody was removed");
        ObjectName fd = protocol("a", "FD_ALL");
        assertEquals(2000L, SERVER.getAttribute(fd, "timeout"), "JGroups' own protocols too");

        b.close();
        assertEquals(Set.of(),
                SERVER.queryNames(new ObjectName("mpirun-ft:cluster=" + ObjectName.quote(group.clusterName() + "/b") + ",*"), null),
                "a closed member's MBeans are gone");
        assertTrue(SERVER.isRegistered(fd), "the other member's stay");
    }

    /** As JGroups names a protocol's MBean: the cluster's part is quoted. */
    private ObjectName protocol(String node, String protocol) throws Exception {
        return new ObjectName("mpirun-ft:type=protocol,cluster=" + ObjectName.quote(group.clusterName() + "/" + node) + ",protocol=" + protocol);
    }

    private Membership start(String name, int index) {
        MembershipConfig config = group.config(index).jmx(true).build();
        Membership m = group.add(Membership.create(config,
                NodeMetadata.compute(name, 1, InetSocketAddress.createUnresolved("127.0.0.1", 9000))));
        m.start();
        return m;
    }
}
