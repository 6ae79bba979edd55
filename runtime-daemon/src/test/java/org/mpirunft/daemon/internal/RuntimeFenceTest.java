package org.mpirunft.daemon.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.mpirunft.membership.Member;
import org.mpirunft.membership.NodeLoad;
import org.mpirunft.membership.NodeMetadata;

class RuntimeFenceTest {
    @Test
    void severesTheConnectionsToAFailedNodesAddressOffTheCallersThread() throws Exception {
        BlockingQueue<InetAddress> severed = new LinkedBlockingQueue<>();
        BlockingQueue<String> threads = new LinkedBlockingQueue<>();
        try (RuntimeFence fence = new RuntimeFence("head", address -> {
            severed.add(address);
            threads.add(Thread.currentThread().getName());
            return 2;
        })) {
            fence.fence(member("node1", "10.77.0.11"));
            assertEquals(InetAddress.getByName("10.77.0.11"), severed.poll(5, TimeUnit.SECONDS));
            assertTrue(!threads.take().equals(Thread.currentThread().getName()), "not on the membership thread");
        }
    }

    /** A severer that hangs with its output open is killed at the bound, and says so, rather than holding the fence's thread. */
    @Test
    void aSevererThatHangsIsKilledAtItsBound() throws Exception {
        long start = System.nanoTime();
        java.io.IOException e = org.junit.jupiter.api.Assertions.assertThrows(java.io.IOException.class,
                () -> RuntimeFence.severWith(List.of("sh", "-c", "echo closed; exec sleep 30"), java.time.Duration.ofMillis(500)));
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(millis < 5_000, "killed at the bound, not after the command: " + millis + " ms");
        assertEquals("sh did not finish within 500ms", e.getMessage());
        assertEquals(2, RuntimeFence.severWith(List.of("sh", "-c", "echo a; echo b"), java.time.Duration.ofSeconds(5)), "one line a closed connection");
    }

    @Test
    void aLoopbackAddressIsNeverSeveredSinceEveryLocalConnectionWouldMatch() throws Exception {
        BlockingQueue<InetAddress> severed = new LinkedBlockingQueue<>();
        try (RuntimeFence fence = new RuntimeFence("head", address -> {
            severed.add(address);
            return 0;
        })) {
            fence.fence(member("n2", "127.0.0.1"));
            fence.fence(member("n3", "10.77.0.13"));
            assertEquals(List.of(InetAddress.getByName("10.77.0.13")), List.of(severed.poll(5, TimeUnit.SECONDS)));
            assertEquals(null, severed.poll(200, TimeUnit.MILLISECONDS), "nothing for the loopback member");
        }
    }

    private static Member member(String name, String address) {
        return new Member(name + "-id", NodeMetadata.compute(name, 1, InetSocketAddress.createUnresolved(address, 7000)),
                new NodeLoad(0, 0));
    }
}
