package org.mpirunft.daemon.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpirunft.common.JsonLines;
import org.mpirunft.common.rank.RankMessage;

/** The rank channel's daemon side over a real Unix socket, with the process check and the scheduler stood in for. */
class RankServerTest {
    private static final int V = RankMessage.VERSION;
    private static final long RANK_PID = 4242;

    @TempDir
    Path dir;
    private RankServer server;
    private final BlockingQueue<RankMessage> reports = new LinkedBlockingQueue<>();
    private final BlockingQueue<RankMessage.Hello> ended = new LinkedBlockingQueue<>();

    @BeforeEach
    void start() throws IOException {
        server = new RankServer("node2", dir.resolve("ftd/ranks.sock"),
                (pid, user, job) -> pid == RANK_PID && job.equals("j1") ? Optional.empty()
                        : Optional.of("pid " + pid + " is no job process of node2"),
                new RankServer.Reports() {
                    @Override
                    public RankMessage.Welcome welcome(RankMessage.Hello hello) {
                        return new RankMessage.Welcome(V, hello.job(), "node2", true, 3, 3, 0, 0);
                    }

                    @Override
                    public void report(String job, RankMessage report) {
                        reports.add(report);
                    }

                    @Override
                    public void endedWithoutLeaving(RankMessage.Hello hello) {
                        ended.add(hello);
                    }
                });
    }

    @AfterEach
    void stop() {
        server.close();
    }

    @Test
    void theSocketIsOpenToEveryLocalUserSinceEachConnectionIsCheckedInstead() throws IOException {
        assertEquals("rw-rw-rw-", java.nio.file.attribute.PosixFilePermissions.toString(
                Files.getPosixFilePermissions(dir.resolve("ftd/ranks.sock"))));
    }

    @Test
    void aRankOfTheJobIsWelcomedAndGetsItsJobsOrdersInOrder() throws Exception {
        try (Client rank = connect(new RankMessage.Hello(V, "j1", 1, RANK_PID, false))) {
            RankMessage.Welcome welcome = assertInstanceOf(RankMessage.Welcome.class, rank.read());
            assertEquals(3, welcome.orderedEpoch());
            waitConnected("j1", 1);
            server.deliver("j1", new RankMessage.CheckpointOrder(V, "j1", 4));
            server.deliver("other", new RankMessage.CheckpointOrder(V, "other", 9));
            server.deliver("j1", new RankMessage.PauseOrder(V, "j1", "2@node3", 1, Map.of(2, "node3"), Map.of(2, "spare1")));
            assertEquals(new RankMessage.CheckpointOrder(V, "j1", 4), rank.read());
            assertEquals(new RankMessage.PauseOrder(V, "j1", "2@node3", 1, Map.of(2, "node3"), Map.of(2, "spare1")), rank.read(),
                    "another job's order never reaches it");
        }
    }

    /**
     * A warm spare on the channel hears only the calls that name it, the job's end and a stop;
     * a rank hears neither a call nor the job's end. Two spares of one node: each gets its own call.
     */
    @Test
    void aCallReachesOnlyTheSparesItNamesAndNoRank() throws Exception {
        try (Client rank = connect(new RankMessage.Hello(V, "j1", 1, RANK_PID, false));
             Client spare5 = connect(RankMessage.Hello.ofSpare("j1", RANK_PID, 5));
             Client spare6 = connect(RankMessage.Hello.ofSpare("j1", RANK_PID, 6))) {
            rank.read();
            spare5.read();
            spare6.read();
            waitConnected("j1", 3);
            RankMessage.SpareCall call5 = new RankMessage.SpareCall(V, "j1", "2@node3#1", 11, java.util.List.of(5), Map.of(5, "node2"), 0, 7);
            RankMessage.SpareCall call6 = new RankMessage.SpareCall(V, "j1", "3@node4#1", 12, java.util.List.of(6), Map.of(6, "node2"), 0, 8);
            RankMessage.PauseOrder pause = new RankMessage.PauseOrder(V, "j1", "2@node3", 1, Map.of(2, "node3"), Map.of(2, "node2"));
            server.deliver("j1", pause);
            server.deliver("j1", call5);
            server.deliver("j1", call6);
            server.deliver("j1", new RankMessage.JobEnding(V, "j1"));
            server.deliver("j1", new RankMessage.CheckpointOrder(V, "j1", 4));
            assertEquals(call5, spare5.read(), "spare 5 gets its call and no pause order");
            assertEquals(new RankMessage.JobEnding(V, "j1"), spare5.read(), "then the job's end, and no checkpoint order");
            assertEquals(call6, spare6.read(), "spare 6 gets its own call, not 5's");
            assertEquals(new RankMessage.JobEnding(V, "j1"), spare6.read());
            assertEquals(pause, rank.read(), "the rank gets the pause order");
            assertEquals(new RankMessage.CheckpointOrder(V, "j1", 4), rank.read(), "and neither call nor the job's end");
        }
    }

    /**
     * A channel that ends without the rank's leaving is told to the daemon, which decides whether
     * the rank died; one that ends after it, or a refused one, or one the server's own close
     * ends, is not.
     */
    @Test
    void aChannelThatEndsWithoutTheRanksLeavingIsToldAndOneAfterItIsNot() throws Exception {
        RankMessage.Hello first = new RankMessage.Hello(V, "j1", 1, RANK_PID, false);
        try (Client rank = connect(first)) {
            rank.read();
        }
        assertEquals(first, ended.poll(5, TimeUnit.SECONDS));
        RankMessage.Hello second = new RankMessage.Hello(V, "j1", 2, RANK_PID, false);
        try (Client rank = connect(second)) {
            rank.read();
            rank.write(new RankMessage.Leaving(V, "j1", 2, "its run completed"));
            rank.write(new RankMessage.EpochCommitted(V, "j1", 5, 4, 40, 1024, 0.5, 12.0));
            assertEquals(new RankMessage.EpochCommitted(V, "j1", 5, 4, 40, 1024, 0.5, 12.0), reports.poll(5, TimeUnit.SECONDS),
                    "the leaving itself is no report for the scheduler");
        }
        try (Client impostor = connect(new RankMessage.Hello(V, "j1", 0, 7, false))) {
            impostor.read();
        }
        try (Client rank = connect(new RankMessage.Hello(V, "j1", 3, RANK_PID, false))) {
            rank.read();
            waitConnected("j1", 1);
            server.close();
            assertEquals(null, rank.read());
        }
        assertEquals(null, ended.poll(500, TimeUnit.MILLISECONDS), "after a leaving, a refusal or the server's close: nothing");
    }

    @Test
    void aProcessThatIsNoRankOfTheJobIsRefusedWithOneLine() throws Exception {
        try (Client impostor = connect(new RankMessage.Hello(V, "j1", 0, 7, false))) {
            RankMessage.Refused refused = assertInstanceOf(RankMessage.Refused.class, impostor.read());
            assertEquals("pid 7 is no job process of node2", refused.reason());
            assertEquals(null, impostor.read(), "the daemon closes the connection");
        }
        assertEquals(0, server.connected("j1"));
    }

    @Test
    void aWrongVersionOrAFirstMessageThatIsNoHelloIsRefused() throws Exception {
        try (Client client = connect(new RankMessage.Hello(V + 1, "j1", 0, RANK_PID, false))) {
            assertTrue(assertInstanceOf(RankMessage.Refused.class, client.read()).reason().contains("version"));
        }
        try (Client client = connect(new RankMessage.Finished(V, "j1"))) {
            assertTrue(assertInstanceOf(RankMessage.Refused.class, client.read()).reason().contains("hello"));
        }
    }

    @Test
    void reportsReachTheSchedulerAndAReportAboutAnotherJobDoesNot() throws Exception {
        try (Client rank = connect(new RankMessage.Hello(V, "j1", 0, RANK_PID, false))) {
            rank.read();
            rank.write(new RankMessage.FailureSeen(V, "j1", 0, Map.of(2, "node3")));
            rank.write(new RankMessage.Finished(V, "other"));
            rank.write(new RankMessage.EpochCommitted(V, "j1", 5, 4, 40, 1024, 0.5, 12.0));
            assertEquals(new RankMessage.FailureSeen(V, "j1", 0, Map.of(2, "node3")), reports.poll(5, TimeUnit.SECONDS));
            assertEquals(new RankMessage.EpochCommitted(V, "j1", 5, 4, 40, 1024, 0.5, 12.0), reports.poll(5, TimeUnit.SECONDS));
            assertEquals(null, reports.poll(200, TimeUnit.MILLISECONDS), "the report about another job was dropped");
        }
    }

    @Test
    void aRankThatDoesNotReadHoldsUpNeitherTheCallerNorTheOthers() throws Exception {
        try (Client slow = connect(new RankMessage.Hello(V, "j1", 0, RANK_PID, false));
             Client fast = connect(new RankMessage.Hello(V, "j1", 1, RANK_PID, false))) {
            slow.read();
            fast.read();
            waitConnected("j1", 2);
            long start = System.nanoTime();
            for (int epoch = 1; epoch <= RankServer.QUEUE_BOUND + 10; epoch++) {
                server.deliver("j1", new RankMessage.CheckpointOrder(V, "j1", epoch));
                if (epoch <= 3) {
                    assertEquals(new RankMessage.CheckpointOrder(V, "j1", epoch), fast.read());
                }
            }
            assertTrue(System.nanoTime() - start < Duration.ofSeconds(5).toNanos(), "delivering never blocks");
        }
    }

    private void waitConnected(String job, int count) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (server.connected(job) < count) {
            assertTrue(System.nanoTime() < deadline, "ranks connected: " + server.connected(job));
            Thread.sleep(5);
        }
    }

    private Client connect(RankMessage first) throws IOException {
        Client client = new Client(SocketChannel.open(StandardProtocolFamily.UNIX));
        client.channel.connect(UnixDomainSocketAddress.of(dir.resolve("ftd/ranks.sock")));
        client.write(first);
        return client;
    }

    /** A rank's end of the connection. */
    private record Client(SocketChannel channel, BufferedReader in, OutputStream out) implements AutoCloseable {
        Client(SocketChannel channel) {
            this(channel, new BufferedReader(new InputStreamReader(Channels.newInputStream(channel), StandardCharsets.UTF_8)),
                    Channels.newOutputStream(channel));
        }

        void write(RankMessage message) throws IOException {
            out.write((JsonLines.encode(message) + "\n").getBytes(StandardCharsets.UTF_8));
            out.flush();
        }

        RankMessage read() throws IOException {
            String line = in.readLine();
            return line == null ? null : JsonLines.decode(line, RankMessage.class);
        }

        @Override
        public void close() throws IOException {
            channel.close();
        }
    }
}
