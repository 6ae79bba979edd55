package org.mpirunft.npb.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.mpirunft.common.FileTrees;
import org.mpirunft.npb.Kernel;
import org.mpirunft.npb.Kernels;
import org.mpirunft.npb.NpbClass;

/**
 * Runs the matrix: for each node count a fresh cluster; for each kernel, class and repeat the
 * variants in order (so slow drift of the machine hits all of them alike). A failure run
 * leaves a node dead, so the cluster is brought up again after it.
 *
 * <p>Everything the nodes run is copied first into a private run directory ({@link RunDirectory}),
 * so a rebuild during a long bench cannot swap them. Each run is one job ({@link LaunchCommand},
 * {@link LauncherJob}), its failures injected by {@link FailureInjector}, its files read and freed
 * through {@link JobFiles}; its result is judged here.
 */
public final class BenchRunner {
    private final BenchSettings settings;
    private final Clock clock;
    private final PrintStream out;
    private final List<RunResult> results = new ArrayList<>();
    private final List<NotRun> notRun = new ArrayList<>();
    /** Set by {@link #run} for its runs. */
    private RunDirectory runDirectory;
    private LaunchCommand commands;
    private FailureInjector failures;
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

    /**
     * Runs every plan; returns the results, also when some runs did not count. Writes results.json and
     * the CSV files after each run, and the evidence file ({@link VerificationEvidence}) at the end.
     */
    public BenchResults run() throws IOException, InterruptedException {
        List<List<RunPlan>> perNodeCount = plans();
        Instant started = clock.instant();
        int total = perNodeCount.stream().mapToInt(List::size).sum();
        notRun.clear();
        Files.createDirectories(settings.outDirectory().resolve("runs"));
        runDirectory = RunDirectory.prepare(settings);
        commands = new LaunchCommand(settings, runDirectory, rankEnvironment);
        failures = new FailureInjector(runDirectory, settings, clock, out);
        int done = 0;
        try {
            for (List<RunPlan> plans : perNodeCount) {
                int nodes = plans.getFirst().nodes();
                BenchCluster cluster = new BenchCluster(settings.repo(), settings.clusterName(), nodes, settings.spares(),
                        runDirectory.path(), runDirectory.daemons(), settings.mtbf());
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
            FileTrees.delete(runDirectory.path());
        }
        BenchResults written = write(started, clock.instant());
        // The evidence of each run's verification, which git keeps in place of the run logs.
        VerificationEvidence.write(settings.outDirectory(), written.runs());
        return written;
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
        Path checkpoints = runDirectory.checkpoints();
        Path log = settings.outDirectory().resolve("runs").resolve(job + ".log");
        JobFiles jobFiles = new JobFiles(checkpoints, cluster, job);
        Path eventLog = jobFiles.eventLog();
        long startNanos = System.nanoTime();
        long deadline = startNanos + settings.runTimeout().toNanos();
        String error = null;
        String failedNode = null;
        Instant injectedAt = null;
        Instant movedAt = null;
        FailureInjector.Injections injections = null;
        Optional<Integer> exit;
        List<TimedLine> lines;
        try (LauncherJob launcher = LauncherJob.start(commands.of(plan, job, cluster), log, clock)) {
            if (plan.variant().autoInterval()) {
                injections = failures.injectExponentialFailures(plan, launcher, eventLog, deadline, cluster);
            } else if (plan.variant().failsOnce()) {
                try {
                    failedNode = failures.awaitFailurePoint(plan, launcher, eventLog, deadline);
                    Instant beforeKill = clock.instant();
                    injectedAt = cluster.kill(failedNode).orElse(beforeKill);
                } catch (BenchException e) {
                    error = e.getMessage();
                }
            } else if (plan.variant().movesOnce()) {
                try {
                    failedNode = failures.awaitFailurePoint(plan, launcher, eventLog, deadline);
                    movedAt = clock.instant();
                    failures.migrate(job, failedNode, cluster);
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
        List<Long> parts = jobFiles.manifestParts();
        afterRun.ran(plan, lines, checkpoints, cluster.stateDirectory().resolve("nodes"));
        Double storageMBps = plan.variant().pauses() ? jobFiles.storageReadMBps(settings.failRank()) : null;
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
            daly = failures.dalyRun(injections, events);
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
                    transparent = Recoveries.transparent(injectedAt, output, events, jobFiles.transparentEpochs(), BenchCluster.HEAD);
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
        jobFiles.deleteCheckpoints();
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

    private static String describe(RunResult result) {
        String time = result.npbSeconds() == null ? "no NPB time" : String.format(Locale.ROOT, "%.2f s", result.npbSeconds());
        String recovery = result.pause() != null ? String.format(Locale.ROOT, ", pause recovery %.0f ms", result.pause().recoveryMs())
                : result.restart() != null ? String.format(Locale.ROOT, ", %s recovery %.0f ms", result.variant(), result.restart().recoveryMs()) : "";
        return (result.counts() ? "verified, " + time + recovery : "DOES NOT COUNT: " + result.error() + " (log " + result.log() + ")");
    }
}
