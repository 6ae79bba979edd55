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
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.logging.Logger;
import jdk.net.ExtendedSocketOptions;
import jdk.net.UnixDomainPrincipal;
import org.mpirunft.common.JsonLines;
import org.mpirunft.common.Names;
import org.mpirunft.common.rank.RankMessage;
import org.mpirunft.daemon.DaemonException;
import org.mpirunft.daemon.protocol.ProtocolException;

/**
 * The rank control channel's daemon side: a Unix socket each rank of this node connects to at
 * {@code FtRank.init}. The daemon pushes the job's orders down it as the scheduler's transitions
 * arrive ({@link #deliver}), and hands the ranks' reports to {@link Reports}; no order or report
 * travels through a file or the launcher.
 *
 * <p><b>Who may connect.</b> Ranks may run as other users than the daemon, so the socket is open
 * to every local user (0666, in a 0755 directory) and each connection is authenticated instead:
 * its {@code hello} names the rank's pid and job, and the daemon accepts only if that pid is a
 * job process of that job on this node (a descendant of this daemon tagged with the job, see
 * {@link NodeAgent}) owned by the connection's peer user ({@code SO_PEERCRED}). Java gives the
 * peer's user but not its pid; the pid claim is then checked against what only the daemon knows.
 * A process of another user cannot pass as the rank; a process of the same user that is no
 * job process of this job on this node cannot either.
 *
 * <p><b>Threads.</b> One accepting thread; one virtual thread per connection reading it and one
 * draining its outbound queue, so a rank that does not read never holds up the caller of
 * {@link #deliver} (the membership thread); reports go to {@link Reports} on the reading thread,
 * which may block on the scheduler without holding up other ranks.
 */
public final class RankServer implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(RankServer.class.getName());
    /** Orders queued for one rank before it counts as not reading and is dropped. */
    static final int QUEUE_BOUND = 1024;

    /** What the daemon does with a rank's report; called on that rank's reading thread. */
    public interface Reports {
        /** The welcome for the rank that said {@code hello}: whether the scheduler knows its job, and its checkpoint orders so far. */
        RankMessage.Welcome welcome(RankMessage.Hello hello);

        void report(String job, RankMessage report);

        /**
         * The channel of the admitted rank that said {@code hello} ended without its
         * {@link RankMessage.Leaving}: it broke, or the rank died. Not called when the server
         * closes. Called on that rank's reading thread, which may wait.
         */
        void endedWithoutLeaving(RankMessage.Hello hello);
    }

    /** Whether the process {@code pid} of user {@code user} is a process of {@code job} on this node; empty if so, else why not. */
    @FunctionalInterface
    public interface ProcessCheck {
        Optional<String> refusal(long pid, String user, String job);
    }

    private final String node;
    private final Path socket;
    private final ProcessCheck check;
    private final Reports reports;
    private final ServerSocketChannel server;
    private final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
    private final Thread acceptor;
    /** Live ranks by job. */
    private final Map<String, Set<Rank>> ranks = new ConcurrentHashMap<>();
    /** The daemon stops: the channels it ends say nothing of the ranks. */
    private volatile boolean closing;

    public RankServer(String node, Path socket, ProcessCheck check, Reports reports) throws IOException {
        this.node = node;
        this.socket = socket;
        this.check = check;
        this.reports = reports;
        Path directory = socket.toAbsolutePath().getParent();
        Files.createDirectories(directory);
        Files.setPosixFilePermissions(directory, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.deleteIfExists(socket);
        this.server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        server.bind(UnixDomainSocketAddress.of(socket));
        Files.setPosixFilePermissions(socket, PosixFilePermissions.fromString("rw-rw-rw-"));
        this.acceptor = SocketAcceptor.start("ftd-rank-accept", node + ": rank channel", server, threads, this::serve);
    }

    /**
     * Queues {@code order} for every connected rank of {@code job} on this node that it is for,
     * in call order. An idle warm spare ({@link RankMessage.Hello#fromSpare}) gets only a
     * {@link RankMessage.SpareCall} that names it, {@link RankMessage.JobEnding} and
     * {@link RankMessage.StopOrder}; a rank gets neither a call nor the job's end. A spare that
     * read a pause order would act as a rank of a world it is not in, and a call given to the
     * wrong spare would make two processes answer for one rank.
     */
    public void deliver(String job, RankMessage order) {
        for (Rank rank : ranks.getOrDefault(job, Set.of())) {
            if (isFor(rank.hello, order)) {
                rank.send(order);
            }
        }
    }

    static boolean isFor(RankMessage.Hello hello, RankMessage order) {
        if (!hello.fromSpare()) {
            return !(order instanceof RankMessage.SpareCall) && !(order instanceof RankMessage.JobEnding);
        }
        return switch (order) {
            case RankMessage.SpareCall call -> call.calls(hello.spareOf());
            case RankMessage.JobEnding ending -> true;
            case RankMessage.StopOrder stop -> true;
            default -> false;
        };
    }

    /** The ranks of {@code job} connected now. */
    public int connected(String job) {
        return ranks.getOrDefault(job, Set.of()).size();
    }

    private void serve(SocketChannel channel) {
        Rank rank = null;
        RankMessage.Hello admitted = null;
        try (channel) {
            LineChannel lines = new LineChannel(new BufferedInputStream(Channels.newInputStream(channel)),
                    Channels.newOutputStream(channel));
            String first = lines.readLine();
            if (first == null) {
                return;
            }
            RankMessage.Hello hello;
            try {
                RankMessage message = JsonLines.decode(first, RankMessage.class);
                if (!(message instanceof RankMessage.Hello h)) {
                    refuse(lines, "the first message must be hello, got " + message.getClass().getSimpleName());
                    return;
                }
                hello = h;
            } catch (JsonLines.MalformedMessageException e) {
                refuse(lines, e.getMessage());
                return;
            }
            if (hello.version() != RankMessage.VERSION) {
                refuse(lines, "rank channel version " + hello.version() + " is not supported (this daemon speaks "
                        + RankMessage.VERSION + ")");
                return;
            }
            if (!Names.isValid(hello.job())) {
                refuse(lines, "'" + hello.job() + "' is not a job id");
                return;
            }
            UnixDomainPrincipal peer = channel.getOption(ExtendedSocketOptions.SO_PEERCRED);
            Optional<String> refusal = check.refusal(hello.pid(), peer.user().getName(), hello.job());
            if (refusal.isPresent()) {
                LOG.warning(node + ": refused rank " + hello.rank() + " of " + hello.job() + ": " + refusal.get());
                refuse(lines, refusal.get());
                return;
            }
            rank = new Rank(hello, channel, lines);
            admitted = hello;
            // Welcome first, then the orders: registered before the welcome is read so no order is lost in between.
            rank.send(reports.welcome(hello));
            ranks.computeIfAbsent(hello.job(), j -> ConcurrentHashMap.newKeySet()).add(rank);
            rank.outbound.start(threads);
            LOG.fine(() -> node + ": rank " + hello.rank() + " of " + hello.job() + " connected (pid " + hello.pid() + ")");
            String line;
            while ((line = lines.readLine()) != null) {
                if (!line.isBlank()) {
                    onReport(rank, line);
                }
            }
        } catch (ProtocolException e) {
            LOG.warning(node + ": a rank sent an oversized message: " + e.getMessage());
        } catch (IOException e) {
            LOG.fine(() -> node + ": rank connection ended: " + e.getMessage());
        } finally {
            if (rank != null) {
                rank.close();
            }
        }
        if (admitted != null && !rank.leaving && !closing) {
            try {
                reports.endedWithoutLeaving(admitted);
            } catch (RuntimeException e) {
                LOG.warning(node + ": the end of rank " + admitted.rank() + " of " + admitted.job() + "'s channel was not taken: "
                        + e.getMessage());
            }
        }
    }

    private void onReport(Rank rank, String line) {
        RankMessage report;
        try {
            report = JsonLines.decode(line, RankMessage.class);
        } catch (JsonLines.MalformedMessageException e) {
            LOG.warning(node + ": rank " + rank.rank + " of " + rank.job + " sent a bad report: " + e.getMessage());
            return;
        }
        String job = switch (report) {
            case RankMessage.EpochCommitted r -> r.job();
            case RankMessage.EpochAbandoned r -> r.job();
            case RankMessage.FailureSeen r -> r.job();
            case RankMessage.RecoveryDone r -> r.job();
            case RankMessage.RecoveryFailed r -> r.job();
            case RankMessage.Finished r -> r.job();
            case RankMessage.FlushWanted r -> r.job();
            case RankMessage.FlushDone r -> r.job();
            case RankMessage.MigrationDone r -> r.job();
            case RankMessage.MigrationFailed r -> r.job();
            case RankMessage.SpareCall r -> r.job();
            default -> null;
        };
        if (report instanceof RankMessage.Leaving leaving && leaving.job().equals(rank.job)) {
            rank.leaving = true;
            LOG.fine(() -> node + ": rank " + rank.rank + " of " + rank.job + " leaves: " + leaving.reason());
            return;
        }
        if (job == null || !job.equals(rank.job)) {
            LOG.warning(node + ": rank " + rank.rank + " of " + rank.job + " sent " + report.getClass().getSimpleName()
                    + (job == null ? ", which is no report" : " about another job, " + job) + "; ignored");
            return;
        }
        try {
            reports.report(job, report);
        } catch (RuntimeException e) {
            LOG.warning(node + ": " + report.getClass().getSimpleName() + " of " + job + " from rank " + rank.rank
                    + " was not taken: " + e.getMessage());
        }
    }

    private static void refuse(LineChannel lines, String reason) throws IOException {
        lines.write(new RankMessage.Refused(RankMessage.VERSION, reason));
    }

    @Override
    public void close() {
        closing = true;
        SocketAcceptor.close(server, socket, "rank");
        ranks.values().forEach(set -> set.forEach(Rank::close));
        threads.shutdownNow();
        acceptor.interrupt();
    }

    /** One connected rank and its outbound queue. */
    private final class Rank {
        final RankMessage.Hello hello;
        final String job;
        /** Its rank, or for an idle warm spare its world rank (logs only). */
        final int rank;
        final SocketChannel channel;
        final OutboundQueue<RankMessage> outbound;
        /** The rank said it ends on purpose ({@link RankMessage.Leaving}). */
        volatile boolean leaving;

        Rank(RankMessage.Hello hello, SocketChannel channel, LineChannel lines) {
            this.hello = hello;
            this.job = hello.job();
            this.rank = hello.fromSpare() ? hello.spareOf() : hello.rank();
            this.channel = channel;
            this.outbound = new OutboundQueue<>(QUEUE_BOUND, lines::write, this::forget);
        }

        void send(RankMessage message) {
            if (!outbound.ended() && !outbound.offer(message)) {
                LOG.warning(node + ": rank " + rank + " of " + job + " does not read its orders (" + QUEUE_BOUND
                        + " queued); dropping its connection");
            }
        }

        void close() {
            outbound.end();
        }

        /** The queue ended: the rank gets no more orders, and closing the channel ends its reader. */
        private void forget() {
            Set<Rank> set = ranks.get(job);
            if (set != null) {
                set.remove(this);
                if (set.isEmpty()) {
                    ranks.remove(job, set);
                }
            }
            try {
                channel.close();
            } catch (IOException e) {
                LOG.fine(() -> node + ": closing rank " + rank + "'s connection: " + e.getMessage());
            }
        }
    }
}
