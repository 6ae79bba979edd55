package org.mpirunft.membership.loopback;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.mpirunft.membership.Discovery;
import org.mpirunft.membership.Membership;
import org.mpirunft.membership.MembershipConfig;

/**
 * One group of members inside the test's JVM, on 127.0.0.1: before each test, free ports and a
 * cluster name of its own (the prefix and the first port), so that concurrent runs never join
 * each other's groups; the FAST profile's config of the member on each port; after each test,
 * {@link Membership#close()} of every member the test handed to {@link #add}. Register it as an
 * instance field with {@code @RegisterExtension}.
 */
public final class InJvmGroup implements BeforeEachCallback, AfterEachCallback {
    private final String clusterPrefix;
    private final int portCount;
    private final String secret;
    private final List<Membership> started = new ArrayList<>();
    private List<Integer> ports;
    private String clusterName;

    /** {@code portCount} ports, a cluster name that starts with {@code clusterPrefix}, and {@code secret} for every member. */
    public InJvmGroup(String clusterPrefix, int portCount, String secret) {
        this.clusterPrefix = clusterPrefix;
        this.portCount = portCount;
        this.secret = secret;
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        ports = FreePorts.allocate(portCount, LoopbackGroup.FD_SOCK_OFFSET);
        clusterName = clusterPrefix + ports.getFirst();
    }

    @Override
    public void afterEach(ExtensionContext context) {
        started.forEach(Membership::close);
        started.clear();
    }

    /**
     * The config of the member on port {@code index}: the FAST profile, this group's cluster name
     * and secret, bound to loopback, with every port of the group as its static node list.
     */
    public MembershipConfig.Builder config(int index) {
        return MembershipConfig.builder(MembershipConfig.Profile.FAST)
                .clusterName(clusterName)
                .bindAddress(InetAddress.getLoopbackAddress())
                .bindPort(ports.get(index))
                .discovery(Discovery.staticHosts(ports.stream().map(p -> new InetSocketAddress("127.0.0.1", p)).toList()))
                .clusterSecret(secret);
    }

    /** Keeps {@code member} to be closed after the test; returns it. */
    public Membership add(Membership member) {
        started.add(member);
        return member;
    }

    /** The members handed to {@link #add} in this test, in that order. */
    public List<Membership> members() {
        return List.copyOf(started);
    }

    public int port(int index) {
        return ports.get(index);
    }

    public String clusterName() {
        return clusterName;
    }
}
