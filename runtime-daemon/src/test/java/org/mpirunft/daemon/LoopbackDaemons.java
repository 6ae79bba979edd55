package org.mpirunft.daemon;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.mpirunft.daemon.cli.FtdCli;
import org.mpirunft.membership.loopback.ChildJvm;
import org.mpirunft.membership.loopback.FreePorts;
import org.mpirunft.membership.loopback.LoopbackGroup;

/**
 * Node daemons as real JVM processes on 127.0.0.1, each with its own config file, socket and
 * state under a test directory, sharing one secret. Open MPI's node daemon is replaced by a
 * script that daemonizes a long {@code sleep}, as {@code prted --daemonize} detaches itself,
 * so the tests see real job processes without MPI.
 */
public final class LoopbackDaemons implements AutoCloseable {
    public static final Duration START_BOUND = Duration.ofSeconds(60);
    /** The daemons' cluster secret. */
    public static final String SECRET = "loopback-test-secret-0123456789";

    private final Path directory;
    private final List<String> names = new ArrayList<>();
    private final List<ChildJvm<String>> processes = new ArrayList<>();
    private final List<Integer> groupPorts;
    private final List<Integer> peerPorts;

    private LoopbackDaemons(Path directory, int count) {
        this.directory = directory;
        this.groupPorts = FreePorts.allocate(count, LoopbackGroup.FD_SOCK_OFFSET);
        List<Integer> peers = new ArrayList<>();
        for (int port : FreePorts.allocate(count * 3, 0)) {
            if (!groupPorts.contains(port) && groupPorts.stream().noneMatch(g -> g + LoopbackGroup.FD_SOCK_OFFSET == port)
                    && peers.size() < count) {
                peers.add(port);
            }
        }
        this.peerPorts = peers;
    }

    /** Starts {@code count} daemons named d1..dN (compute nodes) and waits until they form one group. */
    public static LoopbackDaemons start(Path directory, int count) throws IOException {
        LoopbackDaemons daemons = new LoopbackDaemons(directory, count);
        try {
            daemons.writeFiles(count);
            for (int i = 0; i < count; i++) {
                daemons.processes.add(daemons.launch(i));
            }
            for (int i = 0; i < count; i++) {
                int index = i;
                waitUntil(START_BOUND, () -> {
                    try {
                        return daemons.client(index).status().members().size() == count;
                    } catch (DaemonException notYet) {
                        return false;
                    }
                }, "daemon " + daemons.names.get(i) + " in a group of " + count + "; log:\n" + daemons.log(i));
            }
            return daemons;
        } catch (RuntimeException | IOException e) {
            daemons.close();
            throw e;
        }
    }

    private void writeFiles(int count) throws IOException {
        Path secret = directory.resolve("secret");
        Files.write(secret, SECRET.getBytes(StandardCharsets.UTF_8));
        Files.setPosixFilePermissions(secret, PosixFilePermissions.fromString("rw-------"));
        Path prted = directory.resolve("bin/prted");
        Files.createDirectories(prted.getParent());
        Files.writeString(prted, """
                #!/bin/sh
                # Stands in for Open MPI's node daemon: detaches a long-running child and returns,
                # as prted --daemonize does.
                setsid sleep 600 < /dev/null > /dev/null 2>&1 &
                exit 0
                """);
        Files.setPosixFilePermissions(prted, PosixFilePermissions.fromString("rwxr-xr-x"));
        StringBuilder members = new StringBuilder();
        for (int i = 0; i < count; i++) {
            members.append(i == 0 ? "" : ", ").append("127.0.0.1:").append(groupPorts.get(i));
        }
        for (int i = 0; i < count; i++) {
            String name = "d" + (i + 1);
            names.add(name);
            writeConfig(name, groupPorts.get(i), peerPorts.get(i), members.toString(), secret, "");
        }
    }

    private Path writeConfig(String name, int groupPort, int peerPort, String members, Path secret, String groupSettings)
            throws IOException {
        Path node = Files.createDirectories(directory.resolve(name));
        Path config = node.resolve("ftd.yaml");
        Files.writeString(config, """
                version: 1
                node: {name: %s, role: compute, slots: 1}
                group:
                  cluster: loopback-%d
                  bind: 127.0.0.1
                  port: %d
                  peer-port: %d
                  members: [%s]
                  secret-file: %s
                  profile: fast
                %s
                control: {socket: %s}
                runtime: {prted: %s, rank-socket: %s, state: %s}
                """.formatted(name, groupPorts.getFirst(), groupPort, peerPort, members, secret,
                groupSettings.isEmpty() ? "" : "  " + groupSettings, node.resolve("ftd.sock"), directory.resolve("bin/prted"),
                node.resolve("ranks.sock"), node.resolve("state")));
        return config;
    }

    /**
     * Starts one more daemon, {@code name}, told of the group's members and of itself, with a
     * secret of its own (a root-only file) and {@code groupSettings} added to its {@code group}
     * section (one {@code key: value}, or ""); the test waits for it as it needs. It is closed
     * with the others.
     */
    public ChildJvm<String> startAnother(String name, byte[] secret, String groupSettings) throws IOException {
        int groupPort = FreePorts.allocate(1, LoopbackGroup.FD_SOCK_OFFSET).getFirst();
        int peerPort = FreePorts.allocate(4, 0).stream().filter(p -> p != groupPort && p != groupPort + LoopbackGroup.FD_SOCK_OFFSET
                && !groupPorts.contains(p) && !peerPorts.contains(p)).findFirst().orElseThrow();
        Path secretFile = Files.createDirectories(directory.resolve(name)).resolve("secret");
        Files.write(secretFile, secret);
        Files.setPosixFilePermissions(secretFile, PosixFilePermissions.fromString("rw-------"));
        StringBuilder members = new StringBuilder();
        for (int port : groupPorts) {
            members.append("127.0.0.1:").append(port).append(", ");
        }
        members.append("127.0.0.1:").append(groupPort);
        Path config = writeConfig(name, groupPort, peerPort, members.toString(), secretFile, groupSettings);
        ChildJvm<String> child = launch(name, config);
        processes.add(child);
        return child;
    }

    /** A daemon whose output, its log included, is kept whole: the tests look for what it says. */
    private ChildJvm<String> launch(int index) throws IOException {
        return launch(names.get(index), directory.resolve(names.get(index)).resolve("ftd.yaml"));
    }

    private static ChildJvm<String> launch(String name, Path config) throws IOException {
        return ChildJvm.start(new ChildJvm.Spec(name, FtdCli.class)
                .jvmArgs(List.of("-Xmx96m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "--enable-native-access=ALL-UNNAMED",
                        "--sun-misc-unsafe-memory-access=allow"))
                .args(List.of("run", "--config", config.toString()))
                .stderrToStdout());
    }

    public String name(int index) {
        return names.get(index);
    }

    public ChildJvm<String> process(int index) {
        return processes.get(index);
    }

    public Path socket(int index) {
        return directory.resolve(names.get(index)).resolve("ftd.sock");
    }

    public DaemonClient client(int index) {
        return new DaemonClient(socket(index));
    }

    /** Everything daemon {@code index} wrote so far, stdout and stderr. */
    public String log(int index) {
        return String.join("\n", processes.get(index).lines());
    }

    public int groupPort(int index) {
        return groupPorts.get(index);
    }

    public int peerPort(int index) {
        return peerPorts.get(index);
    }

    /** SIGKILLs every daemon and every job process they adopted. */
    @Override
    public void close() {
        processes.forEach(ChildJvm::close);
    }

    public static void waitUntil(Duration bound, BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + bound.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within " + bound + ": " + what);
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting for " + what);
            }
        }
    }
}
