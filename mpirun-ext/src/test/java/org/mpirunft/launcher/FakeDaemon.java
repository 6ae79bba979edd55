package org.mpirunft.launcher;

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
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Predicate;
import org.mpirunft.daemon.DaemonClient;
import org.mpirunft.daemon.protocol.ControlReply;
import org.mpirunft.daemon.protocol.ControlRequest;
import org.mpirunft.daemon.protocol.ErrorCode;
import org.mpirunft.daemon.protocol.Wire;
import org.mpirunft.scheduler.SchedulerUpdate;

/**
 * A node daemon for tests: a real Unix-socket server speaking the control protocol (one JSON
 * request per line, one reply per line, a stream for subscriptions), which records every
 * request and answers from settable defaults; the test pushes the job's transitions to
 * subscribers as the scheduler would ({@link #push}).
 */
public final class FakeDaemon implements AutoCloseable {
    private final Path socket;
    private final ServerSocketChannel server;
    private final List<ControlRequest> requests = new CopyOnWriteArrayList<>();
    private final List<BlockingQueue<ControlReply.JobEvent>> subscribers = new CopyOnWriteArrayList<>();
    private final List<SocketChannel> connections = new CopyOnWriteArrayList<>();
    private volatile ControlReply.StatusReport status;
    private volatile Function<ControlRequest, ControlReply> override = request -> null;
    private volatile boolean closed;

    public FakeDaemon(Path socket) throws IOException {
        this.socket = socket;
        this.server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        server.bind(UnixDomainSocketAddress.of(socket));
        this.status = status("head", List.of());
        Thread.ofPlatform().name("fake-daemon-accept").daemon().start(this::accept);
    }

    public Path socket() {
        return socket;
    }

    public DaemonClient client() {
        return new DaemonClient(socket);
    }

    /** A status report of {@code node} (launcher) with these members and no jobs. */
    public static ControlReply.StatusReport status(String node, List<ControlReply.MemberStatus> members) {
        return new ControlReply.StatusReport(ControlReply.VERSION, node, "LAUNCHER", true, false, node, 1, members, List.of(), List.of(), "", 0, List.of());
    }

    public static ControlReply.MemberStatus member(String name, String role, int slots) {
        return new ControlReply.MemberStatus(name, role, slots, 0, 0.0, name + ":7900", "");
    }

    public void status(ControlReply.StatusReport report) {
        this.status = report;
    }

    /** Answers a request itself when {@code reply} returns non-null. */
    public void override(Function<ControlRequest, ControlReply> reply) {
        this.override = reply;
    }

    /** Sends the transition {@code update} of its job to every subscriber, as the job's daemon would. */
    public void push(SchedulerUpdate update) {
        ControlReply.JobEvent event = new ControlReply.JobEvent(ControlReply.VERSION, update.job(), update, null);
        subscribers.forEach(q -> q.add(event));
    }

    public int subscriberCount() {
        return subscribers.size();
    }

    public List<ControlRequest> requests() {
        return List.copyOf(requests);
    }

    public <T extends ControlRequest> List<T> requests(Class<T> type) {
        List<T> found = new ArrayList<>();
        for (ControlRequest r : requests) {
            if (type.isInstance(r)) {
                found.add(type.cast(r));
            }
        }
        return found;
    }

    /** Waits for a request of {@code type} that matches; fails the test after {@code timeout}. */
    public <T extends ControlRequest> T await(Class<T> type, Predicate<T> matches, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            for (T r : requests(type)) {
                if (matches.test(r)) {
                    return r;
                }
            }
            Thread.sleep(10);
        }
        throw new AssertionError("no " + type.getSimpleName() + " request within " + timeout + "; got " + requests);
    }

    public void awaitSubscriber(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (subscribers.isEmpty()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("nobody subscribed within " + timeout);
            }
            Thread.sleep(10);
        }
    }

    private void accept() {
        while (!closed) {
            try {
                SocketChannel channel = server.accept();
                connections.add(channel);
                Thread.ofPlatform().name("fake-daemon-conn").daemon().start(() -> serve(channel));
            } catch (IOException e) {
                return;
            }
        }
    }

    private void serve(SocketChannel channel) {
        try (channel) {
            BufferedReader in = new BufferedReader(new InputStreamReader(Channels.newInputStream(channel), StandardCharsets.UTF_8));
            OutputStream out = Channels.newOutputStream(channel);
            String line = in.readLine();
            if (line == null) {
                return;
            }
            ControlRequest request = Wire.decode(line, ControlRequest.class);
            requests.add(request);
            if (request instanceof ControlRequest.Subscribe) {
                BlockingQueue<ControlReply.JobEvent> queue = new LinkedBlockingQueue<>();
                subscribers.add(queue);
                write(out, new ControlReply.Ok(ControlReply.VERSION, "subscribed"));
                try {
                    while (!closed) {
                        ControlReply.JobEvent event = queue.poll(50, TimeUnit.MILLISECONDS);
                        if (event != null) {
                            write(out, event);
                        }
                    }
                } finally {
                    subscribers.remove(queue);
                }
                return;
            }
            write(out, reply(request));
        } catch (IOException | InterruptedException | RuntimeException e) {
            // The client went away, or the test closed the daemon.
        }
    }

    private ControlReply reply(ControlRequest request) throws IOException {
        ControlReply answer = override.apply(request);
        if (answer != null) {
            return answer;
        }
        return switch (request) {
            case ControlRequest.Status s -> status;
            case ControlRequest.CheckpointNow c -> new ControlReply.Ok(ControlReply.VERSION, "checkpoint ordered");
            default -> new ControlReply.Ok(ControlReply.VERSION, "");
        };
    }

    /** A reply that refuses with {@code code}. */
    public static ControlReply failed(ErrorCode code, String message) {
        return new ControlReply.Failed(ControlReply.VERSION, code, message);
    }

    private static void write(OutputStream out, ControlReply reply) throws IOException {
        out.write((Wire.encode(reply) + "\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    @Override
    public void close() throws IOException {
        closed = true;
        server.close();
        for (SocketChannel c : connections) {
            c.close();
        }
        Files.deleteIfExists(socket);
    }
}
