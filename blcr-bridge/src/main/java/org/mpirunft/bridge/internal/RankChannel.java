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
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.logging.Logger;
import org.mpirunft.bridge.BridgeException;
import org.mpirunft.common.Durations;
import org.mpirunft.common.JsonLines;
import org.mpirunft.common.rank.Handshake;
import org.mpirunft.common.rank.RankMessage;

/**
 * The rank's end of the rank control channel: one Unix-socket connection to its node's daemon
 * (see {@link RankMessage} for the conversation). Orders arrive on a reader thread and go to the
 * listener there; reports are written from any thread.
 *
 * <p>If the daemon goes away mid-run, it is most often restarting (an upgrade restarts the
 * daemons one at a time and leaves the ranks running): the channel connects again, with the
 * same hello, every {@link #RECONNECT_EVERY} for up to {@link #RECONNECT_FOR}, and the reports
 * made meanwhile (up to {@link #PENDING_MAX}) go out once it is back. A daemon that refuses
 * the rank then, or does not come back, leaves the rank on its own, with one warning.
 */
public final class RankChannel implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(RankChannel.class.getName());
    static final Duration RECONNECT_EVERY = Duration.ofMillis(500);
    static final Duration RECONNECT_FOR = Duration.ofMinutes(10);
    static final int PENDING_MAX = 1024;

    /** One connection to the daemon, after its welcome. */
    private record Connection(SocketChannel channel, BufferedReader in, OutputStream out, RankMessage.Welcome welcome) {
    }

    private final String who;
    private final Path socket;
    private final RankMessage.Hello hello;
    private final Duration bound;
    private final Duration reconnectEvery;
    private final Duration reconnectFor;
    private final Consumer<RankMessage> orders;
    private final RankMessage.Welcome welcome;
    /** Reports made while the connection is down, in order. */
    private final Deque<String> pending = new ArrayDeque<>();
    private Connection connection;
    /** The owner closed it, or the daemon is gone for good: nothing is sent or awaited any more. */
    private volatile boolean closed;

    private RankChannel(Path socket, RankMessage.Hello hello, Duration bound, Duration reconnectEvery, Duration reconnectFor,
                        Consumer<RankMessage> orders, Connection first) {
        this.who = "rank-" + hello.rank();
        this.socket = socket;
        this.hello = hello;
        this.bound = bound;
        this.reconnectEvery = reconnectEvery;
        this.reconnectFor = reconnectFor;
        this.orders = orders;
        this.welcome = first.welcome();
        this.connection = first;
        startReader(first);
    }

    /**
     * Connects to the daemon at {@code socket}, says hello and waits up to {@code bound} for the
     * welcome. {@code orders} gets every order after it, on the channel's reader thread.
     *
     * @throws BridgeException with one line when the daemon cannot be reached, refuses, or does not answer
     */
    public static RankChannel connect(Path socket, RankMessage.Hello hello, Duration bound, Consumer<RankMessage> orders) {
        return connect(socket, hello, bound, RECONNECT_EVERY, RECONNECT_FOR, orders);
    }

    static RankChannel connect(Path socket, RankMessage.Hello hello, Duration bound, Duration reconnectEvery, Duration reconnectFor,
                               Consumer<RankMessage> orders) {
        return new RankChannel(socket, hello, bound, reconnectEvery, reconnectFor, orders, open(socket, hello, bound));
    }

    private static Connection open(Path socket, RankMessage.Hello hello, Duration bound) {
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
                throw new Refusal("the node daemon refused rank " + hello.rank() + " of job " + hello.job() + ": " + refused.reason());
            }
            if (!(answer instanceof RankMessage.Welcome welcome)) {
                throw new BridgeException("the node daemon answered " + answer.getClass().getSimpleName() + " to hello");
            }
            return new Connection(channel, in, out, welcome);
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

    /** The daemon's refusal: no use trying again. */
    private static final class Refusal extends BridgeException {
        private static final long serialVersionUID = 1L;

        Refusal(String message) {
            super(message);
        }
    }

    /** The first welcome: the job's checkpoint settings as the rank started. */
    public RankMessage.Welcome welcome() {
        return welcome;
    }

    /**
     * Sends a report. While the connection is down it waits for the next one; a channel that is
     * gone for good stays silent.
     */
    public synchronized void report(RankMessage report) {
        if (closed) {
            return;
        }
        String line = JsonLines.encode(report);
        if (connection == null) {
            queue(line);
            return;
        }
        try {
            write(connection.out(), line);
        } catch (IOException e) {
            queue(line);
            lost(connection, e.getMessage());
        }
    }

    /** Whether the daemon is there, or expected back: reports made now will reach it. */
    public boolean isOpen() {
        return !closed;
    }

    private void queue(String line) {
        if (pending.size() >= PENDING_MAX) {
            pending.removeFirst();
        }
        pending.addLast(line);
    }

    private void startReader(Connection current) {
        Thread.ofPlatform().daemon().name("rank-channel-" + who).start(() -> read(current));
    }

    private void read(Connection current) {
        try {
            String line;
            while ((line = current.in().readLine()) != null) {
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
            lost(current, "the daemon closed it");
        } catch (IOException e) {
            lost(current, e.getMessage());
        }
    }

    /** The connection {@code current} broke; the first to notice starts connecting again. */
    private synchronized void lost(Connection current, String why) {
        if (closed || connection != current) {
            return;
        }
        connection = null;
        close(current.channel());
        LOG.warning(() -> who + ": lost the node daemon's rank channel (" + why + "); connecting again for up to "
                + Durations.format(reconnectFor));
        Thread.ofPlatform().daemon().name("rank-channel-reconnect-" + who).start(this::reconnect);
    }

    private void reconnect() {
        long deadline = System.nanoTime() + reconnectFor.toNanos();
        String last = "";
        while (!closed && System.nanoTime() < deadline) {
            try {
                Thread.sleep(reconnectEvery);
            } catch (InterruptedException e) {
                return;
            }
            if (closed) {
                return;
            }
            try {
                Connection next = open(socket, hello, bound);
                if (!resumeOn(next)) {
                    close(next.channel());
                }
                return;
            } catch (Refusal e) {
                giveUp(e.getMessage());
                return;
            } catch (BridgeException e) {
                last = e.getMessage();
            }
        }
        giveUp("the daemon did not come back within " + Durations.format(reconnectFor) + (last.isEmpty() ? "" : ": " + last));
    }

    /** Takes {@code next} as the connection and sends what waited; false if the channel was closed meanwhile. */
    private synchronized boolean resumeOn(Connection next) {
        if (closed) {
            return false;
        }
        int waiting = pending.size();
        try {
            while (!pending.isEmpty()) {
                write(next.out(), pending.peekFirst());
                pending.removeFirst();
            }
        } catch (IOException e) {
            LOG.warning(() -> who + ": the node daemon's rank channel broke again at once (" + e.getMessage() + ")");
            Thread.ofPlatform().daemon().name("rank-channel-reconnect-" + who).start(this::reconnect);
            return false;
        }
        connection = next;
        LOG.info(() -> who + ": connected to the node daemon's rank channel again" + (waiting == 0 ? "" : "; sent the " + waiting
                + " report(s) made meanwhile"));
        startReader(next);
        return true;
    }

    private synchronized void giveUp(String why) {
        if (closed) {
            return;
        }
        closed = true;
        pending.clear();
        LOG.warning(() -> who + ": " + why + "; going on without the node daemon");
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
        Connection current;
        synchronized (this) {
            closed = true;
            current = connection;
            connection = null;
            pending.clear();
        }
        if (current != null) {
            close(current.channel());
        }
    }
}
