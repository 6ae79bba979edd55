package org.mpirunft.daemon.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import java.util.logging.Logger;

/**
 * The accepting thread of one of the daemon's Unix sockets (the control socket, the rank
 * channel): it hands each connection to {@code serve} on {@code executor}, so a slow client
 * never holds up the next, and ends when the socket is closed.
 */
final class SocketAcceptor {
    private static final Logger LOG = Logger.getLogger(SocketAcceptor.class.getName());

    private SocketAcceptor() {
    }

    /** Stops listening and removes the socket file; the accepting thread then ends. */
    static void close(ServerSocketChannel server, Path socket, String what) {
        try {
            server.close();
            Files.deleteIfExists(socket);
        } catch (IOException e) {
            LOG.fine(() -> "closing the " + what + " socket: " + e.getMessage());
        }
    }

    /** Starts the thread; {@code what} names the socket in a failed accept's warning ("node1: control"). */
    static Thread start(String threadName, String what, ServerSocketChannel server, Executor executor,
                        Consumer<SocketChannel> serve) {
        return Thread.ofPlatform().daemon().name(threadName).start(() -> {
            while (server.isOpen()) {
                try {
                    SocketChannel channel = server.accept();
                    executor.execute(() -> serve.accept(channel));
                } catch (ClosedChannelException e) {
                    return;
                } catch (IOException e) {
                    LOG.warning(what + " accept failed: " + e.getMessage());
                }
            }
        });
    }
}
