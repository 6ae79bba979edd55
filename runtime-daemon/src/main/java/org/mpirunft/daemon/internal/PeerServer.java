package org.mpirunft.daemon.internal;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.BiFunction;
import java.util.logging.Logger;
import org.mpirunft.daemon.protocol.ControlReply;
import org.mpirunft.daemon.protocol.ErrorCode;
import org.mpirunft.daemon.protocol.PeerMessage;
import org.mpirunft.daemon.protocol.ProtocolException;
import org.mpirunft.daemon.protocol.Wire;

/**
 * Serves other daemons on the cluster network: one signed request per connection, one signed
 * reply ({@link PeerAuth}). A request whose MAC does not verify, such as one captured on another
 * connection and sent again, is answered {@link ErrorCode#REFUSED} and never reaches the handler.
 */
final class PeerServer implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(PeerServer.class.getName());
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);

    private final String node;
    private final PeerAuth auth;
    private final BiFunction<String, PeerMessage, ControlReply> handler;
    private final ServerSocket server;
    private final ExecutorService connections = Executors.newVirtualThreadPerTaskExecutor();
    private final Thread acceptor;

    PeerServer(String node, InetSocketAddress address, PeerAuth auth, BiFunction<String, PeerMessage, ControlReply> handler)
            throws IOException {
        this.node = node;
        this.auth = auth;
        this.handler = handler;
        this.server = new ServerSocket();
        server.setReuseAddress(true);
        server.bind(address);
        this.acceptor = Thread.ofPlatform().daemon().name("ftd-peer-accept").start(this::accept);
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket socket = server.accept();
                connections.execute(() -> serve(socket));
            } catch (IOException e) {
                if (!server.isClosed()) {
                    LOG.warning(node + ": peer accept failed: " + e.getMessage());
                }
            }
        }
    }

    private void serve(Socket socket) {
        try (socket) {
            socket.setSoTimeout((int) REQUEST_TIMEOUT.toMillis());
            LineChannel channel = new LineChannel(new BufferedInputStream(socket.getInputStream()), socket.getOutputStream());
            String nonce = PeerAuth.nonce();
            channel.write(new PeerMessage.Challenge(PeerMessage.VERSION, node, nonce));
            String line = channel.readLine();
            if (line == null) {
                return;
            }
            PeerMessage.Signed signed;
            try {
                signed = signedRequest(line);
            } catch (ProtocolException e) {
                // Without a valid request there is no client nonce to sign over: a plain reply,
                // which a client of another version can still print.
                channel.write(new ControlReply.Failed(ControlReply.VERSION, ErrorCode.BAD_REQUEST, e.getMessage()));
                return;
            }
            ControlReply reply;
            if (!auth.verifyRequest(nonce, signed.nonce(), signed.request(), signed.mac())) {
                LOG.warning(node + ": refused a peer request from " + socket.getRemoteSocketAddress()
                        + ": it does not prove the cluster secret (another secret, or a replayed request)");
                reply = new ControlReply.Failed(ControlReply.VERSION, ErrorCode.REFUSED, "the request is not signed with the cluster secret");
            } else {
                try {
                    reply = handler.apply(signed.from(), Wire.decode(signed.request(), PeerMessage.class));
                } catch (ProtocolException e) {
                    reply = new ControlReply.Failed(ControlReply.VERSION, ErrorCode.BAD_REQUEST, e.getMessage());
                }
            }
            String json = Wire.encode(reply);
            channel.write(new PeerMessage.SignedReply(PeerMessage.VERSION, node, json, auth.signReply(nonce, signed.nonce(), json)));
        } catch (SocketException e) {
            LOG.fine(() -> node + ": peer connection dropped: " + e.getMessage());
        } catch (IOException | RuntimeException e) {
            LOG.warning(node + ": peer request from " + socket.getRemoteSocketAddress() + " failed: " + e);
        }
    }

    /** The client's {@link PeerMessage.Signed} request of this protocol version, or a one-line reason why not. */
    private PeerMessage.Signed signedRequest(String line) {
        PeerMessage message = Wire.decode(line, PeerMessage.class);
        if (message.version() != PeerMessage.VERSION) {
            String problem = "peer protocol version " + message.version() + " is not this daemon's " + PeerMessage.VERSION
                    + ": run the same mpirun-ft version on every node";
            LOG.warning(node + ": refused a peer request: " + problem);
            throw new ProtocolException(problem);
        }
        if (!(message instanceof PeerMessage.Signed signed)) {
            throw new ProtocolException("expected a signed request, got " + message.getClass().getSimpleName());
        }
        if (signed.nonce() == null || signed.nonce().isEmpty() || signed.request() == null) {
            throw new ProtocolException("a signed request needs the client's nonce and the request");
        }
        return signed;
    }

    @Override
    public void close() {
        try {
            server.close();
        } catch (IOException e) {
            LOG.fine(() -> "closing the peer server: " + e.getMessage());
        }
        connections.shutdownNow();
        acceptor.interrupt();
    }
}
