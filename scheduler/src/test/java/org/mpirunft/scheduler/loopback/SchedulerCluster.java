package org.mpirunft.scheduler.loopback;

import static org.mpirunft.membership.loopback.LoopbackGroup.left;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.mpirunft.membership.loopback.ChildJvm;
import org.mpirunft.membership.loopback.LoopbackGroup;
import org.mpirunft.scheduler.cli.SchedulerNode;

/**
 * Node daemons (membership and scheduler, {@link SchedulerNode}) as child JVMs on 127.0.0.1,
 * for the integration tests and the benchmark: static discovery over free loopback ports, one
 * config file, one shared directory. {@link #close()} kills every process it started, and so
 * does {@link ChildJvm}'s shutdown hook, should the test JVM end first.
 */
public final class SchedulerCluster implements AutoCloseable {
    private final Builder config;
    private final LoopbackGroup<SchedulerNodeProcess> group;
    private final Path configFile;
    // Guarded by this.
    private final Map<String, SchedulerNodeProcess> nodes = new LinkedHashMap<>();

    private SchedulerCluster(Builder config) throws IOException {
        this.config = config;
        this.group = new LoopbackGroup<>("sc-", config.names.size());
        Files.createDirectories(config.workDir);
        this.configFile = config.workDir.resolve("cluster-" + group.clusterName() + ".yaml");
        Files.writeString(configFile, config.yaml);
    }

    public static Builder builder(Path workDir) {
        return new Builder(workDir);
    }

    /**
     * Starts the nodes in order, the first alone (it becomes the coordinator and so the leader),
     * and returns once every node's view has all of them.
     */
    public static SchedulerCluster start(Builder builder, Duration timeout) throws IOException, InterruptedException {
        SchedulerCluster cluster = new SchedulerCluster(builder);
        boolean ok = false;
        try {
            long deadline = System.nanoTime() + timeout.toNanos();
            for (String name : builder.names) {
                SchedulerNodeProcess node = cluster.spawn(name);
                if (node.await(l -> l.event().equals("STARTED"), left(deadline)).isEmpty()) {
                    throw new IllegalStateException(name + " did not start in time:\n" + node.stderrTail());
                }
            }
            cluster.awaitFullView(deadline);
            ok = true;
            return cluster;
        } finally {
            if (!ok) {
                cluster.close();
            }
        }
    }

    /** Waits until every node printed a view of exactly all nodes. */
    public void awaitFullView(long deadlineNanos) throws InterruptedException {
        List<String> all = config.names.stream().sorted().toList();
        for (SchedulerNodeProcess node : nodes()) {
            boolean full = node.awaitAll(lines -> {
                List<String> last = List.of();
                for (var l : lines) {
                    if (l.members() != null) {
                        last = l.members();
                    }
                }
                return last.stream().sorted().toList().equals(all);
            }, left(deadlineNanos));
            if (!full) {
                throw new IllegalStateException(node.name() + " did not see all of " + all + " in time:\n" + node.stderrTail());
            }
        }
    }

    /**
     * Starts a new process in place of node {@code name}, which must be dead, on the same port,
     * and waits until every node has a view of all of them again.
     */
    public SchedulerNodeProcess restart(String name, Duration timeout) throws IOException, InterruptedException {
        if (node(name).isAlive()) {
            throw new IllegalStateException(name + " is still running");
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        SchedulerNodeProcess fresh = spawn(name);
        if (fresh.await(l -> l.event().equals("STARTED"), left(deadline)).isEmpty()) {
            throw new IllegalStateException(name + " did not start again in time:\n" + fresh.stderrTail());
        }
        awaitFullView(deadline);
        return fresh;
    }

    public synchronized List<SchedulerNodeProcess> nodes() {
        return List.copyOf(nodes.values());
    }

    public synchronized SchedulerNodeProcess node(String name) {
        return Objects.requireNonNull(nodes.get(name), () -> "no node " + name);
    }

    public Path configFile() {
        return configFile;
    }

    private SchedulerNodeProcess spawn(String name) throws IOException {
        int port = group.port(config.names.indexOf(name));
        List<String> args = new ArrayList<>(List.of("--name", name, "--port", Integer.toString(port), "--bind-addr", "127.0.0.1",
                "--cluster", group.clusterName(), "--config", configFile.toString(), "--profile", config.profile,
                "--peers", group.peers()));
        if (config.tick != null) {
            args.addAll(List.of("--tick", config.tick.toMillis() + "ms"));
        }
        if (config.verbose) {
            args.add("-v");
        }
        args.addAll(config.nodeArgs.getOrDefault(name, List.of()));
        SchedulerNodeProcess process = group.add(new SchedulerNodeProcess(new ChildJvm.Spec(name, SchedulerNode.class)
                .jvmArgs(config.jvmArgs).args(args).environment(SchedulerNode.SECRET_ENV, group.secret())
                .workDir(config.workDir).echo(config.echo)));
        synchronized (this) {
            nodes.put(name, process);
        }
        return process;
    }

    @Override
    public void close() {
        group.close();
    }

    /** What to start; only the work directory is required. */
    public static final class Builder {
        final Path workDir;
        List<String> names = List.of("n1", "n2", "n3");
        String yaml;
        Duration tick;
        String profile = "fast";
        boolean echo = true;
        boolean verbose = true;
        Map<String, List<String>> nodeArgs = new LinkedHashMap<>();
        List<String> jvmArgs = List.of("-Xmx96m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Djava.net.preferIPv4Stack=true");

        private Builder(Path workDir) {
            this.workDir = workDir;
            this.yaml = "version: 1\ncheckpoint:\n  interval: 1s\nstorage:\n  shared: " + workDir.resolve("shared").toAbsolutePath() + "\n";
        }

        /** The nodes, started in this order: the first leads (default n1, n2, n3). */
        public Builder nodes(List<String> n) { this.names = List.copyOf(n); return this; }
        /** The config file's text (default: a 1 s interval, storage under the work directory). */
        public Builder config(String text) { this.yaml = text; return this; }
        public Builder tick(Duration t) { this.tick = t; return this; }
        /** Membership timeouts: "fast" (default) or "production". */
        public Builder profile(String p) { this.profile = p; return this; }
        /** Copy the nodes' output to this process's stdout, prefixed with their names. */
        public Builder echo(boolean e) { this.echo = e; return this; }
        /** Nodes log the scheduler's INFO on stderr. */
        public Builder verbose(boolean v) { this.verbose = v; return this; }
        /** More {@code scheduler-node} options for one node, e.g. "--auto-commit" or "--role", "spare". */
        public Builder nodeArgs(String node, List<String> args) { this.nodeArgs.put(node, List.copyOf(args)); return this; }
        public Builder jvmArgs(List<String> args) { this.jvmArgs = List.copyOf(args); return this; }
    }
}
