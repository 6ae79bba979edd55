package org.mpirunft.daemon;

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
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.mpirunft.common.Durations;
import org.mpirunft.daemon.protocol.ControlReply;
import org.mpirunft.daemon.protocol.ControlRequest;
import org.mpirunft.daemon.protocol.ErrorCode;
import org.mpirunft.daemon.protocol.Wire;

/**
 * A local client of a node daemon, over its control socket. Each call opens a connection, sends
 * one request and reads one reply; {@link #subscribe} keeps its connection for the stream.
 * A {@link ControlReply.Failed} reply becomes a {@link RequestFailedException}.
 */
public final class DaemonClient {
    /**
     * How long a call waits for the daemon's reply. Longer than any of the daemon's own bounds on
     * a request (the longest, a launch on another node with transparent mode's 60 s timeout: a
     * connection and two reads of at most 70 s each), so only a daemon that is stopped (SIGSTOP)
     * or hung runs it out.
     */
    public static final Duration REPLY_BOUND = Duration.ofMinutes(5);

    private final Path socket;
    private final Duration replyBound;

    public DaemonClient(Path socket) {
        this(socket, REPLY_BOUND);
    }

    /** As above, waiting at most {@code replyBound} for each reply. */
    public DaemonClient(Path socket, Duration replyBound) {
        this.socket = socket;
        this.replyBound = replyBound;
    }

    public Path socket() {
        return socket;
    }

    public ControlReply.StatusReport status() {
        return expect(call(new ControlRequest.Status(ControlRequest.VERSION)), ControlReply.StatusReport.class);
    }

    public ControlReply.Launched launch(String node, String job, List<String> command) {
        return launch(node, job, command, "");
    }

    /** As above, the node daemon a step of Slurm allocation {@code slurmJob} when it is not empty. */
    public ControlReply.Launched launch(String node, String job, List<String> command, String slurmJob) {
        return expect(call(new ControlRequest.Launch(ControlRequest.VERSION, node, job, command, slurmJob)), ControlReply.Launched.class);
    }

    /**
     * Registers a job launched from this node: its ranks' nodes, its allocation's spares, its
     * recovery mode ({@code pause}, {@code restart}, {@code full-restart}), its checkpoint schedule
     * ("" for the cluster's) and the restarts allowed.
     */
    public void registerJob(String job, List<String> rankNodes, List<String> spares, String mode, String schedule, int maxRestarts) {
        ok(new ControlRequest.RegisterJob(ControlRequest.VERSION, job, rankNodes, spares, mode, schedule, maxRestarts));
    }

    /** As above, with the job's shared checkpoint directory, where a transparent job's images go. */
    public void registerJob(String job, List<String> rankNodes, List<String> spares, String mode, String schedule, int maxRestarts,
                            String checkpointDir) {
        ok(new ControlRequest.RegisterJob(ControlRequest.VERSION, job, rankNodes, spares, mode, schedule, maxRestarts, checkpointDir));
    }

    /** Passes on a failure Open MPI reported; returns once the scheduler dealt with it. */
    public void failureReported(String job, String source, Map<Integer, String> lostRanks, List<String> lostNodes, String detail) {
        ok(new ControlRequest.FailureReported(ControlRequest.VERSION, job, source, lostRanks, lostNodes, detail));
    }

    /** mpirun ended before the program finished; returns once the scheduler decided. */
    public void restartNeeded(String job, String source, String reason) {
        ok(new ControlRequest.RestartNeeded(ControlRequest.VERSION, job, source, reason));
    }

    public void jobRelaunched(String job, int attempt, List<String> rankNodes) {
        ok(new ControlRequest.JobRelaunched(ControlRequest.VERSION, job, attempt, rankNodes));
    }

    public void jobFinished(String job, int exitCode) {
        ok(new ControlRequest.JobFinished(ControlRequest.VERSION, job, exitCode));
    }

    /** Tells the daemon that {@code job}'s mpirun runs here as {@code pid}: the ranks it starts itself are the job's. */
    public void launcherStarted(String job, long pid) {
        ok(new ControlRequest.LauncherStarted(ControlRequest.VERSION, job, pid));
    }

    public void checkpointNow(String job) {
        ok(new ControlRequest.CheckpointNow(ControlRequest.VERSION, job));
    }

    /** Has the scheduler move {@code job}'s ranks off {@code node}; returns the daemon's answer, naming the migration. */
    public String migrate(String job, String node, String reason) {
        return ok(new ControlRequest.Migrate(ControlRequest.VERSION, job, node, reason));
    }

    /** Drains {@code node} (through its own daemon); returns its answer. */
    public String drain(String node, String reason) {
        return ok(new ControlRequest.Drain(ControlRequest.VERSION, node, reason));
    }

    /** Puts a drained {@code node} back in service; returns its answer. */
    public String resume(String node) {
        return ok(new ControlRequest.Resume(ControlRequest.VERSION, node));
    }

    public String killJob(String job, List<String> nodes) {
        return ok(new ControlRequest.KillJob(ControlRequest.VERSION, job, nodes));
    }

    /** Has the node daemons of {@code nodes} restart; returns once each has agreed to. */
    public String restartDaemons(List<String> nodes) {
        return ok(new ControlRequest.RestartDaemons(ControlRequest.VERSION, nodes));
    }

    /**
     * Streams the job's transitions to {@code listener} on the calling thread, the job as it is
     * first, until the daemon closes the connection.
     */
    public void subscribe(String job, Consumer<ControlReply.JobEvent> listener) {
        subscribe(job, listener, exited -> {
        });
    }

    /** As above; the exits of the job's restored mpiruns (transparent mode) go to {@code exits}. */
    public void subscribe(String job, Consumer<ControlReply.JobEvent> listener, Consumer<ControlReply.LauncherExited> exits) {
        try (SocketChannel channel = open()) {
            send(channel, new ControlRequest.Subscribe(ControlRequest.VERSION, job));
            BufferedReader in = new BufferedReader(new InputStreamReader(Channels.newInputStream(channel), StandardCharsets.UTF_8));
            String line;
            while ((line = in.readLine()) != null) {
                ControlReply reply = Wire.decode(line, ControlReply.class);
                if (reply instanceof ControlReply.JobEvent event) {
                    listener.accept(event);
                } else if (reply instanceof ControlReply.LauncherExited exited) {
                    exits.accept(exited);
                } else if (reply instanceof ControlReply.Failed failed) {
                    throw new RequestFailedException(failed.code(), failed.message());
                }
            }
        } catch (IOException e) {
            throw new DaemonUnreachableException(socket, e);
        }
    }

    /** Sends any request and returns the reply as it is, failures included. */
    public ControlReply call(ControlRequest request) {
        try (SocketChannel channel = open()) {
            send(channel, request);
            BufferedReader in = new BufferedReader(new InputStreamReader(Channels.newInputStream(channel), StandardCharsets.UTF_8));
            String line = readBounded(channel, in);
            if (line == null) {
                throw new DaemonUnreachableException(socket, new IOException("the daemon closed the connection without a reply"));
            }
            return Wire.decode(line, ControlReply.class);
        } catch (IOException e) {
            throw new DaemonUnreachableException(socket, e);
        }
    }

    /**
     * The reply's line, or a {@link DaemonUnreachableException} once {@link #replyBound} has
     * passed: a watcher closes the connection, which ends the blocked read.
     */
    private String readBounded(SocketChannel channel, BufferedReader in) throws IOException {
        AtomicBoolean expired = new AtomicBoolean();
        Thread watcher = Thread.ofVirtual().name("ftd-client-reply-bound").start(() -> {
            try {
                Thread.sleep(replyBound);
                expired.set(true);
                channel.close();
            } catch (InterruptedException | IOException e) {
                // The reply came first, or the channel is closed anyway.
            }
        });
        try {
            return in.readLine();
        } catch (IOException e) {
            if (expired.get()) {
                throw new DaemonUnreachableException(socket, new IOException("no reply within " + Durations.format(replyBound)
                        + "; the daemon is stopped or hung"));
            }
            throw e;
        } finally {
            watcher.interrupt();
        }
    }

    private String ok(ControlRequest request) {
        return expect(call(request), ControlReply.Ok.class).detail();
    }

    private static <T extends ControlReply> T expect(ControlReply reply, Class<T> type) {
        if (reply instanceof ControlReply.Failed failed) {
            throw new RequestFailedException(failed.code(), failed.message());
        }
        if (!type.isInstance(reply)) {
            throw new DaemonException("the daemon answered " + reply.getClass().getSimpleName() + " where "
                    + type.getSimpleName() + " was expected");
        }
        return type.cast(reply);
    }

    private SocketChannel open() throws IOException {
        SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX);
        try {
            channel.connect(UnixDomainSocketAddress.of(socket));
            return channel;
        } catch (IOException e) {
            channel.close();
            throw e;
        }
    }

    private static void send(SocketChannel channel, ControlRequest request) throws IOException {
        OutputStream out = Channels.newOutputStream(channel);
        out.write((Wire.encode(request) + "\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    /** The daemon refused or could not do what was asked. */
    public static final class RequestFailedException extends DaemonException {
        private static final long serialVersionUID = 1L;
        private final ErrorCode code;

        public RequestFailedException(ErrorCode code, String message) {
            super(message);
            this.code = code;
        }

        public ErrorCode code() {
            return code;
        }
    }

    /** No daemon answers on the socket. */
    public static final class DaemonUnreachableException extends DaemonException {
        private static final long serialVersionUID = 1L;

        public DaemonUnreachableException(Path socket, IOException cause) {
            super("no node daemon answers on " + socket + ": " + cause.getMessage() + " (is ftd running?)", cause);
        }
    }
}
