package org.mpirunft.membership.loopback;

import static org.mpirunft.membership.loopback.LoopbackGroup.left;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.jgroups.annotations.GuardedBy;
import org.mpirunft.membership.cli.EventLine;
import org.mpirunft.membership.cli.MembershipCli;

/**
 * A group of member processes on 127.0.0.1, for the tests and the benchmark: each member is a
 * child JVM running {@code membership member --events json} with static discovery over the
 * cluster's loopback ports. Nothing leaves the loopback interface; no multicast is used.
 * {@link #close()} kills every process it started.
 */
public final class LoopbackCluster implements AutoCloseable {
    /** The members' niceness where the tests run as root (see {@link ChildJvm.Spec#niceness}). */
    private static final int MEMBER_NICENESS = -15;

    private final Builder config;
    private final LoopbackGroup<MemberProcess> group;
    @GuardedBy("this") private final Map<String, MemberProcess> members = new LinkedHashMap<>();

    private LoopbackCluster(Builder config) {
        this.config = config;
        this.group = new LoopbackGroup<>("lb-", config.size + config.extraPorts);
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * Starts the members, the first one alone (it becomes coordinator), then the rest together,
     * and returns once every member has a view with all of them.
     */
    public static LoopbackCluster start(Builder builder, Duration timeout) throws IOException, InterruptedException {
        LoopbackCluster cluster = new LoopbackCluster(builder);
        boolean ok = false;
        try {
            cluster.startAll(timeout);
            ok = true;
            return cluster;
        } finally {
            if (!ok) {
                cluster.close();
            }
        }
    }

    private void startAll(Duration timeout) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        MemberProcess first = spawnMember(nameOf(0), group.port(0));
        if (first.await("JOINED", null, left(deadline)).isEmpty()) {
            throw new IllegalStateException("first member did not join in time:\n" + first.stderrTail());
        }
        // In batches, so that on a small machine the members already in the group keep up with
        // their heartbeats while the JVMs of the next ones start.
        for (int batchStart = 1; batchStart < config.size; ) {
            int batchEnd = (int) Math.min(config.size, (long) batchStart + config.startBatch);
            List<MemberProcess> batch = new ArrayList<>();
            for (int i = batchStart; i < batchEnd; i++) {
                batch.add(spawnMember(nameOf(i), group.port(i)));
            }
            for (MemberProcess m : batch) {
                if (m.await("JOINED", null, left(deadline)).isEmpty()) {
                    throw new IllegalStateException(m.name() + " did not join in time:\n" + m.stderrTail());
                }
            }
            batchStart = batchEnd;
        }
        awaitFullView(deadline);
    }

    /**
     * Starts a new process in place of member {@code name} (which must be dead), on the same
     * port, and waits until every member has a view with all members again.
     */
    public MemberProcess replace(String name, Duration timeout) throws IOException, InterruptedException {
        MemberProcess old = member(name);
        if (old.isAlive()) {
            throw new IllegalStateException(name + " is still running");
        }
        MemberProcess fresh = spawnMember(name, old.port());
        awaitFullView(System.nanoTime() + timeout.toNanos());
        return fresh;
    }

    /**
     * Waits until every member of {@link #members()} reports a view of exactly them and has
     * printed a NODE_JOINED for each of them (so no event of the formation is still on its way).
     */
    public void awaitFullView(long deadlineNanos) throws InterruptedException {
        List<MemberProcess> all = members();
        List<String> names = all.stream().map(MemberProcess::name).sorted().toList();
        for (MemberProcess m : all) {
            boolean formed = m.awaitAll(lines -> {
                Set<String> joined = new HashSet<>();
                boolean fullView = false;
                for (EventLine l : lines) {
                    if (l.event().equals("NODE_JOINED")) {
                        joined.add(l.node());
                    }
                    fullView = l.members() != null && l.members().stream().sorted().toList().equals(names);
                }
                return fullView && joined.containsAll(names);
            }, left(deadlineNanos));
            if (!formed) {
                throw new IllegalStateException(m.name() + " did not reach a view of " + names + " in time; last view "
                        + m.lastViewMembers() + "\n" + m.stderrTail());
            }
        }
    }

    /** The node name of member {@code index} (0-based): n1, n2, ... */
    public static String nameOf(int index) {
        return "n" + (index + 1);
    }

    public synchronized List<MemberProcess> members() {
        return List.copyOf(members.values());
    }

    public synchronized MemberProcess member(String name) {
        return Objects.requireNonNull(members.get(name), () -> "no member " + name);
    }

    /** All members except these. */
    public synchronized List<MemberProcess> except(String... names) {
        List<String> excluded = List.of(names);
        return members.values().stream().filter(m -> !excluded.contains(m.name())).toList();
    }

    /** A port of this cluster's static node list that no member uses yet (see {@link Builder#extraPorts}). */
    public int sparePort(int index) {
        return group.port(config.size + index);
    }

    /**
     * Starts one more process on this cluster's node list, with its own secret and arguments,
     * for example an intruder with the wrong secret. It is killed by {@link #close()} and is not
     * one of {@link #members()}.
     */
    public MemberProcess spawnOther(String name, int port, String otherSecret, List<String> extraArgs) throws IOException {
        return spawn(name, port, otherSecret, extraArgs, false);
    }

    private MemberProcess spawnMember(String name, int port) throws IOException {
        return spawn(name, port, group.secret(), List.of(), true);
    }

    private MemberProcess spawn(String name, int port, String memberSecret, List<String> extraArgs, boolean member)
            throws IOException {
        List<String> args = new ArrayList<>(List.of("member", "--name", name, "--port", Integer.toString(port),
                "--bind-addr", "127.0.0.1", "--control", "127.0.0.1:" + (port + 1000), "--cluster", group.clusterName(),
                "--peers", group.peers(), "--profile", config.profile, "--events", "json"));
        if (config.faultInjection) {
            args.add("--fault-injection");
        }
        if (config.encryption) {
            args.add("--encrypt");
        }
        if (config.verbose) {
            args.add("-v");
        }
        args.addAll(config.memberArgs);
        args.addAll(extraArgs);
        // Ahead of the machine's other work: each member stands for a node's daemon, but here five
        // share two cores with the suite's side tests, and CrashDetectionIT's 500 ms bound was
        // missed by 3-35 ms beside the Ansible test (suspicions 276-517 ms after the kill, against
        // 120-200 ms alone), the time the members waited for a core, not the detection's. At -5
        // they still missed it in the suite's busiest minutes (load 9-17: CrashDetectionIT 579 ms,
        // HangDetectionIT 3842 ms against 3720): -15 gives a woken member the core at once.
        ChildJvm.Spec spec = new ChildJvm.Spec(name, MembershipCli.class).jvmArgs(config.jvmArgs).args(args)
                .environment("MPIRUNFT_CLUSTER_SECRET", memberSecret).workDir(config.workDir).echo(config.echo)
                .niceness(MEMBER_NICENESS);
        MemberProcess process = group.add(new MemberProcess(spec, port));
        if (member) {
            synchronized (this) {
                members.put(name, process);
            }
        }
        return process;
    }

    @Override
    public void close() {
        group.close();
    }

    public static final class Builder {
        int size = 5;
        int extraPorts;
        int startBatch = Integer.MAX_VALUE;
        String profile = "fast";
        boolean faultInjection = true;
        boolean encryption;
        boolean echo = true;
        boolean verbose = true;
        Path workDir;
        List<String> jvmArgs = List.of("-Xmx64m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-Djava.net.preferIPv4Stack=true");
        List<String> memberArgs = List.of();

        public Builder size(int n) { this.size = n; return this; }
        /** Ports reserved in the node list for processes started later with {@link #spawnOther}. */
        public Builder extraPorts(int n) { this.extraPorts = n; return this; }
        /** How many members start together after the first (default: all). */
        public Builder startBatch(int n) {
            if (n < 1) {
                throw new IllegalArgumentException("startBatch must be > 0");
            }
            this.startBatch = n;
            return this;
        }
        /** "fast" (default) or "production". */
        public Builder profile(String p) { this.profile = p; return this; }
        public Builder faultInjection(boolean f) { this.faultInjection = f; return this; }
        public Builder encryption(boolean e) { this.encryption = e; return this; }
        /** Copy the members' output to this process's stdout, prefixed with their names. */
        public Builder echo(boolean e) { this.echo = e; return this; }
        /** Members log at INFO (-v) on stderr. */
        public Builder verbose(boolean v) { this.verbose = v; return this; }
        public Builder workDir(Path dir) { this.workDir = dir; return this; }
        public Builder jvmArgs(List<String> args) { this.jvmArgs = List.copyOf(args); return this; }
        /** More {@code member} options, e.g. "--heartbeat-timeout", "3s". */
        public Builder memberArgs(List<String> args) { this.memberArgs = List.copyOf(args); return this; }
    }
}
