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
 * Serves other daemons on the cluster network: one signed request per connection. A request
 * whose MAC does not verify is answered {@link ErrorCode#REFUSED} and never reaches the handler.
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
            ControlReply reply;
            String line = channel.readLine();
            if (line == null) {
                return;
            }
            try {
                PeerMessage.Signed signed = (PeerMessage.Signed) expect(Wire.decode(line, PeerMessage.class), PeerMessage.Signed.class);
                if (!auth.verify(nonce, signed.request(), signed.mac())) {
                    LOG.warning(node + ": refused a peer request from " + socket.getRemoteSocketAddress()
                            + ": it does not prove the cluster secret");
                    reply = new ControlReply.Failed(ControlReply.VERSION, ErrorCode.REFUSED, "the request is not signed with the cluster secret");
                } else {
                    reply = handler.apply(signed.from(), Wire.decode(signed.request(), PeerMessage.class));
                }
            } catch (ProtocolException e) {
                reply = new ControlReply.Failed(ControlReply.VERSION, ErrorCode.BAD_REQUEST, e.getMessage());
            }
            channel.write(reply);
        } catch (SocketException e) {
            LOG.fine(() -> node + ": peer connection dropped: " + e.getMessage());
        } catch (IOException | RuntimeException e) {
            LOG.warning(node + ": peer request from " + socket.getRemoteSocketAddress() + " failed: " + e);
        }
    }

    private static PeerMessage expect(PeerMessage message, Class<? extends PeerMessage> type) {
        if (!type.isInstance(message)) {
            throw new ProtocolException("expected " + type.getSimpleName() + ", got " + message.getClass().getSimpleName());
        }
        if (message.version() != PeerMessage.VERSION) {
            throw new ProtocolException("peer protocol version " + message.version() + " is not " + PeerMessage.VERSION);
        }
        return message;
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
