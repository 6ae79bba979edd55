package org.mpirunft.membership.loopback;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Collectors;

/**
 * What the child JVMs of one group on 127.0.0.1 share: free loopback ports for the static node
 * list, and a cluster name and secret of their own, so that test runs on one machine never join
 * each other's groups. {@link #close()} kills every child the group was given, the dead and the
 * replaced ones included.
 *
 * @param <P> the kind of child
 */
public final class LoopbackGroup<P extends ChildJvm<?>> implements AutoCloseable {
    /** FD_SOCK2's port offset, the default of MembershipConfig: each port's partner must be free too. */
    public static final int FD_SOCK_OFFSET = 100;

    private final List<Integer> ports;
    private final String clusterName;
    private final String secret;
    // Guarded by this.
    private final List<P> children = new ArrayList<>();

    /** {@code portCount} ports, and a cluster name that starts with {@code clusterPrefix}. */
    public LoopbackGroup(String clusterPrefix, int portCount) {
        this.ports = FreePorts.allocate(portCount, FD_SOCK_OFFSET);
        this.clusterName = clusterPrefix + randomHex(4);
        this.secret = randomHex(16);
    }

    public int port(int index) {
        return ports.get(index);
    }

    /** Static discovery over every port of the group: {@code 127.0.0.1:P1,127.0.0.1:P2,...}. */
    public String peers() {
        return ports.stream().map(p -> "127.0.0.1:" + p).collect(Collectors.joining(","));
    }

    public String clusterName() {
        return clusterName;
    }

    public String secret() {
        return secret;
    }

    /** Keeps {@code child} for {@link #close()}; returns it. */
    public synchronized P add(P child) {
        children.add(child);
        return child;
    }

    @Override
    public void close() {
        List<P> all;
        synchronized (this) {
            all = List.copyOf(children);
        }
        all.forEach(ChildJvm::close);
    }

    /** The time from now to {@code deadlineNanos} ({@link System#nanoTime()}), or zero once it passed. */
    public static Duration left(long deadlineNanos) {
        return Duration.ofNanos(Math.max(0, deadlineNanos - System.nanoTime()));
    }

    private static String randomHex(int bytes) {
        byte[] b = new byte[bytes];
        ThreadLocalRandom.current().nextBytes(b);
        return HexFormat.of().formatHex(b);
    }
}
