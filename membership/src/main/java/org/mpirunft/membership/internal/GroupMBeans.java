package org.mpirunft.membership.internal;

import java.lang.management.ManagementFactory;
import org.jgroups.JChannel;
import org.jgroups.jmx.JmxConfigurator;

/**
 * A member's channel and protocols on the platform MBean server, named as JGroups names them
 * ({@code mpirun-ft:type=channel,cluster="CLUSTER/NODE"},
 * {@code mpirun-ft:type=protocol,cluster="CLUSTER/NODE",protocol=FD_ALL}; JGroups quotes the
 * cluster part). The node's name in it keeps apart the members that share a JVM.
 */
final class GroupMBeans {
    static final String DOMAIN = "mpirun-ft";

    private GroupMBeans() {
    }

    static void register(JChannel channel, String cluster, String node) throws Exception {
        JmxConfigurator.registerChannel(channel, ManagementFactory.getPlatformMBeanServer(), DOMAIN, cluster + "/" + node, true);
    }

    static void unregister(JChannel channel, String cluster, String node) throws Exception {
        JmxConfigurator.unregisterChannel(channel, ManagementFactory.getPlatformMBeanServer(), DOMAIN, cluster + "/" + node);
    }
}
