package org.mpirunft.daemon;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DaemonClientTest {
    @TempDir
    Path dir;

    /** A daemon that takes the request and never answers (stopped with SIGSTOP, or hung) holds a call up to the reply bound only. */
    @Test
    void aDaemonThatNeverRepliesEndsTheCallAtTheReplyBound() throws Exception {
        Path socket = dir.resolve("ftd.sock");
        try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            server.bind(UnixDomainSocketAddress.of(socket));
            Thread accepting = Thread.ofVirtual().start(() -> {
                try (SocketChannel silent = server.accept()) {
                    Thread.sleep(60_000);
                } catch (Exception e) {
                    // The test is over.
                }
            });
            DaemonClient client = new DaemonClient(socket, Duration.ofMillis(500));
            long start = System.nanoTime();
            DaemonClient.DaemonUnreachableException e = assertTimeoutPreemptively(Duration.ofSeconds(10),
                    () -> assertThrows(DaemonClient.DaemonUnreachableException.class, client::status));
            assertTrue(System.nanoTime() - start >= Duration.ofMillis(500).toNanos(), "not before the bound");
            assertTrue(e.getMessage().contains("no reply within") && e.getMessage().contains(socket.toString()), e.getMessage());
            accepting.interrupt();
        }
    }
}
