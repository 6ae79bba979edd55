package org.mpirunft.daemon.internal;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.logging.Logger;
import jdk.net.ExtendedSocketOptions;
import jdk.net.UnixDomainPrincipal;
import org.mpirunft.daemon.DaemonException;
import org.mpirunft.daemon.protocol.ControlReply;
import org.mpirunft.daemon.protocol.ControlRequest;
import org.mpirunft.daemon.protocol.ErrorCode;
import org.mpirunft.daemon.protocol.ProtocolException;
import org.mpirunft.daemon.protocol.Wire;

/**
 * The control socket for local clients. Every local user may connect (the socket is 0666 in a
 * directory of 0755), as every user may run {@code squeue}: what a client may do is decided per
 * request, by who it is. Who it is comes from the kernel, the connection's peer credentials
 * ({@code SO_PEERCRED}), never from what the client says. Requests are JSON lines; a malformed one
 * gets a {@link ErrorCode#BAD_REQUEST} reply and the connection stays usable.
 */
final class ControlServer implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(ControlServer.class.getName());

    /** Answers one request; a {@link ControlRequest.Subscribe} keeps {@code client} to stream to it. */
    interface Handler {
        ControlReply handle(ControlRequest request, Client client, Caller caller);
    }

    /** A connected client, to which a subscription streams replies. */
    interface Client {
        void send(ControlReply reply) throws IOException;
    }

    /** A subscription's events queued for a client before it counts as not reading (a job makes a few per checkpoint and recovery). */
    static final int EVENT_BOUND = 1024;

    private final String node;
    private final Path socket;
    private final Handler handler;
    private final ServerSocketChannel server;
    /** The gid of the configured operators' group, looked up at start; absent: root alone is an operator. */
    private final Optional<Long> operatorGroup;
    private final ExecutorService connections = Executors.newVirtualThreadPerTaskExecutor();
    private final Thread acceptor;

    /**
     * @param operators the group whose members are operators ({@code control.operators}); a group the
     *                  node does not know is an error, not a silent "no operators"
     */
    ControlServer(String node, Path socket, Optional<String> operators, Handler handler) throws IOException {
        this.node = node;
        this.socket = socket;
        this.handler = handler;
        this.operatorGroup = operators.map(group -> Accounts.groupId(group).orElseThrow(() -> new DaemonException(
                "control.operators: this node has no group '" + group + "'")));
        Path directory = socket.toAbsolutePath().getParent();
        if (!Files.isDirectory(directory)) {
            Files.createDirectories(directory, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
        }
        removeStale(socket);
        this.server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        server.bind(UnixDomainSocketAddress.of(socket));
        Files.setPosixFilePermissions(socket, PosixFilePermissions.fromString("rw-rw-rw-"));
        this.acceptor = SocketAcceptor.start("ftd-control-accept", node + ": control", server, connections, this::serve);
    }

    /** A socket file left by a crashed daemon is removed; one a live daemon answers on is not. */
    private static void removeStale(Path socket) throws IOException {
        if (!Files.exists(socket)) {
            return;
        }
        try (SocketChannel probe = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            probe.connect(UnixDomainSocketAddress.of(socket));
            throw new DaemonException("another daemon already answers on " + socket + "; stop it first");
        } catch (IOException notAnswering) {
            Files.delete(socket);
        }
    }

    private void serve(SocketChannel channel) {
        try (channel) {
            LineChannel lines = new LineChannel(new BufferedInputStream(Channels.newInputStream(channel)),
                    Channels.newOutputStream(channel));
            UnixDomainPrincipal peer = channel.getOption(ExtendedSocketOptions.SO_PEERCRED);
            Caller caller;
            try {
                caller = Caller.of(peer.user().getName(), operatorGroup);
            } catch (IllegalStateException unknown) {
                LOG.warning(node + ": refused a control connection: " + unknown.getMessage());
                // Take the request first, so the refusal is the client's answer, not a broken pipe.
                lines.readLine();
                lines.write(new ControlReply.Failed(ControlReply.VERSION, ErrorCode.REFUSED, node + ": " + unknown.getMessage()));
                return;
            }
            // A subscription's events go through a queue of their own: the thread that publishes
            // them (the membership thread, for the group's decisions) never waits on a client
            // that stops reading; one that lets EVENT_BOUND pile up loses its connection.
            OutboundQueue<ControlReply> events = new OutboundQueue<>(EVENT_BOUND, lines::write, () -> closeQuietly(channel));
            events.start(connections);
            Client client = reply -> {
                if (events.ended()) {
                    throw new IOException("the client's connection ended");
                }
                if (!events.offer(reply)) {
                    LOG.warning(node + ": a control client does not read its job's events (" + EVENT_BOUND
                            + " queued); dropping its connection");
                    throw new IOException("the client does not read its events");
                }
            };
            try {
                String line;
                while ((line = lines.readLine()) != null) {
                    if (line.isBlank()) {
                        continue;
                    }
                    lines.write(answer(line, client, caller));
                }
            } finally {
                events.end();
            }
        } catch (ProtocolException e) {
            LOG.warning(node + ": control client sent an oversized message: " + e.getMessage());
        } catch (IOException e) {
            LOG.fine(() -> node + ": control connection ended: " + e.getMessage());
        }
    }

    private static void closeQuietly(SocketChannel channel) {
        try {
            channel.close();
        } catch (IOException e) {
            // Closing it only ends its reader.
        }
    }

    private ControlReply answer(String line, Client client, Caller caller) {
        ControlRequest request;
        try {
            request = Wire.decode(line, ControlRequest.class);
        } catch (ProtocolException e) {
            LOG.warning(node + ": bad control request: " + e.getMessage());
            return new ControlReply.Failed(ControlReply.VERSION, ErrorCode.BAD_REQUEST, e.getMessage());
        }
        if (request.version() != ControlRequest.VERSION) {
            return new ControlReply.Failed(ControlReply.VERSION, ErrorCode.BAD_REQUEST,
                    "control protocol version " + request.version() + " is not supported (this daemon speaks " + ControlRequest.VERSION + ")");
        }
        try {
            return handler.handle(request, client, caller);
        } catch (IllegalArgumentException e) {
            return new ControlReply.Failed(ControlReply.VERSION, ErrorCode.BAD_REQUEST, e.getMessage());
        } catch (RuntimeException e) {
            LOG.warning(node + ": " + request.getClass().getSimpleName() + " failed: " + e);
            return new ControlReply.Failed(ControlReply.VERSION, ErrorCode.INTERNAL, String.valueOf(e.getMessage()));
        }
    }

    @Override
    public void close() {
        SocketAcceptor.close(server, socket, "control");
        connections.shutdownNow();
        acceptor.interrupt();
    }
}
