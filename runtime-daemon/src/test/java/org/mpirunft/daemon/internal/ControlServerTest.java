package org.mpirunft.daemon.internal;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpirunft.daemon.protocol.ControlReply;
import org.mpirunft.daemon.protocol.ControlRequest;
import org.mpirunft.daemon.protocol.Wire;

class ControlServerTest {
    @TempDir
    Path dir;

    /**
     * A subscriber that stops reading (a launcher stopped with Ctrl-Z, or hung) must not hold up
     * the thread that publishes its job's events, the membership thread: its events pile up to a
     * bound, then it loses its connection.
     */
    @Test
    void aSubscriberThatDoesNotReadHoldsUpNotThePublisherAndIsDropped() throws Exception {
        CompletableFuture<ControlServer.Client> subscribed = new CompletableFuture<>();
        Path socket = dir.resolve("ftd.sock");
        try (ControlServer server = new ControlServer("n1", socket, Optional.empty(), (request, client, caller) -> {
            subscribed.complete(client);
            return new ControlReply.Ok(ControlReply.VERSION, "subscribed");
        });
             SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            channel.connect(UnixDomainSocketAddress.of(socket));
            channel.write(ByteBuffer.wrap((Wire.encode(new ControlRequest.Subscribe(ControlRequest.VERSION, "j1")) + "\n")
                    .getBytes(StandardCharsets.UTF_8)));
            ControlServer.Client client = subscribed.get(5, TimeUnit.SECONDS);
            // Each event about 2 KB: the socket's buffer fills after a few hundred, the queue after its bound.
            ControlReply event = new ControlReply.Ok(ControlReply.VERSION, "x".repeat(2000));
            assertTimeoutPreemptively(Duration.ofSeconds(10), () -> assertThrows(IOException.class, () -> {
                for (int i = 0; i < 100 * ControlServer.EVENT_BOUND; i++) {
                    client.send(event);
                }
            }, "the subscriber that reads nothing is dropped"));
            // Its connection is closed: what it reads ends (after the buffered events).
            channel.configureBlocking(true);
            ByteBuffer buffer = ByteBuffer.allocate(1 << 16);
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            int read = 0;
            while (read >= 0 && System.nanoTime() < deadline) {
                buffer.clear();
                read = channel.read(buffer);
            }
            assertTrue(read < 0, "the connection was closed");
        }
    }
}
