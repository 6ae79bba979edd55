package org.mpirunft.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpirunft.daemon.protocol.ControlReply;
import org.mpirunft.daemon.protocol.ControlRequest;
import org.mpirunft.daemon.protocol.ErrorCode;

/**
 * The control socket and the launch path of real daemon processes: who may talk to a daemon,
 * what it does with garbage, and what it agrees to start.
 */
class ControlSocketIT {
    @TempDir
    static Path directory;
    @AutoClose
    static LoopbackDaemons daemons;

    @BeforeAll
    static void startDaemons() throws IOException {
        // The daemon's files must be reachable by another user for the credential test.
        Files.setPosixFilePermissions(directory, PosixFilePermissions.fromString("rwxr-xr-x"));
        daemons = LoopbackDaemons.start(directory, 2);
    }

    @Test
    void malformedMessagesGetAnErrorReplyAndTheDaemonKeepsServing() throws Exception {
        List<String> replies = rawExchange(daemons.socket(0), List.of(
                "this is not json",
                "{\"type\":\"no-such-request\",\"version\":" + ControlRequest.VERSION + "}",
                "{\"type\":\"status\",\"version\":99}",
                "{\"type\":\"launch\",\"version\":" + ControlRequest.VERSION + ",\"node\":\"../etc\",\"job\":\"j\",\"command\":[\"prted\"]}",
                "{\"type\":\"checkpoint-now\",\"version\":" + ControlRequest.VERSION + ",\"job\":\"../j\"}",
                "{\"type\":\"job-finished\",\"version\":" + ControlRequest.VERSION + ",\"job\":\"../j\",\"exitCode\":0}",
                "{\"type\":\"restart-needed\",\"version\":" + ControlRequest.VERSION + ",\"job\":\"../j\",\"source\":\"exit\",\"reason\":\"r\"}",
                "{\"type\":\"job-relaunched\",\"version\":" + ControlRequest.VERSION + ",\"job\":\"../j\",\"attempt\":2,\"rankNodes\":[\"node1\"]}",
                "{\"type\":\"migrate\",\"version\":" + ControlRequest.VERSION + ",\"job\":\"../j\",\"node\":\"node1\",\"reason\":\"\"}",
                "{\"type\":\"status\",\"version\":" + ControlRequest.VERSION + "}"), null);
        assertEquals(10, replies.size(), "one reply per request on the same connection: " + replies);
        for (int i = 0; i < 9; i++) {
            assertTrue(replies.get(i).contains("\"type\":\"failed\"") && replies.get(i).contains("BAD_REQUEST"),
                    "request " + i + " must be refused as a bad request: " + replies.get(i));
        }
        assertTrue(replies.get(9).contains("\"type\":\"status\""), "the same connection still serves: " + replies.get(9));
        assertTrue(daemons.process(0).isAlive(), "the daemon must survive garbage");
        assertEquals(2, daemons.client(0).status().members().size(), "and still answer new connections");
    }

    /**
     * Every local user may connect, and the daemon knows each by the kernel's peer credentials,
     * not by what the client says: an ordinary user (nobody, a real process of another uid) gets
     * the node's status, but not what only operators may ask, where root does.
     */
    @Test
    void anotherUserIsAdmittedAndKnownByPeerCredentials() throws Exception {
        int v = ControlRequest.VERSION;
        List<String> replies = rawExchange(daemons.socket(1), List.of(
                "{\"type\":\"status\",\"version\":" + v + "}",
                "{\"type\":\"drain\",\"version\":" + v + ",\"node\":\"" + daemons.name(1) + "\",\"reason\":\"test\"}",
                "{\"type\":\"kill-job\",\"version\":" + v + ",\"job\":\"\",\"nodes\":[]}",
                "{\"type\":\"restart-daemons\",\"version\":" + v + ",\"nodes\":[\"" + daemons.name(1) + "\"]}"), "65534");
        assertEquals(4, replies.size(), "one reply per request: " + replies);
        assertTrue(replies.get(0).contains("\"type\":\"status\"") && replies.get(0).contains("\"members\""),
                "every user may see the node's status: " + replies.get(0));
        for (String refusal : replies.subList(1, 4)) {
            assertTrue(refusal.contains("REFUSED") && refusal.contains("only an operator may"), "an operator's request: " + refusal);
        }
        String drained = daemons.client(1).drain(daemons.name(1), "test");
        assertTrue(drained.contains("test"), "root is an operator: " + drained);
        daemons.client(1).resume(daemons.name(1));
    }

    @Test
    void launchesOnlyOpenMpisNodeDaemonAndTracksItsProcessesByJob() throws Exception {
        DaemonClient client = daemons.client(0);
        DaemonClient.RequestFailedException refused = assertThrows(DaemonClient.RequestFailedException.class,
                () -> client.launch(daemons.name(1), "job1", List.of("/bin/sh", "-c", "id")));
        assertEquals(ErrorCode.REFUSED, refused.code(), refused.getMessage());
        DaemonClient.RequestFailedException injected = assertThrows(DaemonClient.RequestFailedException.class,
                () -> client.launch(daemons.name(1), "job1", List.of("prted", "--x;", "touch", "/tmp/owned")));
        assertEquals(ErrorCode.REFUSED, injected.code(), injected.getMessage());

        // Relayed by d1 to d2 over the authenticated peer port, with PRRTE's quoting.
        ControlReply.Launched launched = client.launch(daemons.name(1), "job1", List.of("prted", "--daemonize",
                "--prtemca", "\"prte_hnp_uri\"", "\"x@0.0;tcp://127.0.0.1:1\""));
        assertEquals(daemons.name(1), launched.node());
        DaemonClient second = daemons.client(1);
        LoopbackDaemons.waitUntil(Duration.ofSeconds(10),
                () -> second.status().processes().stream().anyMatch(p -> p.command().equals("sleep") && p.job().equals("job1")),
                "the daemonized job process is tracked on d2 with its job: " + second.status().processes());
        long pid = second.status().processes().stream().filter(p -> p.command().equals("sleep")).findFirst().orElseThrow().pid();

        String killed = client.killJob("job1", List.of(daemons.name(1)));
        assertTrue(killed.contains("killed"), killed);
        LoopbackDaemons.waitUntil(Duration.ofSeconds(10), () -> !isRunning(pid), "job process " + pid + " killed");
        assertEquals(List.of(), second.status().processes(), "no job process left on d2");
    }

    @Test
    void peerRequestsWithoutTheClusterSecretAreRefused() throws Exception {
        ControlReply reply = org.mpirunft.daemon.internal.PeerProbe.startWithSecret("wrong-secret-but-long-enough-000".getBytes(
                StandardCharsets.UTF_8), daemons.peerPort(1));
        ControlReply.Failed failed = assertInstanceOf(ControlReply.Failed.class, reply);
        assertEquals(ErrorCode.REFUSED, failed.code(), failed.message());
        assertEquals(List.of(), daemons.client(1).status().processes(), "nothing may have been started");
    }

    private static boolean isRunning(long pid) {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)
                && !readState(pid).equals("Z");
    }

    private static String readState(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            return stat.substring(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
        } catch (IOException e) {
            return "-";
        }
    }

    /**
     * Sends lines on one connection, as the test's user or as {@code user}, and returns the
     * reply lines. The client is a single-file Java program, so another user can run it with
     * nothing but the JDK.
     */
    private static List<String> rawExchange(Path socket, List<String> lines, String user) throws Exception {
        Path source = directory.resolve("RawClient.java");
        if (!Files.exists(source)) {
            Files.writeString(source, """
                    import java.io.*;
                    import java.net.*;
                    import java.nio.channels.*;
                    import java.nio.charset.StandardCharsets;

                    public class RawClient {
                        public static void main(String[] args) throws Exception {
                            SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX);
                            try {
                                channel.connect(UnixDomainSocketAddress.of(args[0]));
                            } catch (IOException e) {
                                System.out.println("CONNECT-FAILED " + e.getMessage());
                                return;
                            }
                            Writer out = new OutputStreamWriter(Channels.newOutputStream(channel), StandardCharsets.UTF_8);
                            BufferedReader in = new BufferedReader(new InputStreamReader(Channels.newInputStream(channel), StandardCharsets.UTF_8));
                            for (int i = 1; i < args.length; i++) {
                                out.write(args[i] + "\\n");
                                out.flush();
                                String reply = in.readLine();
                                if (reply == null) {
                                    return;
                                }
                                System.out.println(reply);
                            }
                        }
                    }
                    """);
            Files.setPosixFilePermissions(source, PosixFilePermissions.fromString("rw-r--r--"));
        }
        List<String> command = new java.util.ArrayList<>();
        if (user != null) {
            command.addAll(List.of("setpriv", "--reuid=" + user, "--regid=" + user, "--clear-groups"));
        }
        command.addAll(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xshare:auto",
                "-Duser.home=/tmp", source.toString(), socket.toString()));
        command.addAll(lines);
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "client finished");
        return output.lines().toList();
    }

    private static String asNobody(Path socket, String request) throws Exception {
        return String.join("\n", rawExchange(socket, List.of(request), "65534"));
    }
}
