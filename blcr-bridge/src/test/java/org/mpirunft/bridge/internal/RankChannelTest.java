package org.mpirunft.bridge.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpirunft.common.JsonLines;
import org.mpirunft.common.rank.RankMessage;

/** The rank channel across a restart of the node daemon: real Unix sockets, a daemon played by the test. */
class RankChannelTest {
    private static final RankMessage.Hello HELLO = new RankMessage.Hello(RankMessage.VERSION, "job", 2, 1234, false);
    private static final RankMessage.Welcome WELCOME = new RankMessage.Welcome(RankMessage.VERSION, "job", "node3", true, 0, 0, 2, 0);

    @TempDir
    Path dir;

    /** One incarnation of the daemon's rank socket: accepts one rank, answers its hello. */
    private static final class Daemon implements AutoCloseable {
        final ServerSocketChannel server;
        SocketChannel rank;
        BufferedReader in;
        OutputStream out;

        Daemon(Path socket) throws IOException {
            Files.deleteIfExists(socket);
            server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
            server.bind(UnixDomainSocketAddress.of(socket));
        }

        /** Accepts the rank and returns its hello line. */
        String accept(RankMessage answer) throws IOException {
            rank = server.accept();
            in = new BufferedReader(new InputStreamReader(Channels.newInputStream(rank), StandardCharsets.UTF_8));
            out = Channels.newOutputStream(rank);
            String hello = in.readLine();
            send(answer);
            return hello;
        }

        void send(RankMessage message) throws IOException {
            out.write((JsonLines.encode(message) + "\n").getBytes(StandardCharsets.UTF_8));
            out.flush();
        }

        @Override
        public void close() throws IOException {
            if (rank != null) {
                rank.close();
            }
            server.close();
        }
    }

    /** The daemon the rank first connects to: it welcomes the rank in the background. */
    private static Daemon welcomingOnce(Path socket) throws IOException {
        Daemon first = new Daemon(socket);
        Thread.ofVirtual().start(() -> {
            try {
                first.accept(WELCOME);
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        });
        return first;
    }

    @Test
    void aRestartedDaemonGetsTheSameHelloAndTheReportsMadeWhileItWasAway() throws Exception {
        Path socket = dir.resolve("ranks.sock");
        BlockingQueue<RankMessage> orders = new LinkedBlockingQueue<>();
        Daemon first = welcomingOnce(socket);
        try (RankChannel channel = RankChannel.connect(socket, HELLO, Duration.ofSeconds(5), Duration.ofMillis(50), Duration.ofSeconds(20),
                orders::add)) {
            assertEquals(WELCOME, channel.welcome());
            // The daemon stops (a restart): the rank reports while it is away.
            first.close();
            Files.deleteIfExists(socket);
            Thread.sleep(100);
            channel.report(new RankMessage.Finished(RankMessage.VERSION, "job"));
            assertTrue(channel.isOpen(), "the channel waits for the daemon to come back");
            try (Daemon second = new Daemon(socket)) {
                String hello = second.accept(new RankMessage.Welcome(RankMessage.VERSION, "job", "node3", true, 4, 3, 2, 0));
                assertEquals(HELLO, JsonLines.decode(hello, RankMessage.class), "the same hello again");
                assertEquals(new RankMessage.Finished(RankMessage.VERSION, "job"), JsonLines.decode(second.in.readLine(), RankMessage.class),
                        "the report made while the daemon was away");
                second.send(new RankMessage.CheckpointOrder(RankMessage.VERSION, "job", 5));
                assertEquals(new RankMessage.CheckpointOrder(RankMessage.VERSION, "job", 5), orders.poll(5, TimeUnit.SECONDS),
                        "orders of the new daemon reach the rank");
                channel.report(new RankMessage.Finished(RankMessage.VERSION, "job"));
                assertEquals(new RankMessage.Finished(RankMessage.VERSION, "job"), JsonLines.decode(second.in.readLine(), RankMessage.class));
            }
        }
    }

    @Test
    void aDaemonThatRefusesTheRankAfterItsRestartLeavesTheRankOnItsOwn() throws Exception {
        Path socket = dir.resolve("ranks.sock");
        Daemon first = welcomingOnce(socket);
        try (RankChannel channel = RankChannel.connect(socket, HELLO, Duration.ofSeconds(5), Duration.ofMillis(50), Duration.ofSeconds(20),
                order -> { })) {
            first.close();
            Files.deleteIfExists(socket);
            try (Daemon second = new Daemon(socket)) {
                second.accept(new RankMessage.Refused(RankMessage.VERSION, "pid 1234 is no job process of node3"));
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                while (channel.isOpen() && System.nanoTime() < deadline) {
                    Thread.sleep(20);
                }
                assertFalse(channel.isOpen(), "a refusal ends the channel");
            }
        }
    }
}
