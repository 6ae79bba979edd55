package org.mpirunft.membership;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mpirunft.membership.Await.waitUntil;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.mpirunft.membership.loopback.InJvmGroup;

/**
 * A node of the static list that is powered off answers no connect at all: its SYNs go
 * unanswered until the connect timeout. The group keeps trying it (discovery, merge checks), and
 * those attempts must not hold up what live members send each other: a member that sends
 * everything on one thread would stop all its traffic for a connect timeout at every try, and its
 * heartbeats and merge answers would come late (false suspicions, merges missed after a heal).
 */
class SilentHostTest {
    private static final String SECRET = "silent-host-test-secret-0123456789";
    private static final Duration WAIT = Duration.ofSeconds(20);
    /** Long, so that a send stuck behind one connect stands out from any scheduling delay. */
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(2);

    @RegisterExtension
    final InJvmGroup group = new InJvmGroup("silent-", 2, SECRET);

    /** A listening socket whose accept queue is full: the kernel drops every further SYN, as a dead host does. */
    private ServerSocket silent;
    private final List<Socket> queued = new ArrayList<>();

    @AfterEach
    void closeSilentHost() throws IOException {
        for (Socket s : queued) {
            s.close();
        }
        if (silent != null) {
            silent.close();
        }
    }

    @Test
    void aHostThatAnswersNoConnectDelaysNoMessageBetweenLiveMembers() throws Exception {
        InetSocketAddress dead = silentHost();
        List<Long> latenciesMillis = new CopyOnWriteArrayList<>();
        Membership a = start(0, dead, null);
        Membership b = start(1, dead, latenciesMillis);
        // With every send on one thread, even this fails: each discovery round holds the answers for a connect timeout.
        waitUntil(WAIT, () -> a.view().size() == 2 && b.view().size() == 2,
                () -> "one group of a and b beside a silent host; views " + a.view().names() + " " + b.view().names());

        // Long enough for several discovery rounds (every 0.5 to 1.5 s), each of which tries the silent host.
        long end = System.nanoTime() + Duration.ofSeconds(6).toNanos();
        int sent = 0;
        while (System.nanoTime() < end) {
            assertTrue(a.send("b", ByteBuffer.allocate(Long.BYTES).putLong(System.nanoTime()).array()), "b is in the view");
            sent++;
            Thread.sleep(20);
        }
        int count = sent;
        waitUntil(WAIT, () -> latenciesMillis.size() == count, () -> "b received " + latenciesMillis.size() + " of " + count);
        long worst = latenciesMillis.stream().mapToLong(Long::longValue).max().orElseThrow();
        System.out.printf("SilentHostTest: %d messages, slowest %d ms (connect timeout %d ms)%n", count, worst, CONNECT_TIMEOUT.toMillis());
        assertTrue(worst < CONNECT_TIMEOUT.toMillis() / 2, "a message waited " + worst
                + " ms, as long as a connect to the silent host: sends to live members wait for it");
    }

    private InetSocketAddress silentHost() throws IOException {
        silent = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        // Linux queues backlog + 1 connections that nobody accepts; later SYNs are dropped.
        for (int i = 0; i < 2; i++) {
            queued.add(new Socket(silent.getInetAddress(), silent.getLocalPort()));
        }
        try (Socket probe = new Socket()) {
            probe.connect(silent.getLocalSocketAddress(), 300);
            throw new IllegalStateException("the silent host accepted a connect; the test needs one that answers none");
        } catch (java.net.SocketTimeoutException expected) {
            return new InetSocketAddress("127.0.0.1", silent.getLocalPort());
        }
    }

    private Membership start(int index, InetSocketAddress dead, List<Long> latenciesMillis) throws Exception {
        List<InetSocketAddress> hosts = List.of(new InetSocketAddress("127.0.0.1", group.port(0)),
                new InetSocketAddress("127.0.0.1", group.port(1)), dead);
        String name = index == 0 ? "a" : "b";
        Membership m = Membership.create(group.config(index).discovery(Discovery.staticHosts(hosts)).connectTimeout(CONNECT_TIMEOUT).build(),
                NodeMetadata.compute(name, 1, InetSocketAddress.createUnresolved("127.0.0.1", 9000)));
        if (latenciesMillis != null) {
            m.addMessageListener((sender, payload) -> latenciesMillis.add((System.nanoTime() - ByteBuffer.wrap(payload).getLong()) / 1_000_000));
        }
        group.add(m);
        m.start();
        return m;
    }
}
