package org.mpirunft.testkit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A simulated cluster for tests, driven through {@code scripts/cluster}: compute nodes
 * {@code node1..N}, spares {@code spare1..K} and a {@code head} node where mpirun runs, each a
 * network and UTS namespace on the node image. Every instance has its own cluster name, and
 * {@link #close()} tears it down whatever state the test left it in.
 */
public final class SimulatedCluster implements AutoCloseable {
    /** Path inside every node of the cluster's launch agent, for {@code plm_ssh_agent}. */
    public static final String LAUNCH_AGENT = "/ftc/cluster agent";
    /** Path inside every node of the node daemons' launch agent, when the cluster runs daemons. */
    public static final String FTD_AGENT = "/ftc/ftd/bin/ftd agent";

    private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(60);
    private static final AtomicInteger COUNTER = new AtomicInteger();

    private final Path script;
    private final String name;
    private final List<Process> started = new ArrayList<>();

    /** The compute nodes and the spares, in that order (not the head node). */
    private final List<String> nodes;

    private SimulatedCluster(Path script, String name, int compute, int spares) {
        this.script = script;
        this.name = name;
        List<String> all = new ArrayList<>();
        for (int i = 1; i <= compute; i++) {
            all.add("node" + i);
        }
        for (int i = 1; i <= spares; i++) {
            all.add("spare" + i);
        }
        this.nodes = List.copyOf(all);
    }

    /**
     * Brings up {@code compute} compute nodes and {@code spares} spares. The repository and the
     * local Maven repository are visible inside the nodes at their host paths, so a class path
     * built on the host works unchanged there.
     */
    public static SimulatedCluster up(int compute, int spares) {
        return up(compute, spares, List.of());
    }

    /**
     * As {@link #up(int, int)}, with one node daemon (ftd) on every node, the head included, from
     * the distribution directory {@code daemons} (bin/ftd and lib/); returns once they form one
     * group. Open MPI's launch agent is then {@link #FTD_AGENT}.
     */
    public static SimulatedCluster upWithDaemons(int compute, int spares, Path daemons) {
        return up(compute, spares, List.of("--daemons", daemons.toString()));
    }

    /** As {@link #upWithDaemons}, with at most {@code flushWriters} nodes of a job copying to shared storage at once. */
    public static SimulatedCluster upWithDaemons(int compute, int spares, Path daemons, int flushWriters) {
        return up(compute, spares, List.of("--daemons", daemons.toString(), "--flush-writers", Integer.toString(flushWriters)));
    }

    /** As {@link #upWithDaemons}, the scheduler's {@code policies.when-no-spare} being {@code action}. */
    public static SimulatedCluster upWithNoSpareAction(int compute, int spares, Path daemons, String action) {
        return up(compute, spares, List.of("--daemons", daemons.toString(), "--when-no-spare", action));
    }

    /**
     * As {@link #upWithDaemons}, each daemon with a health check that fails while
     * {@code healthDir/NODE.degraded} exists ({@code healthDir} must be under a shared directory:
     * the repository is).
     */
    public static SimulatedCluster upWithHealthChecks(int compute, int spares, Path daemons, Path healthDir) {
        return up(compute, spares, List.of("--daemons", daemons.toString(), "--health-dir", healthDir.toString()));
    }

    private static SimulatedCluster up(int compute, int spares, List<String> extra) {
        Path repo = repoRoot();
        // Short and unique per JVM: it becomes part of namespace and interface names. The pid's part
        // has a fixed width, or two test JVMs side by side could make one name ("t" "c" "13" and
        // "t" "c1" "3").
        String pid = Long.toString(ProcessHandle.current().pid() % 46656, 36);
        String name = "t" + "0".repeat(3 - pid.length()) + pid + COUNTER.incrementAndGet();
        SimulatedCluster cluster = new SimulatedCluster(repo.resolve("scripts/cluster"), name, compute, spares);
        Path m2 = Paths.get(System.getProperty("user.home"), ".m2", "repository");
        List<String> args = new ArrayList<>(List.of(cluster.script.toString(), "up", Integer.toString(compute),
                "--spares", Integer.toString(spares), "--share", repo.toString(), "--share", m2.toString()));
        args.addAll(extra);
        try {
            cluster.run(args);
        } catch (RuntimeException e) {
            cluster.run("down");
            throw e;
        }
        return cluster;
    }

    /**
     * A cluster named {@code name} that {@code scripts/cluster up} already brought up (a command
     * such as {@code scripts/chaos} owns it and takes it down): {@link #close()} must then not be
     * called by the caller, whose cluster it is not.
     */
    public static SimulatedCluster attach(String name, int compute, int spares) {
        SimulatedCluster cluster = new SimulatedCluster(repoRoot().resolve("scripts/cluster"), name, compute, spares);
        cluster.run("status");
        return cluster;
    }

    /** The repository root: from the build's system property, else found upward from here. */
    public static Path repoRoot() {
        String fromBuild = System.getProperty("mpirunft.repo");
        if (fromBuild != null && Files.isExecutable(Paths.get(fromBuild, "scripts", "cluster"))) {
            return Paths.get(fromBuild).toAbsolutePath();
        }
        for (Path dir = Paths.get("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isExecutable(dir.resolve("scripts/cluster"))) {
                return dir;
            }
        }
        throw new IllegalStateException("cannot find scripts/cluster above " + Paths.get("").toAbsolutePath());
    }

    public String name() {
        return name;
    }

    /** The compute nodes ({@code node1..}) and then the spares ({@code spare1..}); the head node is not one of them. */
    public List<String> nodes() {
        return nodes;
    }

    /** The cluster's state on the host, as {@code scripts/cluster} keeps it. */
    public Path stateDirectory() {
        String cache = System.getenv().getOrDefault("MPIRUN_FT_CACHE", "/var/cache/mpirun-ft");
        return Paths.get(cache, "clusters", name);
    }

    /** What {@code cluster exec NODE -- command} prints, merged with its errors; fails on a non-zero exit. */
    public String exec(String node, String... command) {
        List<String> args = new ArrayList<>(List.of(script.toString(), "exec", node, "--"));
        args.addAll(List.of(command));
        return run(args);
    }

    /**
     * Adds an ordinary user to every node (the nodes share the node image's users); {@link #close}
     * removes it.
     */
    public void addUser(String user) {
        run(List.of(script.toString(), "useradd", user));
    }

    /** As {@link #exec}, as {@code user}: the user's uid, gid and groups, no capability. */
    public String execAs(String user, String node, String... command) {
        List<String> args = new ArrayList<>(List.of(script.toString(), "exec", node, "-u", user, "--"));
        args.addAll(List.of(command));
        return run(args);
    }

    /** As {@link #start}, as {@code user}. */
    public Process startAs(String user, String node, List<String> command) {
        List<String> args = new ArrayList<>(List.of("exec", node, "-u", user, "--"));
        args.addAll(command);
        return start(args);
    }

    /** A node's local storage directory, seen from the host. */
    public Path localStorage(String node) {
        return stateDirectory().resolve("nodes").resolve(node).resolve("local");
    }

    /** Starts {@code command} on {@code node}; stdout and stderr are merged. */
    public Process start(String node, List<String> command) {
        List<String> args = new ArrayList<>(List.of("exec", node, "--"));
        args.addAll(command);
        return start(args);
    }

    /** Starts {@code scripts/cluster} with {@code scriptArgs}; stdout and stderr are merged. */
    private Process start(List<String> scriptArgs) {
        List<String> args = new ArrayList<>(List.of(script.toString()));
        args.addAll(scriptArgs);
        try {
            Process process = builder(args).redirectErrorStream(true).start();
            started.add(process);
            return process;
        } catch (IOException e) {
            throw new IllegalStateException("cannot start cluster " + String.join(" ", scriptArgs), e);
        }
    }

    /**
     * SIGKILLs everything on the node, Open MPI's daemon included, and wipes its local storage.
     * Returns when the first signal went (the script says), or, if nothing ran there, when the
     * script was started.
     */
    public java.time.Instant kill(String node) {
        java.time.Instant started = java.time.Instant.now();
        return ClusterKill.signalledAt(run("kill", node)).orElse(started);
    }

    /** Brings a killed node back as a repaired machine (empty local storage, a new daemon); returns once its daemon is up. */
    public void revive(String node) {
        run("revive", node);
    }

    public void hang(String node) {
        run("hang", node);
    }

    /** SIGKILLs the node's daemon only and starts a new one, as systemd would; returns once it is up. */
    public void crashDaemon(String node) {
        run("crash-daemon", node);
    }

    public void cut(String node) {
        run("cut", node);
    }

    /** Partitions the cluster: {@code side} reach each other only, every other node reaches the others only; {@link #heal} each of {@code side} to undo. */
    public void split(java.util.List<String> side) {
        run("split", String.join(",", side));
    }

    public void heal(String node) {
        run("heal", node);
    }

    public String status() {
        return run("status");
    }

    /** The processes on a node, as seen from the host: membership of its network namespace. */
    public List<NodeProcess> processesOn(String node) {
        List<NodeProcess> processes = new ArrayList<>();
        for (String line : run("ps", node).split("\n")) {
            if (line.isBlank()) {
                continue;
            }
            String[] fields = line.trim().split(" ", 2);
            processes.add(new NodeProcess(Long.parseLong(fields[0]), fields.length > 1 ? fields[1] : ""));
        }
        return processes;
    }

    /** True when no network namespace of this cluster is left on the machine. */
    public boolean isGone() {
        return !run(List.of("ip", "netns", "list")).contains("mpirun-ft-" + name + "-");
    }

    /**
     * Tears the cluster down. The node daemons' logs go with its state directory, so they are
     * kept first under {@code target/it-clusters/NAME/NODE-ftd.log} at the repository's root:
     * they say what the daemons and the scheduler decided, and why.
     */
    @Override
    public void close() {
        for (Process process : started) {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
        }
        keepDaemonLogs();
        run("down");
    }

    /**
     * Writes the stacks of the node daemon on {@code node}, virtual threads included (JGroups runs
     * on them, and SIGQUIT's dump leaves them out), to the node's state directory; {@link #close}
     * keeps them beside the daemon's log as {@code NODE-threads.txt}. For a test that found the
     * group stuck: the stacks say whether a daemon waits on itself or on the network. Bounded at
     * 20 s; a daemon that does not answer is said so on stderr.
     */
    public void dumpDaemonThreads(String node) {
        for (NodeProcess process : processesOn(node)) {
            String cmdline;
            try {
                cmdline = Files.readString(Paths.get("/proc", Long.toString(process.pid()), "cmdline")).replace('\0', ' ');
            } catch (IOException e) {
                continue;
            }
            if (!cmdline.contains("org.mpirunft.daemon.cli.FtdCli run")) {
                continue;
            }
            // The daemon sees the cluster's state directory as IN_IMAGE_STATE (scripts/cluster).
            String file = "/ftc/nodes/" + node + "/threads.txt";
            Path jcmd = Paths.get(System.getProperty("java.home"), "bin", "jcmd");
            try {
                Process dump = new ProcessBuilder(jcmd.toString(), Long.toString(process.pid()), "Thread.dump_to_file",
                        "-overwrite", "-format=text", file).redirectErrorStream(true).start();
                if (!dump.waitFor(20, TimeUnit.SECONDS)) {
                    dump.destroyForcibly();
                    System.err.println("cluster " + name + ": the daemon on " + node + " did not answer jcmd within 20 s");
                }
            } catch (IOException e) {
                System.err.println("cluster " + name + ": cannot dump the daemon's threads on " + node + ": " + e.getMessage());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void keepDaemonLogs() {
        Path nodes = stateDirectory().resolve("nodes");
        if (!Files.isDirectory(nodes)) {
            return;
        }
        Path kept = repoRoot().resolve("target/it-clusters").resolve(name);
        try (var each = Files.list(nodes)) {
            for (Path node : each.toList()) {
                for (String file : List.of("ftd.log", "threads.txt")) {
                    Path log = node.resolve(file);
                    if (Files.isRegularFile(log)) {
                        Files.createDirectories(kept);
                        Files.copy(log, kept.resolve(node.getFileName() + "-" + file), StandardCopyOption.REPLACE_EXISTING);
                    }
                }
            }
        } catch (IOException e) {
            System.err.println("cluster " + name + ": cannot keep the daemons' logs: " + e.getMessage());
        }
    }

    /** What the daemons decided, in lines a failure message can carry: views, suspicions, expulsions, fences, the scheduler's decisions. */
    private static final java.util.regex.Pattern DECISIONS = java.util.regex.Pattern.compile(
            "view \\d+ -> |suspected|EXPELLED|fenced|deciding|reports rank|asks for a restart|leading the scheduler|behind the leader"
                    + "|is at \\d+/|ignoring|WARNING|SEVERE");

    /**
     * The daemons' decisions from their logs, each line prefixed with its node and cut to {@code width}
     * characters, at most {@code maxLines} (the last ones): a failed test says why the group did what it did
     * even where only its message survives (a CI excerpt).
     */
    public String daemonDigest(int maxLines, int width) {
        Path nodes = stateDirectory().resolve("nodes");
        List<String> digest = new ArrayList<>();
        try (var each = Files.list(nodes)) {
            for (Path node : each.sorted().toList()) {
                Path log = node.resolve("ftd.log");
                if (!Files.isRegularFile(log)) {
                    continue;
                }
                for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
                    if (DECISIONS.matcher(line).find()) {
                        String entry = node.getFileName() + "| " + line;
                        digest.add(entry.length() > width ? entry.substring(0, width) + "..." : entry);
                    }
                }
            }
        } catch (IOException | java.io.UncheckedIOException e) {
            return "(daemon logs unreadable: " + e.getMessage() + ")";
        }
        // Lines start with the time of day: sorted, the nodes' lines interleave as they happened.
        digest.sort(java.util.Comparator.comparing(entry -> entry.substring(entry.indexOf("| ") + 2)));
        List<String> kept = digest.size() > maxLines ? digest.subList(digest.size() - maxLines, digest.size()) : digest;
        return String.join("\n", kept);
    }

    /** One process on a simulated node. */
    public record NodeProcess(long pid, String command) {
        /** False once the process is gone or a zombie: killed, waiting only to be reaped. */
        public static boolean isRunning(long pid) {
            char state = state(pid);
            return state != 'Z' && state != 'X' && state != '-';
        }

        /**
         * Whether a process that was sent SIGKILL stopped running within {@code bound}. A killed
         * JVM leaves its network namespace early in its exit (the node then counts as empty) and
         * its other threads may take a few milliseconds more to end: seen once in 64 suite runs,
         * a rank still running right after {@link SimulatedCluster#kill} returned.
         */
        public static boolean stopsWithin(long pid, Duration bound) throws InterruptedException {
            long deadline = System.nanoTime() + bound.toNanos();
            while (isRunning(pid)) {
                if (System.nanoTime() > deadline) {
                    return false;
                }
                Thread.sleep(10);
            }
            return true;
        }

        /** The kernel's state letter for {@code pid} (R, S, T, Z, ...), or '-' if there is no such process. */
        public static char state(long pid) {
            try {
                // The state follows the parenthesised command name, which may itself hold spaces.
                String stat = Files.readString(Paths.get("/proc", Long.toString(pid), "stat"));
                return stat.charAt(stat.lastIndexOf(')') + 2);
            } catch (IOException e) {
                return '-';
            }
        }
    }

    private String run(String... args) {
        List<String> command = new ArrayList<>(List.of(script.toString()));
        command.addAll(List.of(args));
        return run(command);
    }

    private String run(List<String> command) {
        try {
            Process process = builder(command).redirectErrorStream(true).start();
            process.getOutputStream().close();
            byte[] output = process.getInputStream().readAllBytes();
            if (!process.waitFor(COMMAND_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException(command + " did not finish in " + COMMAND_TIMEOUT);
            }
            String text = new String(output, StandardCharsets.UTF_8);
            if (process.exitValue() != 0) {
                throw new IllegalStateException(command + " exited " + process.exitValue() + ": " + text.strip());
            }
            return text;
        } catch (IOException e) {
            throw new IllegalStateException("cannot run " + command, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted running " + command, e);
        }
    }

    private ProcessBuilder builder(List<String> command) {
        ProcessBuilder builder = new ProcessBuilder(command);
        builder.environment().put("MPIRUN_FT_CLUSTER", name);
        return builder;
    }
}
