package org.mpirunft.npb.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.mpirunft.common.FileTrees;
import org.mpirunft.common.PrivateDirectories;
import org.mpirunft.npb.Kernel;
import org.mpirunft.npb.Kernels;
import org.mpirunft.npb.NpbClass;

/**
 * Runs the matrix: for each node count a fresh cluster; for each kernel, class and repeat the
 * variants in order (so slow drift of the machine hits all of them alike). A failure run
 * leaves a node dead, so the cluster is brought up again after it.
 *
 * <p>Everything the nodes run is copied first into a private run directory (the NPB jars, the
 * mpirun-ft distribution, the daemons), so a rebuild during a long bench cannot swap them.
 */
public final class BenchRunner {
    /** Open MPI's launch agent inside the nodes when the cluster runs daemons. */
    static final String FTD_AGENT = "/ftc/ftd/bin/ftd agent";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration COMMIT_POLL = Duration.ofMillis(100);
    /**
     * The {@code transparent} variant's checkpoint interval: CRIU knows no iterations, so the
     * scheduler orders its epochs on time; the failure then waits for the first commit as for
     * {@code pause}.
     */
    static final String TRANSPARENT_INTERVAL = "5s";
    /** The simulated cluster's launcher node, where mpirun-ft and mpirun run. */
    static final String HEAD = "head";

    private final BenchSettings settings;
    private final Clock clock;
    private final PrintStream out;
    private final List<RunResult> results = new ArrayList<>();
    private final List<NotRun> notRun = new ArrayList<>();
    private Path runDirectory;
    private AfterRun afterRun = (plan, lines, sharedCheckpoints, nodes) -> { };
    private final List<String> rankEnvironment = new ArrayList<>();

    /**
     * What a caller does after each run, while the cluster is still up and before the run's
     * checkpoints are deleted: {@code npb-bench throughput} measures the checkpoint directories'
     * write bandwidth there.
     */
    interface AfterRun {
        /**
         * @param sharedCheckpoints the shared checkpoint root on the host ({@code --checkpoint-dir})
         * @param nodes             the cluster's node directories on the host; {@code NODE/local} is a node's {@code /local}
         */
        void ran(RunPlan plan, List<TimedLine> lines, Path sharedCheckpoints, Path nodes) throws IOException, InterruptedException;
    }

    /** Runs {@code hook} after every run (see {@link AfterRun}). */
    BenchRunner afterEachRun(AfterRun hook) {
        this.afterRun = hook;
        return this;
    }

    /** Passes {@code name=value} to every rank of every run ({@code mpirun -x}). */
    BenchRunner rankEnvironment(String name, String value) {
        rankEnvironment.add(name + "=" + value);
        return this;
    }

    public BenchRunner(BenchSettings settings, Clock clock, PrintStream out) {
        this.settings = settings;
        this.clock = clock;
        this.out = out;
    }

    /** Runs every plan; returns the results, also when some runs did not count. */
    public BenchResults run() throws IOException, InterruptedException {
        List<List<RunPlan>> perNodeCount = plans();
        Instant started = clock.instant();
        int total = perNodeCount.stream().mapToInt(List::size).sum();
        notRun.clear();
        Files.createDirectories(settings.outDirectory().resolve("runs"));
        runDirectory = prepareRunDirectory();
        int done = 0;
        try {
            for (List<RunPlan> plans : perNodeCount) {
                int nodes = plans.getFirst().nodes();
                BenchCluster cluster = new BenchCluster(settings.repo(), settings.clusterName(), nodes, settings.spares(),
                        runDirectory, runDirectory.resolve("ftd"), settings.mtbf());
                Thread hook = new Thread(cluster::downQuietly);
                Runtime.getRuntime().addShutdownHook(hook);
                try {
                    cluster.downQuietly();
                    cluster.up();
                    List<RunPlan> queue = new ArrayList<>(plans);
                    for (int next = 0; next < queue.size(); next++) {
                        RunPlan plan = queue.get(next);
                        Outcome outcome = runOne(plan, cluster);
                        RunResult result = outcome.result();
                        results.add(result);
                        done++;
                        out.printf(Locale.ROOT, "npb-bench: [%d/%d] %s class %s, %d nodes, %s%s #%d: %s%n", done, total, plan.kernel(),
                                plan.cls(), nodes, plan.variant(), plan.storage().label().isEmpty() ? "" : " [" + plan.storage().label() + "]",
                                plan.repeat(), describe(result));
                        if (outcome.misfit().isPresent()) {
                            total += replaceMisfits(queue, next, plan, outcome.misfit().get(), result.job());
                        }
                        write(started, clock.instant());
                        if (plan.variant().injectsFailure() || outcome.misfit().isPresent()) {
                            // A node is dead and the spare used, or ranks may be left from a run that was cut: the
                            // next run needs the whole cluster again.
                            cluster.close();
                            cluster.up();
                        }
                    }
                } finally {
                    cluster.downQuietly();
                    Runtime.getRuntime().removeShutdownHook(hook);
                }
            }
        } finally {
            FileTrees.delete(runDirectory);
        }
        return write(started, clock.instant());
    }

    /**
     * Every run, grouped by the node count its cluster has; bad combinations fail here, before any
     * cluster starts. BT and SP, which need a square count, run on the next square of a
     * {@code --nodes} value ({@link Kernel#ranksNear}: 9 nodes for 8), in that count's group.
     */
    List<List<RunPlan>> plans() {
        Map<Integer, List<RunPlan>> byNodes = new LinkedHashMap<>();
        for (int requested : settings.nodeCounts()) {
            for (String name : settings.kernels()) {
                Kernel kernel = Kernels.byName(name);
                for (NpbClass cls : settings.classes()) {
                    int nodes = kernel.ranksNear(cls, requested);
                    if (nodes < 0) {
                        throw new BenchException.Usage(name + " class " + cls + " cannot run on " + requested + " ranks: "
                                + kernel.unsupported(cls, requested));
                    }
                    byNodes.computeIfAbsent(nodes, n -> new ArrayList<>()).addAll(plans(name, kernel, cls, nodes));
                }
            }
        }
        return new ArrayList<>(byNodes.values());
    }

    /** Every run of one kernel, class and node count: each repeat's variants, each once per storage configuration. */
    private List<RunPlan> plans(String name, Kernel kernel, NpbClass cls, int nodes) {
        List<RunPlan> plans = new ArrayList<>();
        for (int repeat = 1; repeat <= settings.repeats(); repeat++) {
            for (Variant variant : settings.variants()) {
                // The storage configurations alternate within each repeat and variant, so that the
                // machine's drift hits them alike; the baseline writes nothing and runs once (with
                // the one configuration if there is one, as before there were several).
                List<StorageConfig> storage = variant == Variant.BASELINE && settings.storage().size() > 1
                        ? List.of(StorageConfig.DEFAULT) : settings.storage();
                for (StorageConfig config : storage) {
                    long iterations = kernel.iterations(cls, nodes) * settings.kernelRepeat();
                    plans.add(RunPlan.of(name, cls, nodes, variant, repeat, iterations,
                            settings.checkpointEvery(), settings.failAt(), settings.paceMillis(iterations), config));
                }
            }
        }
        return plans;
    }

    /**
     * {@code plan}'s run (at {@code queue[at]}) showed that its kernel and class do not fit at its
     * node count: the queue's later runs of the same kernel, class and nodes are dropped and listed
     * as not run, and the stand-in class's runs, if there is one and it runs there, take their place
     * right after this one. Returns how many runs the queue gained (negative if it lost some).
     */
    int replaceMisfits(List<RunPlan> queue, int at, RunPlan plan, String reason, String shownBy) {
        List<RunPlan> dropped = new ArrayList<>();
        for (int i = queue.size() - 1; i > at; i--) {
            RunPlan later = queue.get(i);
            if (later.kernel().equals(plan.kernel()) && later.cls() == plan.cls() && later.nodes() == plan.nodes()) {
                dropped.addFirst(queue.remove(i));
            }
        }
        NpbClass standIn = settings.standIn();
        boolean smaller = standIn != null && standIn.compareTo(plan.cls()) < 0;
        Kernel kernel = Kernels.byName(plan.kernel());
        String standInRefused = smaller ? kernel.unsupported(standIn, plan.nodes()) : null;
        boolean stands = smaller && standInRefused == null;
        List<RunPlan> added = stands ? plans(plan.kernel(), kernel, standIn, plan.nodes()) : List.of();
        queue.addAll(at + 1, added);
        notRun.add(new NotRun(plan.kernel(), plan.cls().name(), plan.nodes(), dropped.stream().map(p -> p.variant().label()).toList(),
                reason + (standInRefused == null ? "" : "; class " + standIn + " cannot stand in: " + standInRefused), shownBy,
                stands ? standIn.name() : null));
        out.printf(Locale.ROOT, "npb-bench: %s class %s does not fit on %d nodes: %s; %d runs not made%s%n", plan.kernel(), plan.cls(),
                plan.nodes(), reason, dropped.size(), stands ? ", class " + standIn + " stands in (" + added.size() + " runs)" : "");
        return added.size() - dropped.size();
    }

    private BenchResults write(Instant started, Instant finished) throws IOException {
        BenchResults results = new BenchResults(BenchResults.VERSION, settings.command(), started.toString(), finished.toString(),
                settings.describe(), List.copyOf(this.results), Summary.of(this.results, settings.mtbf().toSeconds()), List.copyOf(notRun));
        ResultsFiles.write(settings.outDirectory(), results);
        return results;
    }

    /** A run's result, and why its kernel and class do not fit this machine if the run showed it ({@link Fit}). */
    private record Outcome(RunResult result, Optional<String> misfit) {
    }

    private Outcome runOne(RunPlan plan, BenchCluster cluster) throws IOException, InterruptedException {
        String job = plan.job(settings.clusterName());
        Path checkpoints = runDirectory.resolve("ckpt");
        Path log = settings.outDirectory().resolve("runs").resolve(job + ".log");
        // The bench runs its jobs as root: their files are in root's directory of the checkpoint storage.
        Path jobFiles = PrivateDirectories.ofUser(checkpoints, "root").resolve(job);
        Path eventLog = jobFiles.resolve("events.jsonl");
        long startNanos = System.nanoTime();
        long deadline = startNanos + settings.runTimeout().toNanos();
        String error = null;
        String failedNode = null;
        Instant injectedAt = null;
        Instant movedAt = null;
        Injections injections = null;
        Optional<Integer> exit;
        List<TimedLine> lines;
        try (LauncherJob launcher = LauncherJob.start(command(plan, job, cluster), log, clock)) {
            if (plan.variant().autoInterval()) {
                injections = injectExponentialFailures(plan, launcher, eventLog, deadline, cluster);
            } else if (plan.variant().failsOnce()) {
                try {
                    failedNode = awaitFailurePoint(plan, launcher, eventLog, deadline);
                    Instant beforeKill = clock.instant();
                    injectedAt = cluster.kill(failedNode).orElse(beforeKill);
                } catch (BenchException e) {
                    error = e.getMessage();
                }
            } else if (plan.variant().movesOnce()) {
                try {
                    failedNode = awaitFailurePoint(plan, launcher, eventLog, deadline);
                    movedAt = clock.instant();
                    migrate(job, failedNode, cluster);
                } catch (BenchException e) {
                    error = e.getMessage();
                }
            }
            exit = launcher.waitFor(Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
            lines = launcher.lines();
        }
        double wallSeconds = (System.nanoTime() - startNanos) / 1e9;
        NpbOutput output = new NpbOutput(lines);
        LauncherEvents events = LauncherEvents.read(eventLog);
        if (Files.exists(eventLog)) {
            Files.copy(eventLog, settings.outDirectory().resolve("runs").resolve(job + ".events.jsonl"),
                    java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        }
        List<Long> parts = manifestParts(jobFiles);
        afterRun.ran(plan, lines, checkpoints, cluster.stateDirectory().resolve("nodes"));
        Double storageMBps = plan.variant().pauses() ? storageReadMBps(jobFiles, settings.failRank()) : null;
        Instant injectedAtForPause = injectedAt;

        var counters = output.checkpointCounters();
        boolean verified = output.verified();
        int exitCode = exit.orElse(-1);
        Recoveries.Pause pause = null;
        Recoveries.Restart restart = null;
        if (error == null) {
            error = exit.isEmpty() ? "did not finish within " + settings.runTimeout().toSeconds() + " s"
                    : exitCode != 0 ? "mpirun-ft exited " + exitCode
                    : !verified ? "NPB verification failed" : null;
        }
        if (error == null && !plan.variant().injectsFailure()) {
            long taken = counters.map(NpbOutput.CheckpointCounters::taken).orElse(-1L);
            if (taken != plan.expectedCheckpoints()) {
                error = "rank 0 took " + taken + " checkpoints, the plan is " + plan.expectedCheckpoints();
            }
        }
        DalyRun daly = null;
        if (injections != null) {
            daly = dalyRun(injections, events);
            if (error == null && injections.error() != null) {
                error = injections.error();
            }
            if (error == null && !events.ofType("restart").isEmpty()) {
                // NPB times the last launch only: the efficiency would leave out all before the restart.
                error = "a failure ended in a restart, not a pause; NPB's time covers only the last launch";
            }
        }
        Recoveries.Transparent transparent = null;
        if (plan.variant() == Variant.TRANSPARENT) {
            if (error == null && injectedAt != null) {
                try {
                    transparent = Recoveries.transparent(injectedAt, output, events, transparentEpochs(cluster, job), HEAD);
                    parts = List.copyOf(transparent.imageBytes().values());
                } catch (BenchException e) {
                    error = e.getMessage();
                }
            }
            injectedAtForPause = null;
        }
        Recoveries.Migration migration = null;
        if (error == null && movedAt != null) {
            try {
                migration = Recoveries.migration(movedAt, output, events);
            } catch (BenchException e) {
                error = e.getMessage();
            }
        }
        cleanCheckpoints(cluster, job);
        if (error == null && injectedAtForPause != null) {
            try {
                if (plan.variant().pauses()) {
                    pause = Recoveries.pause(injectedAt, output, events).withStorageMBps(storageMBps);
                } else {
                    restart = Recoveries.restart(injectedAt, output, events);
                }
            } catch (BenchException e) {
                error = e.getMessage();
            }
        }
        Optional<String> misfit = Fit.misfit(plan.variant(), exit, lines, settings.runTimeout(), settings.rankHeapMb());
        if (misfit.isPresent()) {
            error = "does not fit this machine: " + misfit.get() + (error == null ? "" : " (" + error + ")");
        }
        return new Outcome(new RunResult(plan.kernel(), plan.cls().name(), plan.nodes(), plan.variant().label(), plan.repeat(), job, error,
                verified, exitCode, wallSeconds, output.npbSeconds().orElse(null), plan.iterations(), plan.checkpointEvery(),
                counters.map(NpbOutput.CheckpointCounters::taken).orElse(null), events.commits().size(), parts,
                counters.filter(c -> c.taken() > 0).map(NpbOutput.CheckpointCounters::lastStallMs).orElse(null),
                counters.filter(c -> c.taken() > 0).map(NpbOutput.CheckpointCounters::lastWriteMs).orElse(null),
                Medians.of(events.commits().stream().map(e -> e.number("durationMs")).toList()), failedNode,
                injectedAt == null ? null : injectedAt.toString(), pause, restart,
                settings.outDirectory().relativize(log).toString(),
                output.longestIdleSpare().map(NpbOutput.SpareIdle::idleSeconds).orElse(null),
                output.longestIdleSpare().map(NpbOutput.SpareIdle::cpuSeconds).orElse(null),
                plan.storage().label(), counters.filter(c -> c.taken() > 0).map(NpbOutput.CheckpointCounters::lastBytes).orElse(null),
                counters.map(NpbOutput.CheckpointCounters::totalSnapshotBytes).filter(b -> b >= 0).orElse(null),
                counters.map(NpbOutput.CheckpointCounters::totalPartBytes).filter(b -> b >= 0).orElse(null), daly, migration,
                movedAt == null ? null : movedAt.toString(), transparent), misfit);
    }

    /** The nodes a {@code daly} run killed, and why it stopped killing. */
    private record Injections(long seed, List<Integer> ranks, List<String> nodes, List<Instant> at, boolean sparesExhausted,
                              String error) {
    }

    /**
     * The {@code daly} variant's failures: a {@link FailureSchedule} of exponential gaps with mean
     * {@code --mtbf}, counted from the job's start and then from each kill. A kill that falls due
     * waits until a first checkpoint is committed and the previous failure's recovery completed
     * (so none lands in a recovery), and comes before none once the program has printed its
     * result. Each kill uses a spare; when none is left, injection stops and the run records it.
     */
    private Injections injectExponentialFailures(RunPlan plan, LauncherJob launcher, Path eventLog, long deadline,
                                                 BenchCluster cluster) throws InterruptedException, IOException {
        long seed = FailureSchedule.seedOf(settings.seed(), plan.repeat());
        FailureSchedule schedule = new FailureSchedule(seed, settings.mtbf());
        List<Integer> ranks = new ArrayList<>();
        List<String> nodes = new ArrayList<>();
        List<Instant> at = new ArrayList<>();
        long due = System.nanoTime() + schedule.nextGap().toNanos();
        while (true) {
            while (System.nanoTime() < due) {
                if (!running(launcher, deadline)) {
                    return new Injections(seed, ranks, nodes, at, false, null);
                }
                Thread.sleep(COMMIT_POLL);
            }
            if (ranks.size() >= settings.spares()) {
                return new Injections(seed, ranks, nodes, at, true, null);
            }
            Instant previous = at.isEmpty() ? null : at.getLast();
            LauncherEvents events = LauncherEvents.read(eventLog);
            while (events.commits().isEmpty() || (previous != null && events.recoveredAfter(previous).isEmpty())) {
                if (!running(launcher, deadline)) {
                    String error = previous == null || events.recoveredAfter(previous).isPresent() ? null
                            : "the job did not recover from the failure at " + previous;
                    return new Injections(seed, ranks, nodes, at, false, error);
                }
                Thread.sleep(COMMIT_POLL);
                events = LauncherEvents.read(eventLog);
            }
            int rank = schedule.nextVictim(plan.nodes());
            List<String> rankNodes = events.currentRankNodes();
            if (rank >= rankNodes.size()) {
                return new Injections(seed, ranks, nodes, at, false, "the event log names no node for rank " + rank + ": " + rankNodes);
            }
            Instant beforeKill = clock.instant();
            Instant killed;
            try {
                killed = cluster.kill(rankNodes.get(rank)).orElse(beforeKill);
            } catch (BenchException e) {
                // The run does not count, but the bench goes on, as for a single failure.
                return new Injections(seed, ranks, nodes, at, false, e.getMessage());
            }
            ranks.add(rank);
            nodes.add(rankNodes.get(rank));
            at.add(killed);
            out.printf(Locale.ROOT, "npb-bench:   daly: failure %d killed rank %d's node %s%n", ranks.size(), rank, rankNodes.get(rank));
            due = System.nanoTime() + schedule.nextGap().toNanos();
        }
    }

    /** True while the job runs its program: alive, within its time, and NPB's result not yet printed. */
    private static boolean running(LauncherJob launcher, long deadline) {
        return launcher.isAlive() && System.nanoTime() < deadline && new NpbOutput(launcher.lines()).npbSeconds().isEmpty();
    }

    /** The daly run's record: the injections, each one's recovery, and the cost and interval the event log shows. */
    private DalyRun dalyRun(Injections injections, LauncherEvents events) {
        List<Double> recoveries = new ArrayList<>();
        for (Instant killed : injections.at()) {
            events.recoveredAfter(killed).ifPresent(back -> recoveries.add(Duration.between(killed, back).toNanos() / 1e6));
        }
        Double commitMs = Medians.of(events.commits().stream().map(e -> e.number("durationMs")).toList());
        return new DalyRun(injections.seed(), settings.mtbf().toMillis() / 1e3, injections.ranks().size(),
                injections.sparesExhausted(), injections.ranks(), injections.nodes(),
                injections.at().stream().map(Instant::toString).toList(), recoveries,
                commitMs == null ? null : commitMs / 1e3, Medians.of(events.orderSpacingSeconds()));
    }

    /**
     * Waits until rank 0 completed iteration {@code failAfter} and a checkpoint is committed;
     * returns the node of the rank to fail. Fails if the job ends first.
     */
    private String awaitFailurePoint(RunPlan plan, LauncherJob launcher, Path eventLog, long deadline)
            throws InterruptedException, IOException {
        Optional<TimedLine> reached = launcher.awaitLine(line -> NpbOutput.iterationOf(line) >= plan.failAfter(),
                Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
        if (reached.isEmpty()) {
            throw new BenchException("the job ended before iteration " + plan.failAfter() + " of " + plan.iterations()
                    + " (no failure injected); slow the iterations with --pace-ms");
        }
        while (true) {
            LauncherEvents events = LauncherEvents.read(eventLog);
            if (!events.commits().isEmpty()) {
                List<String> rankNodes = events.rankNodes();
                if (settings.failRank() >= rankNodes.size()) {
                    throw new BenchException("the event log names no node for rank " + settings.failRank() + ": " + rankNodes);
                }
                return rankNodes.get(settings.failRank());
            }
            if (!launcher.isAlive() || System.nanoTime() > deadline) {
                throw new BenchException("no checkpoint was committed before the job " + (launcher.isAlive() ? "timed out" : "ended")
                        + " (no failure injected); slow the iterations with --pace-ms");
            }
            Thread.sleep(COMMIT_POLL);
        }
    }

    /** How long {@code mpirun-ft migrate} may take to have the move ordered. */
    private static final Duration MIGRATE_COMMAND_BOUND = Duration.ofSeconds(60);

    /** {@code mpirun-ft migrate JOB NODE} on the head node's daemon; returns once the scheduler ordered the move. */
    private void migrate(String job, String node, BenchCluster cluster) throws InterruptedException {
        List<String> command = List.of(runDirectory.resolve("mpirun-ft/bin/mpirun-ft").toString(), "--socket",
                cluster.headSocket().toString(), "migrate", "--reason", "npb-bench", job, node);
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            String said;
            try (var in = process.getInputStream()) {
                if (!process.waitFor(MIGRATE_COMMAND_BOUND.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)) {
                    process.destroyForcibly();
                    throw new BenchException("mpirun-ft migrate " + job + " " + node + " did not return within "
                            + MIGRATE_COMMAND_BOUND.toSeconds() + " s");
                }
                said = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).strip();
            }
            if (process.exitValue() != 0) {
                throw new BenchException("mpirun-ft migrate " + job + " " + node + " exited " + process.exitValue() + ": " + said);
            }
            out.printf(Locale.ROOT, "npb-bench:   %s%n", said);
        } catch (IOException e) {
            throw new BenchException("cannot run mpirun-ft migrate: " + e.getMessage(), e);
        }
    }

    private List<String> command(RunPlan plan, String job, BenchCluster cluster) {
        if (plan.variant() == Variant.TRANSPARENT) {
            return transparentCommand(plan, job, cluster);
        }
        List<String> command = new ArrayList<>(List.of(runDirectory.resolve("mpirun-ft/bin/mpirun-ft").toString(),
                "--socket", cluster.headSocket().toString(),
                "--mpirun", runDirectory.resolve("mpirun").toString(),
                "--agent", FTD_AGENT,
                "--checkpoint-dir", runDirectory.resolve("ckpt").toString(),
                "--local-checkpoint-dir", "/local/ckpt",
                "--job", job,
                "--recovery", plan.variant().recoveryMode(),
                "--spares", Integer.toString(settings.spares()),
                "--exit-timeout", "15s",
                "-np", Integer.toString(plan.nodes()),
                "--mca", "threads_pthreads_yield_strategy", "nanosleep"));
        command.addAll(command.indexOf("-np"), plan.variant().launcherOptions());
        if (!settings.aotCache()) {
            command.addAll(command.indexOf("-np"), List.of("--aot-cache", "off"));
        }
        command.addAll(command.indexOf("-np"), plan.storage().options());
        if (plan.variant().autoInterval()) {
            // Daly's interval, from the measured commit cost and the cluster's MTBF (the bench's --mtbf).
            command.addAll(command.indexOf("-np"), List.of("--checkpoint-interval", "auto"));
        } else if (plan.checkpointEvery() > 0) {
            // Insert before -np: it is mpirun-ft's option, the job's one checkpoint knob.
            command.addAll(command.indexOf("-np"), List.of("--checkpoint-interval", "every " + plan.checkpointEvery()));
        }
        command.addAll(List.of("-x", "NPB_JAVA_OPTS=-Xmx" + settings.rankHeapMb() + "m"));
        if (plan.paceMillis() > 0) {
            command.addAll(List.of("-x", "NPB_PACE_MS=" + plan.paceMillis()));
        }
        for (String variable : rankEnvironment) {
            command.addAll(List.of("-x", variable));
        }
        command.addAll(List.of(runDirectory.resolve("npb-harness/bin/npb").toString(), plan.kernel(), plan.cls().name()));
        if (settings.kernelRepeat() > 1) {
            command.addAll(List.of("--repeat", Integer.toString(settings.kernelRepeat())));
        }
        return command;
    }

    /**
     * A transparent run: mpirun-ft on the head node itself, as a user runs it there, since
     * mpirun's output pipes must be the node's for CRIU to dump mpirun; the node's site config
     * names the daemon's socket and the launch agent.
     */
    private List<String> transparentCommand(RunPlan plan, String job, BenchCluster cluster) {
        List<String> command = new ArrayList<>(List.of("env", "MPIRUN_FT_CLUSTER=" + cluster.name(), cluster.script().toString(),
                "exec", HEAD, "--", runDirectory.resolve("mpirun-ft/bin/mpirun-ft").toString(),
                "--checkpoint-dir", runDirectory.resolve("ckpt").toString(),
                "--job", job, "--transparent",
                "--spares", Integer.toString(settings.spares()),
                "--exit-timeout", "15s",
                "--checkpoint-interval", TRANSPARENT_INTERVAL,
                "-np", Integer.toString(plan.nodes()),
                "--mca", "threads_pthreads_yield_strategy", "nanosleep",
                "-x", "NPB_JAVA_OPTS=-Xmx" + settings.rankHeapMb() + "m"));
        if (plan.paceMillis() > 0) {
            command.addAll(List.of("-x", "NPB_PACE_MS=" + plan.paceMillis()));
        }
        command.addAll(List.of(runDirectory.resolve("npb-harness/bin/npb").toString(), plan.kernel(), plan.cls().name()));
        if (settings.kernelRepeat() > 1) {
            command.addAll(List.of("--repeat", Integer.toString(settings.kernelRepeat())));
        }
        return command;
    }

    /** The run directory under /var/tmp: jars, launcher, daemons, checkpoints; shared into every node. */
    private Path prepareRunDirectory() throws IOException, InterruptedException {
        Path dir = Files.createTempDirectory(Path.of("/var/tmp"), "npb-bench-" + settings.clusterName() + "-",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
        Path harness = settings.repo().resolve("npb-harness");
        Path jar = harness.resolve("target/npb-harness.jar");
        if (!Files.isRegularFile(jar)) {
            throw new BenchException("no " + jar + "; build first: mvn -pl runtime-daemon,mpirun-ext,npb-harness -am package -DskipTests");
        }
        copyTree(harness.resolve("target/lib"), dir.resolve("npb-harness/target/lib"));
        Files.copy(jar, dir.resolve("npb-harness/target/npb-harness.jar"));
        Files.createDirectories(dir.resolve("npb-harness/bin"));
        Files.copy(harness.resolve("bin/npb"), dir.resolve("npb-harness/bin/npb"), java.nio.file.StandardCopyOption.COPY_ATTRIBUTES);
        if (Files.isDirectory(settings.launcher())) {
            copyTree(settings.launcher(), dir.resolve("mpirun-ft"));
        } else if (Files.isRegularFile(settings.launcher())) {
            Process tar = new ProcessBuilder("tar", "xzf", settings.launcher().toString(), "-C", dir.toString())
                    .redirectErrorStream(true).start();
            String text = new String(tar.getInputStream().readAllBytes());
            if (tar.waitFor() != 0 || !Files.isExecutable(dir.resolve("mpirun-ft/bin/mpirun-ft"))) {
                throw new BenchException("cannot unpack " + settings.launcher() + " into mpirun-ft/: " + text.strip());
            }
        } else {
            throw new BenchException("no mpirun-ft distribution at " + settings.launcher()
                    + "; build first: mvn -pl runtime-daemon,mpirun-ext,npb-harness -am package -DskipTests");
        }
        if (!Files.isExecutable(settings.daemons().resolve("bin/ftd"))) {
            throw new BenchException("no ftd distribution at " + settings.daemons() + " (bin/ftd, lib/)");
        }
        copyTree(settings.daemons(), dir.resolve("ftd"));
        Files.createDirectories(dir.resolve("ckpt"));
        Path mpirun = dir.resolve("mpirun");
        // mpirun runs on the head node; the launch agent tags node daemons with the job's name.
        Files.writeString(mpirun, "#!/usr/bin/env bash\nexec env MPIRUN_FT_CLUSTER=" + settings.clusterName() + " "
                + settings.repo().resolve("scripts/cluster") + " exec head -e MPIRUN_FT_JOB=\"$MPIRUN_FT_JOB\" -- mpirun \"$@\"\n");
        Files.setPosixFilePermissions(mpirun, PosixFilePermissions.fromString("rwxr-xr-x"));
        return dir;
    }

    /**
     * The storage path's bandwidth as a replacement sees it: the failed rank's part of the newest
     * committed epoch, read whole from the same directory into a direct buffer, right after the
     * run (in the page cache, as the part the replacement read had just been written). Null if
     * there is no such part.
     */
    static Double storageReadMBps(Path jobDirectory, int rank) throws IOException {
        Optional<Path> newest = newestCommittedEpoch(jobDirectory);
        if (newest.isEmpty()) {
            return null;
        }
        Path part = newest.get().resolve(org.mpirunft.bridge.storage.CheckpointStore.partFileName(rank));
        if (!Files.isRegularFile(part)) {
            return null;
        }
        try (java.nio.channels.FileChannel in = java.nio.channels.FileChannel.open(part, java.nio.file.StandardOpenOption.READ)) {
            long size = in.size();
            if (size == 0 || size > Integer.MAX_VALUE) {
                return null;
            }
            java.nio.ByteBuffer buffer = java.nio.ByteBuffer.allocateDirect((int) size);
            long start = System.nanoTime();
            while (buffer.hasRemaining() && in.read(buffer) >= 0) {
                // reads until the part is whole
            }
            return NpbOutput.StateTransfer.megabytesPerSecond(size, (System.nanoTime() - start) / 1e6);
        }
    }

    private static Optional<Path> newestCommittedEpoch(Path jobDirectory) throws IOException {
        if (!Files.isDirectory(jobDirectory)) {
            return Optional.empty();
        }
        try (Stream<Path> epochs = Files.list(jobDirectory)) {
            return epochs.filter(p -> p.getFileName().toString().matches("epoch-\\d{10}"))
                    .filter(p -> Files.isRegularFile(p.resolve("manifest.json"))).max(Comparator.naturalOrder());
        }
    }

    /** Part sizes of the newest committed epoch, from its manifest; empty if none was committed. */
    static List<Long> manifestParts(Path jobDirectory) throws IOException {
        Optional<Path> newest = newestCommittedEpoch(jobDirectory);
        if (newest.isEmpty()) {
            return List.of();
        }
        JsonNode manifest = JSON.readTree(newest.get().resolve("manifest.json").toFile());
        List<Long> bytes = new ArrayList<>();
        manifest.path("parts").forEach(part -> bytes.add(part.path("bytes").asLong()));
        return List.copyOf(bytes);
    }

    /**
     * Where the daemons keep a transparent job's epochs: root's own directory of the cluster's shared
     * storage (the scheduler's {@code /shared/mpirun-ft}), not the job's checkpoint directory
     * (runtime-daemon's TransparentNode.imagesOnShared).
     */
    private static Path transparentEpochs(BenchCluster cluster, String job) {
        return cluster.stateDirectory().resolve("shared/mpirun-ft/.transparent/root").resolve(job);
    }

    /** Frees the run's checkpoints (class C parts are GBs): shared storage and every node's local storage. */
    private void cleanCheckpoints(BenchCluster cluster, String job) throws IOException {
        FileTrees.delete(PrivateDirectories.ofUser(runDirectory.resolve("ckpt"), "root").resolve(job));
        FileTrees.delete(transparentEpochs(cluster, job));
        Path nodes = cluster.stateDirectory().resolve("nodes");
        if (Files.isDirectory(nodes)) {
            try (Stream<Path> all = Files.list(nodes)) {
                for (Path node : all.toList()) {
                    FileTrees.delete(PrivateDirectories.ofUser(node.resolve("local/ckpt"), "root").resolve(job));
                }
            }
        }
    }

    private static String describe(RunResult result) {
        String time = result.npbSeconds() == null ? "no NPB time" : String.format(Locale.ROOT, "%.2f s", result.npbSeconds());
        String recovery = result.pause() != null ? String.format(Locale.ROOT, ", pause recovery %.0f ms", result.pause().recoveryMs())
                : result.restart() != null ? String.format(Locale.ROOT, ", %s recovery %.0f ms", result.variant(), result.restart().recoveryMs()) : "";
        return (result.counts() ? "verified, " + time + recovery : "DOES NOT COUNT: " + result.error() + " (log " + result.log() + ")");
    }

    private static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> all = Files.walk(from)) {
            for (Path source : all.toList()) {
                Path target = to.resolve(from.relativize(source).toString());
                if (Files.isDirectory(source)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(source, target, java.nio.file.StandardCopyOption.COPY_ATTRIBUTES);
                }
            }
        }
    }
}
