package org.mpirunft.bridge.internal;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.logging.Logger;
import org.mpirunft.bridge.BridgeException;
import org.mpirunft.common.JsonLines;
import org.mpirunft.common.rank.Handshake;
import org.mpirunft.common.rank.RankMessage;

/**
 * The rank's end of the rank control channel: one Unix-socket connection to its node's daemon
 * (see {@link RankMessage} for the conversation). Orders arrive on a reader thread and go to the
 * listener there; reports are written from any thread. If the daemon goes away mid-run (the node
 * is being fenced, or the job stopped), the rank logs it once and goes on without it.
 */
public final class RankChannel implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(RankChannel.class.getName());

    private final String who;
    private final SocketChannel channel;
    private final BufferedReader in;
    private final OutputStream out;
    private final RankMessage.Welcome welcome;
    private final Thread reader;
    private volatile boolean closed;

    private RankChannel(String who, SocketChannel channel, BufferedReader in, OutputStream out, RankMessage.Welcome welcome,
                        Consumer<RankMessage> orders) {
        this.who = who;
        this.channel = channel;
        this.in = in;
        this.out = out;
        this.welcome = welcome;
        this.reader = Thread.ofPlatform().daemon().name("rank-channel-" + who).start(() -> read(orders));
    }

    /**
     * Connects to the daemon at {@code socket}, says hello and waits up to {@code bound} for the
     * welcome. {@code orders} gets every order after it, on the channel's reader thread.
     *
     * @throws BridgeException with one line when the daemon cannot be reached, refuses, or does not answer
     */
    public static RankChannel connect(Path socket, RankMessage.Hello hello, Duration bound, Consumer<RankMessage> orders) {
        String who = "rank-" + hello.rank();
        SocketChannel channel = null;
        try {
            channel = SocketChannel.open(StandardProtocolFamily.UNIX);
            channel.connect(UnixDomainSocketAddress.of(socket));
            BufferedReader in = new BufferedReader(new InputStreamReader(Channels.newInputStream(channel), StandardCharsets.UTF_8));
            OutputStream out = Channels.newOutputStream(channel);
            // The handshake's own codec: databind's first use is a start's critical path (see Handshake).
            write(out, Handshake.encode(hello));
            CompletableFuture<String> first = CompletableFuture.supplyAsync(() -> {
                try {
                    return in.readLine();
                } catch (IOException e) {
                    throw new IllegalStateException(e.getMessage(), e);
                }
            }, command -> Thread.ofVirtual().start(command));
            String line = first.get(bound.toMillis(), TimeUnit.MILLISECONDS);
            if (line == null) {
                throw new BridgeException("the node daemon at " + socket + " closed the rank channel without a welcome");
            }
            RankMessage answer = Handshake.decodeAnswer(line);
            if (answer instanceof RankMessage.Refused refused) {
                throw new BridgeException("the node daemon refused rank " + hello.rank() + " of job " + hello.job() + ": "
                        + refused.reason());
            }
            if (!(answer instanceof RankMessage.Welcome welcome)) {
                throw new BridgeException("the node daemon answered " + answer.getClass().getSimpleName() + " to hello");
            }
            return new RankChannel(who, channel, in, out, welcome, orders);
        } catch (IOException | ExecutionException | JsonLines.MalformedMessageException e) {
            close(channel);
            throw new BridgeException("rank " + hello.rank() + ": cannot reach the node daemon's rank channel at " + socket + ": "
                    + (e instanceof ExecutionException ee ? ee.getCause().getMessage() : e.getMessage()), e);
        } catch (TimeoutException e) {
            close(channel);
            throw new BridgeException("rank " + hello.rank() + ": the node daemon at " + socket + " did not answer within " + bound, e);
        } catch (InterruptedException e) {
            close(channel);
            Thread.currentThread().interrupt();
            throw new BridgeException("rank " + hello.rank() + ": interrupted while connecting to the node daemon", e);
        } catch (BridgeException e) {
            close(channel);
            throw e;
        }
    }

    public RankMessage.Welcome welcome() {
        return welcome;
    }

    /** Sends a report; a channel that broke is reported once and then stays silent. */
    public synchronized void report(RankMessage report) {
        if (closed) {
            return;
        }
        try {
            write(out, JsonLines.encode(report));
        } catch (IOException e) {
            lost(e.getMessage());
        }
    }

    public boolean isOpen() {
        return !closed;
    }

    private void read(Consumer<RankMessage> orders) {
        try {
            String line;
            while ((line = in.readLine()) != null) {
                if (line.isBlank()) {
                    continue;
                }
                RankMessage order;
                try {
                    order = JsonLines.decode(line, RankMessage.class);
                } catch (JsonLines.MalformedMessageException e) {
                    LOG.warning(() -> who + ": ignoring a malformed order: " + e.getMessage());
                    continue;
                }
                orders.accept(order);
            }
            lost("the daemon closed it");
        } catch (IOException e) {
            lost(e.getMessage());
        }
    }

    private synchronized void lost(String why) {
        if (!closed) {
            closed = true;
            LOG.warning(() -> who + ": lost the node daemon's rank channel (" + why + "); going on without it");
        }
    }

    private static void write(OutputStream out, String line) throws IOException {
        out.write((line + "\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    private static void close(SocketChannel channel) {
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException ignored) {
                // Closing a channel that failed: nothing more to do.
            }
        }
    }

    @Override
    public void close() {
        synchronized (this) {
            closed = true;
        }
        close(channel);
        reader.interrupt();
    }
}
