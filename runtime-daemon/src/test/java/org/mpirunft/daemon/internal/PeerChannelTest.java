package org.mpirunft.daemon.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.mpirunft.daemon.protocol.ControlReply;
import org.mpirunft.daemon.protocol.ErrorCode;
import org.mpirunft.daemon.protocol.PeerMessage;
import org.mpirunft.daemon.protocol.Wire;

/**
 * The peer port's exchange, both ways authenticated, on 127.0.0.1: a real {@link PeerServer}
 * and {@link PeerClient}, and scripted peers in between that capture and send again what they
 * saw, as someone on the cluster network could.
 */
class PeerChannelTest {
    private static final PeerAuth AUTH = new PeerAuth("the-cluster-secret-0123456789abc".getBytes(StandardCharsets.UTF_8));
    private static final PeerAuth OTHER = new PeerAuth("another-cluster-secret-012345678".getBytes(StandardCharsets.UTF_8));
    private static final PeerMessage REQUEST = new PeerMessage.KillJobProcesses(PeerMessage.VERSION, "job7");

    private final AtomicInteger handled = new AtomicInteger();
    private PeerServer server;
    private InetSocketAddress serverAddress;
    private final PeerClient client = new PeerClient("node1", AUTH, Duration.ofSeconds(2), Duration.ofSeconds(5));

    @BeforeEach
    void startServer() throws IOException {
        int port;
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = probe.getLocalPort();
        }
        serverAddress = new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
        server = new PeerServer("node2", serverAddress, AUTH, (from, request) -> {
            int n = handled.incrementAndGet();
            return new ControlReply.Ok(ControlReply.VERSION, "done #" + n + " for " + from);
        });
    }

    @AfterEach
    void stopServer() {
        server.close();
    }

    @Test
    void aSignedRequestGetsASignedReply() {
        ControlReply reply = client.call("node2", serverAddress, REQUEST);
        assertEquals(new ControlReply.Ok(ControlReply.VERSION, "done #1 for node1"), reply);
    }

    @Test
    void aRequestCapturedOnOneConnectionIsRefusedOnAnother() throws Exception {
        // A relay passes one exchange through and keeps the client's signed request.
        Relay relay = Relay.start(serverAddress, 1);
        assertInstanceOf(ControlReply.Ok.class, client.call("node2", relay.address(), REQUEST));
        String capturedRequest = relay.requests.get(5, TimeUnit.SECONDS);

        // Sent again on a connection of its own: the server's nonce is another.
        try (Socket socket = new Socket(serverAddress.getAddress(), serverAddress.getPort())) {
            socket.setSoTimeout(5000);
            Lines channel = channel(socket);
            channel.readLine(); // the new challenge, ignored as a replayer would
            channel.writeLine(capturedRequest);
            ControlReply reply = openReply(channel.readLine());
            ControlReply.Failed failed = assertInstanceOf(ControlReply.Failed.class, reply);
            assertEquals(ErrorCode.REFUSED, failed.code(), failed.message());
        }
        assertEquals(1, handled.get(), "the replayed request must not reach the handler");
    }

    @Test
    void aReplyCapturedForOneRequestIsRefusedAsTheAnswerToAnother() throws Exception {
        Relay relay = Relay.start(serverAddress, 1);
        assertEquals(new ControlReply.Ok(ControlReply.VERSION, "done #1 for node1"), client.call("node2", relay.address(), REQUEST));
        String challenge = relay.challenges.get(5, TimeUnit.SECONDS);
        String capturedReply = relay.replies.get(5, TimeUnit.SECONDS);

        // A fake server replays the very challenge and reply of that exchange: only the client's
        // own fresh nonce tells the reply is not an answer to this request.
        ControlReply reply = client.call("node2", Scripted.start(challenge, capturedReply).address(), REQUEST);
        ControlReply.Failed failed = assertInstanceOf(ControlReply.Failed.class, reply);
        assertEquals(ErrorCode.REFUSED, failed.code(), failed.message());
        assertTrue(failed.message().contains("without proof of the cluster secret"), failed.message());
        assertEquals(1, handled.get());
    }

    @Test
    void unsignedAndBadlySignedRepliesAreRefused() throws Exception {
        String challenge = Wire.encode(new PeerMessage.Challenge(PeerMessage.VERSION, "node2", PeerAuth.nonce()));
        String unsigned = Wire.encode(new ControlReply.Ok(ControlReply.VERSION, "trust me"));
        ControlReply.Failed failed = assertInstanceOf(ControlReply.Failed.class,
                client.call("node2", Scripted.start(challenge, unsigned).address(), REQUEST));
        assertEquals(ErrorCode.REFUSED, failed.code(), failed.message());
        assertEquals(1, failed.message().lines().count(), "one line: " + failed.message());

        // Signed over the right nonces, but with another secret: the fake server signs what the
        // client sent it.
        failed = assertInstanceOf(ControlReply.Failed.class, client.call("node2", Scripted.signingWith(OTHER).address(), REQUEST));
        assertEquals(ErrorCode.REFUSED, failed.code(), failed.message());
        // The same fake server with the right secret is believed: the test's forger is sound.
        assertEquals(new ControlReply.Ok(ControlReply.VERSION, "forged"),
                client.call("node2", Scripted.signingWith(AUTH).address(), REQUEST));
    }

    @Test
    void aRequestWithAnotherSecretIsRefusedAndSoIsItsReply() {
        PeerClient intruder = new PeerClient("intruder", OTHER, Duration.ofSeconds(2), Duration.ofSeconds(5));
        ControlReply.Failed failed = assertInstanceOf(ControlReply.Failed.class, intruder.call("node2", serverAddress, REQUEST));
        assertEquals(ErrorCode.REFUSED, failed.code(), failed.message());
        assertEquals(0, handled.get());
    }

    @Test
    void peersOfAnotherProtocolVersionGetAOneLineRefusal() throws Exception {
        // An older client: its request (version 2, no nonce of its own) gets a plain reply it can print.
        try (Socket socket = new Socket(serverAddress.getAddress(), serverAddress.getPort())) {
            socket.setSoTimeout(5000);
            Lines channel = channel(socket);
            channel.readLine();
            channel.writeLine("{\"type\":\"signed\",\"version\":2,\"from\":\"old\",\"request\":\"{}\",\"mac\":\"AAAA\"}");
            ControlReply.Failed failed = assertInstanceOf(ControlReply.Failed.class, Wire.decode(channel.readLine(), ControlReply.class));
            assertEquals(ErrorCode.BAD_REQUEST, failed.code());
            assertEquals("peer protocol version 2 is not this daemon's " + PeerMessage.VERSION
                    + ": run the same mpirun-ft version on every node", failed.message());
        }
        // An older server: its challenge says version 2.
        String oldChallenge = "{\"type\":\"challenge\",\"version\":2,\"node\":\"node2\",\"nonce\":\"" + PeerAuth.nonce() + "\"}";
        ControlReply.Failed failed = assertInstanceOf(ControlReply.Failed.class,
                client.call("node2", Scripted.start(oldChallenge, "").address(), REQUEST));
        assertEquals(ErrorCode.REFUSED, failed.code());
        assertTrue(failed.message().endsWith("speaks peer protocol version 2, this daemon " + PeerMessage.VERSION
                + ": run the same mpirun-ft version on every node"), failed.message());
        assertEquals(0, handled.get());
    }

    /** The reply inside a signed reply line, or the plain reply. */
    private static ControlReply openReply(String line) {
        PeerMessage.SignedReply signed = assertInstanceOf(PeerMessage.SignedReply.class, Wire.decode(line, PeerMessage.class));
        return Wire.decode(signed.reply(), ControlReply.class);
    }

    private static Lines channel(Socket socket) throws IOException {
        return new Lines(new LineChannel(new BufferedInputStream(socket.getInputStream()), socket.getOutputStream()),
                socket.getOutputStream());
    }

    /** Lines as they are on the wire, read and written unchanged. */
    private record Lines(LineChannel in, OutputStream out) {
        String readLine() throws IOException {
            return in.readLine();
        }

        void writeLine(String line) throws IOException {
            out.write((line + "\n").getBytes(StandardCharsets.UTF_8));
            out.flush();
        }
    }

    /** Passes {@code count} exchanges through to the server and keeps their lines. */
    private record Relay(ServerSocket socket, CompletableFuture<String> challenges, CompletableFuture<String> requests,
                         CompletableFuture<String> replies) {
        static Relay start(InetSocketAddress target, int count) throws IOException {
            Relay relay = new Relay(new ServerSocket(0, 1, InetAddress.getLoopbackAddress()), new CompletableFuture<>(),
                    new CompletableFuture<>(), new CompletableFuture<>());
            Thread.ofVirtual().start(() -> {
                try (ServerSocket listening = relay.socket; Socket in = listening.accept();
                     Socket out = new Socket(target.getAddress(), target.getPort())) {
                    in.setSoTimeout(5000);
                    out.setSoTimeout(5000);
                    Lines client = channel(in);
                    Lines server = channel(out);
                    String challenge = server.readLine();
                    relay.challenges.complete(challenge);
                    client.writeLine(challenge);
                    String request = client.readLine();
                    relay.requests.complete(request);
                    server.writeLine(request);
                    String reply = server.readLine();
                    relay.replies.complete(reply);
                    client.writeLine(reply);
                } catch (IOException e) {
                    relay.requests.completeExceptionally(e);
                    relay.replies.completeExceptionally(e);
                }
            });
            return relay;
        }

        InetSocketAddress address() {
            return new InetSocketAddress(InetAddress.getLoopbackAddress(), socket.getLocalPort());
        }
    }

    /** A fake server for one connection: sends a challenge, reads the request, sends a reply. */
    private record Scripted(ServerSocket socket) {
        static Scripted start(String challenge, String reply) throws IOException {
            return serve((channel, request) -> {
                channel.writeLine(challenge);
                channel.readLine();
                if (!reply.isEmpty()) {
                    channel.writeLine(reply);
                }
            });
        }

        /** Signs a reply over the nonces of the exchange, with {@code auth}'s secret. */
        static Scripted signingWith(PeerAuth auth) throws IOException {
            return serve((channel, unused) -> {
                String serverNonce = PeerAuth.nonce();
                channel.writeLine(Wire.encode(new PeerMessage.Challenge(PeerMessage.VERSION, "node2", serverNonce)));
                PeerMessage.Signed request = (PeerMessage.Signed) Wire.decode(channel.readLine(), PeerMessage.class);
                String json = Wire.encode(new ControlReply.Ok(ControlReply.VERSION, "forged"));
                channel.writeLine(Wire.encode(new PeerMessage.SignedReply(PeerMessage.VERSION, "node2", json,
                        auth.signReply(serverNonce, request.nonce(), json))));
            });
        }

        private interface Script {
            void run(Lines channel, Void unused) throws IOException;
        }

        private static Scripted serve(Script script) throws IOException {
            Scripted scripted = new Scripted(new ServerSocket(0, 1, InetAddress.getLoopbackAddress()));
            Thread.ofVirtual().start(() -> {
                try (ServerSocket listening = scripted.socket; Socket in = listening.accept()) {
                    in.setSoTimeout(5000);
                    script.run(channel(in), null);
                } catch (IOException e) {
                    // the client saw the connection end; the test's assertions say what it made of it
                }
            });
            return scripted;
        }

        InetSocketAddress address() {
            return new InetSocketAddress(InetAddress.getLoopbackAddress(), socket.getLocalPort());
        }
    }
}
