package org.mpirunft.scheduler.bench;

import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.mpirunft.common.FileTrees;
import org.mpirunft.common.JobOwner;
import org.mpirunft.common.NoSpareAction;
import org.mpirunft.membership.Discovery;
import org.mpirunft.membership.Membership;
import org.mpirunft.membership.MembershipConfig;
import org.mpirunft.membership.MembershipEvent;
import org.mpirunft.membership.NodeMetadata;
import org.mpirunft.membership.NodeRole;
import org.mpirunft.membership.cli.DurationConverter;
import org.mpirunft.membership.cli.TimeoutOptions;
import org.mpirunft.membership.internal.GroupProbes;
import org.mpirunft.scheduler.RecoveryMode;
import org.mpirunft.scheduler.SchedulerService;
import org.mpirunft.scheduler.config.SchedulerConfig;
import org.mpirunft.scheduler.policy.LeastLoadedSpare;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * Membership and scheduler at 16 to 1,024 members on one machine (issue 23): every member a
 * daemon reduced to its group membership and its scheduler, all in this JVM, on the shipped
 * JGroups stack with only the transport swapped for JGroups' in-JVM SHARED_LOOPBACK (no socket
 * per pair; FD_SOCK2 still opens its own). For each group size:
 *
 * <ul>
 *   <li><b>formation</b>: the first member alone, then the others ({@code --joiners} at a time), until
 *       every member's view holds all;</li>
 *   <li><b>message load</b>: over a quiet window, messages each member's transport received and
 *       sent per second (JGroups' MsgStats), and how many of those were FD_ALL heartbeats;</li>
 *   <li><b>crash to new view</b>: a compute node running a rank of a pause-mode job crashes
 *       (JGroups' Util.shutdown: silent, its FD_SOCK2 socket closed, as a killed process); from
 *       the crash to each member's NodeFailed event, the first and the last member (the new
 *       view's install time is the spread between them);</li>
 *   <li><b>decision at the leader</b>: the leader's scheduler from the failure event to its
 *       RecoveryStarted applied ({@code SchedulerService.decisionNanos()});</li>
 *   <li><b>leader fail-over</b>: the leader crashes; until the next member in the view leads
 *       (its scheduler synced and leading).</li>
 * </ul>
 *
 * The process's CPU time over each phase says when two cores no longer keep up with the group's
 * own traffic. A command, not a test: {@code scripts/bench-scale} runs it and keeps its output.
 */
@Command(name = "bench-scale", mixinStandardHelpOptions = true, description = "Membership and scheduler at scale in one JVM.")
public final class ScaleBenchmark implements java.util.concurrent.Callable<Integer> {
    private static final int START_THREADS = 32;
    private static final int SPARES = 2;
    private static final java.util.concurrent.atomic.AtomicInteger GROUPS = new java.util.concurrent.atomic.AtomicInteger();

    @Option(names = "--members", split = ",", description = "group sizes, default ${DEFAULT-VALUE}", defaultValue = "16,64,256,1024")
    List<Integer> sizes;

    @Option(names = "--crashes", description = "compute-node crashes per size, default ${DEFAULT-VALUE}", defaultValue = "3")
    int crashes;

    @Option(names = "--profile", description = "the membership timeouts: PRODUCTION or FAST, default ${DEFAULT-VALUE}",
            defaultValue = "PRODUCTION")
    MembershipConfig.Profile profile;

    /** The membership's timeouts instead of the profile's, as the member command takes them. */
    @Mixin
    TimeoutOptions timeouts = new TimeoutOptions();

    @Option(names = "--joiners", description = "members started at once after the first, default ${DEFAULT-VALUE}", defaultValue = "8")
    int joiners;

    @Option(names = "--batch", description = "start the members in batches of this many, each once every member's view holds"
            + " the ones before (0: all in one go, --joiners at a time), default ${DEFAULT-VALUE}", defaultValue = "0")
    int batch;

    @Option(names = "--quiet-window", description = "the window the message load is counted over, default ${DEFAULT-VALUE}",
            defaultValue = "10s", converter = DurationConverter.class)
    Duration quietWindow;

    @Option(names = "--wait", description = "how long one phase may take before the size is given up, default ${DEFAULT-VALUE}",
            defaultValue = "300s", converter = DurationConverter.class)
    Duration wait;

    @Option(names = "--work", description = "a directory for the members' state (default: a temporary one, deleted)")
    Path work;

    public static void main(String[] args) {
        // The members' own logs (a thousand members joining) would drown the figures: warnings only.
        java.util.logging.Logger root = java.util.logging.LogManager.getLogManager().getLogger("");
        root.setLevel(java.util.logging.Level.WARNING);
        for (java.util.logging.Handler handler : root.getHandlers()) {
            handler.setLevel(java.util.logging.Level.WARNING);
        }
        System.exit(new CommandLine(new ScaleBenchmark()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        Path dir = work != null ? work : Files.createTempDirectory("bench-scale");
        try {
            String given = timeouts.describe();
            System.out.printf(Locale.ROOT, "# bench-scale: %s timeouts%s, %d joiners%s, %d cores, max heap %d MB; members in one JVM on"
                            + " SHARED_LOOPBACK, steady loads%n",
                    profile, given.isEmpty() ? "" : " with " + given, joiners,
                    batch > 0 ? " in batches of " + batch : "", Runtime.getRuntime().availableProcessors(),
                    Runtime.getRuntime().maxMemory() >> 20);
            for (int size : sizes) {
                if (size < SPARES + 4) {
                    throw new CommandLine.ParameterException(new CommandLine(this), "--members: a group needs at least " + (SPARES + 4)
                            + " members, got " + size);
                }
                try (Group group = new Group(size, dir.resolve("group" + GROUPS.incrementAndGet() + "-" + size))) {
                    group.run();
                } catch (GaveUp e) {
                    System.out.printf(Locale.ROOT, "members %d: GAVE UP: %s%n", size, e.getMessage());
                }
            }
        } finally {
            if (work == null) {
                FileTrees.delete(dir);
            }
        }
        return 0;
    }

    private static final class GaveUp extends Exception {
        GaveUp(String message) {
            super(message);
        }
    }

    /** One group of {@code size} members, each a membership and a scheduler. */
    private final class Group implements AutoCloseable {
        final int size;
        final Path dir;
        final List<String> names = new ArrayList<>();
        final Map<String, Membership> members = new ConcurrentHashMap<>();
        final Map<String, SchedulerService> schedulers = new ConcurrentHashMap<>();
        /** When each member saw each node fail (System.nanoTime). */
        final Map<String, Map<String, Long>> failedSeen = new ConcurrentHashMap<>();
        final Duration phase = wait;

        Group(int size, Path dir) {
            this.size = size;
            this.dir = dir;
            for (int i = 1; i <= size; i++) {
                names.add(String.format(Locale.ROOT, "m%04d", i));
            }
        }

        void run() throws Exception {
            Files.createDirectories(dir);
            Path stack = GroupProbes.sharedLoopbackStack(dir.resolve("stack.xml"));
            byte[] secret = new byte[32];
            new SecureRandom().nextBytes(secret);
            // Its own cluster name: the in-JVM transport finds members by it, and an earlier
            // group of the same size may still be closing.
            String cluster = "scale-" + ProcessHandle.current().pid() + "-" + dir.getFileName();

            double cpu0 = cpuSeconds();
            long t0 = System.nanoTime();
            start(names.getFirst(), stack, secret, cluster);
            int step = batch > 0 ? batch : size;
            for (int from = 1; from < size; from += step) {
                List<String> next = names.subList(from, Math.min(size, from + step));
                startAll(next, stack, secret, cluster);
                int started = from + next.size();
                await("every member's view holds the " + started + " started", () -> members.values().stream()
                        .allMatch(m -> m.view().size() == started));
            }
            double formation = (System.nanoTime() - t0) / 1e9;
            System.out.printf(Locale.ROOT, "members %d: formation %.1f s (CPU %.1f s)%n", size, formation, cpuSeconds() - cpu0);

            // The message load, once the joins' traffic has settled.
            Thread.sleep(2_000);
            Map<String, long[]> before = counters();
            double cpu1 = cpuSeconds();
            long w0 = System.nanoTime();
            Thread.sleep(quietWindow.toMillis());
            double window = (System.nanoTime() - w0) / 1e9;
            double cpuShare = (cpuSeconds() - cpu1) / window / Runtime.getRuntime().availableProcessors();
            Map<String, long[]> after = counters();
            List<Double> received = new ArrayList<>();
            List<Double> sent = new ArrayList<>();
            List<Double> heartbeats = new ArrayList<>();
            for (String name : after.keySet()) {
                long[] a = after.get(name);
                long[] b = before.get(name);
                received.add((a[0] - b[0]) / window);
                sent.add((a[1] - b[1]) / window);
                heartbeats.add((a[2] - b[2]) / window);
            }
            System.out.printf(Locale.ROOT, "members %d: quiet load per member per second: received %s, of them FD_ALL heartbeats %s;"
                    + " sent %s; this JVM's CPU %.0f%% of %d cores%n", size, summary(received), summary(heartbeats), summary(sent),
                    100 * cpuShare, Runtime.getRuntime().availableProcessors());

            String leader = schedulers.get(names.getFirst()).leader();
            String launcher = names.get(1);
            for (int round = 0; round < crashes; round++) {
                crashARankNode(round, launcher);
            }
            leaderFailover(leader);
        }

        /** Starts {@code batchNames}, {@code --joiners} at a time, and waits until each has joined. */
        void startAll(List<String> batchNames, Path stack, byte[] secret, String cluster) throws Exception {
            try (ExecutorService starters = Executors.newFixedThreadPool(joiners)) {
                List<Future<?>> started = new ArrayList<>();
                for (String name : batchNames) {
                    started.add(starters.submit(() -> {
                        start(name, stack, secret, cluster);
                        return null;
                    }));
                }
                long deadline = System.nanoTime() + phase.toNanos();
                for (Future<?> f : started) {
                    try {
                        f.get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                    } catch (java.util.concurrent.TimeoutException | java.util.concurrent.ExecutionException e) {
                        long joined = members.values().stream().filter(m -> m.state() == Membership.State.JOINED).count();
                        throw new GaveUp("formation: " + joined + " of " + size + " members joined within " + phase.toSeconds() + " s"
                                + (e instanceof java.util.concurrent.ExecutionException ? ", and one failed: " + e.getCause().getMessage() : ""));
                    }
                }
            }
        }

        void start(String name, Path stack, byte[] secret, String cluster) throws Exception {
            int index = names.indexOf(name);
            NodeRole role = index >= size - SPARES ? NodeRole.SPARE : NodeRole.COMPUTE;
            MembershipConfig.Builder config = MembershipConfig.builder(profile)
                    .clusterName(cluster)
                    .bindAddress(InetAddress.getLoopbackAddress())
                    // Each member its own port, so that FD_SOCK2 finds its neighbour's server socket
                    // at port + offset (20,001 to 21,024: below the ephemeral ports its clients take).
                    .bindPort(10_000 + index)
                    .failureDetectorPortOffset(10_000)
                    .clusterSecret(secret)
                    .discovery(Discovery.staticHosts(List.of(new InetSocketAddress(InetAddress.getLoopbackAddress(), 10_000))))
                    .stackFile(stack)
                    .logDirectory(dir.resolve("log").resolve(name));
            timeouts.applyTo(config);
            NodeMetadata metadata = new NodeMetadata(name, role, 4, InetSocketAddress.createUnresolved("127.0.0.1", 40_000 + index));
            // A steady load: every member here shares one machine's load average, which would make
            // all of them report each change at once, a load no real group sees.
            Membership membership = Membership.create(config.build(), metadata,
                    () -> new org.mpirunft.membership.NodeLoad(0.0, 0));
            Map<String, Long> seen = new ConcurrentHashMap<>();
            failedSeen.put(name, seen);
            membership.addListener(event -> {
                if (event instanceof MembershipEvent.NodeFailed failed) {
                    seen.putIfAbsent(failed.member().name(), System.nanoTime());
                }
            });
            SchedulerConfig schedulerConfig = new SchedulerConfig(Optional.of(Duration.ofHours(1)), Duration.ofHours(24), Duration.ofMinutes(1),
                    dir.resolve("shared"), LeastLoadedSpare.NAME, NoSpareAction.STOP_JOB);
            SchedulerService scheduler = SchedulerService.builder(schedulerConfig, membership).stateDir(dir.resolve("state").resolve(name)).build();
            members.put(name, membership);
            schedulers.put(name, scheduler);
            scheduler.start();
            membership.start();
            GroupProbes.enableStats(membership);
        }

        /** Received, sent, heartbeats received, per live member. */
        Map<String, long[]> counters() {
            Map<String, long[]> counters = new java.util.TreeMap<>();
            members.forEach((name, m) -> counters.put(name, new long[] {GroupProbes.messagesReceived(m), GroupProbes.messagesSent(m),
                    GroupProbes.heartbeatsReceived(m)}));
            return counters;
        }

        void crashARankNode(int round, String launcher) throws Exception {
            // Ranks on the two members after the launcher; the first of them crashes.
            String victim = names.get(2 + 2 * round);
            String other = names.get(3 + 2 * round);
            String job = "job" + round;
            SchedulerService leaderScheduler = schedulers.get(schedulers.get(launcher).leader());
            int decisionsBefore = leaderScheduler.decisionNanos().size();
            schedulers.get(launcher).registerJob(job, launcher, List.of(victim, other), List.of(), RecoveryMode.PAUSE, Optional.empty(), 3, JobOwner.ROOT)
                    .get(phase.toMillis(), TimeUnit.MILLISECONDS);
            await("every member knows " + job, () -> schedulers.values().stream().allMatch(s -> s.table().job(job).isPresent()));
            Membership crashed = members.remove(victim);
            schedulers.remove(victim);
            failedSeen.remove(victim);
            double cpu0 = cpuSeconds();
            long crashedAt = System.nanoTime();
            GroupProbes.crash(crashed);
            await("every member saw " + victim + " fail", () -> failedSeen.values().stream().allMatch(s -> s.containsKey(victim)));
            await("the leader decided on " + job, () -> leaderScheduler.decisionNanos().size() > decisionsBefore);
            List<Double> seenMs = failedSeen.values().stream().map(s -> (s.get(victim) - crashedAt) / 1e6).sorted().toList();
            double decisionUs = leaderScheduler.decisionNanos().getLast() / 1e3;
            System.out.printf(Locale.ROOT, "members %d: crash %d of %s: new view at the first member %.1f ms, at the last %.1f ms"
                            + " (median %.1f ms; install spread %.1f ms); decision at the leader %.0f us; CPU %.2f s%n", size, round + 1, victim,
                    seenMs.getFirst(), seenMs.getLast(), seenMs.get(seenMs.size() / 2), seenMs.getLast() - seenMs.getFirst(), decisionUs,
                    cpuSeconds() - cpu0);
            crashed.close();
        }

        void leaderFailover(String leader) throws Exception {
            List<String> order = members.get(names.get(1)).view().members().stream().map(m -> m.name()).toList();
            String successor = order.stream().filter(n -> !n.equals(leader)).findFirst().orElseThrow();
            Membership crashed = members.remove(leader);
            schedulers.remove(leader);
            failedSeen.remove(leader);
            SchedulerService next = schedulers.get(successor);
            double cpu0 = cpuSeconds();
            long crashedAt = System.nanoTime();
            GroupProbes.crash(crashed);
            await(successor + " leads", next::isLeader);
            double leadsMs = (System.nanoTime() - crashedAt) / 1e6;
            await("every member saw " + leader + " fail", () -> failedSeen.values().stream().allMatch(s -> s.containsKey(leader)));
            double allMs = failedSeen.values().stream().mapToLong(s -> s.get(leader)).max().orElseThrow() - crashedAt;
            System.out.printf(Locale.ROOT, "members %d: leader %s crashed: %s leads after %.1f ms; the last member saw the new view after %.1f ms;"
                    + " CPU %.2f s%n", size, leader, successor, leadsMs, allMs / 1e6, cpuSeconds() - cpu0);
            crashed.close();
        }

        void await(String what, BooleanSupplier condition) throws Exception {
            long deadline = System.nanoTime() + phase.toNanos();
            while (!condition.getAsBoolean()) {
                if (System.nanoTime() > deadline) {
                    throw new GaveUp("not within " + phase.toSeconds() + " s: " + what);
                }
                Thread.sleep(1);
            }
        }

        /**
         * Closes the schedulers, then the members, each step bounded by {@code --wait}. The
         * members crash first: a thousand graceful leaves would be a thousand views, each costing
         * every survivor its O(N^2) membership work, and the figures are out already.
         */
        @Override
        public void close() throws InterruptedException {
            closeAll(schedulers.values());
            closeAll(members.values().stream().<AutoCloseable>map(m -> () -> {
                try {
                    GroupProbes.crash(m);
                } finally {
                    m.close();
                }
            }).toList());
        }

        private void closeAll(java.util.Collection<? extends AutoCloseable> closeables) throws InterruptedException {
            ExecutorService closers = Executors.newFixedThreadPool(START_THREADS, Thread.ofPlatform().daemon().factory());
            closeables.forEach(c -> closers.execute(() -> {
                try {
                    c.close();
                } catch (Exception e) {
                    System.err.println("closing: " + e);
                }
            }));
            closers.shutdown();
            if (!closers.awaitTermination(phase.toMillis(), TimeUnit.MILLISECONDS)) {
                System.err.println("closing: not done within " + phase.toSeconds() + " s; going on");
                closers.shutdownNow();
            }
        }
    }

    private static double cpuSeconds() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime() / 1e9;
    }

    private static String summary(List<Double> values) {
        List<Double> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        return String.format(Locale.ROOT, "median %.1f (min %.1f, max %.1f)", sorted.get(sorted.size() / 2), sorted.getFirst(), sorted.getLast());
    }
}
