package org.mpirunft.npb.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.mpirunft.common.Json;
import org.mpirunft.npb.Kernels;
import org.mpirunft.npb.NpbClass;
import org.mpirunft.npb.NpbReport;
import org.mpirunft.npb.bench.NpbOutput.PartWrite;
import org.mpirunft.npb.bench.ThroughputRates.EpochRate;
import org.mpirunft.npb.bench.ThroughputRates.LevelResult;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code npb-bench throughput} (issue #18): in one invocation, one NPB kernel run with periodic
 * checkpoints through mpirun-ft (npb-bench's {@code periodic} variant, with every rank printing
 * its store's part write times), then, while the cluster is still up, the write bandwidth of the
 * node-local and the shared checkpoint directory measured with {@link DiskProbe} at the run's part
 * sizes. The checkpoint write rate per level is compared with the disk's (see
 * {@link ThroughputRates} for which rates) against the 70% target.
 *
 * <p>Exit status: 0 every level reaches the target, 1 some level does not, 2 bad usage, 3 the run
 * did not count (failed, unverified) or printed no part writes, or another environment error.
 */
@Command(name = "throughput", mixinStandardHelpOptions = true,
        description = {"Measures the node-local and the shared checkpoint directory's write bandwidth and the checkpoint "
                + "write rate of one NPB run with periodic checkpoints; PASS if the write rate reaches --target of the disk's."})
final class Throughput implements Callable<Integer> {
    static final int FAIL = 1;
    /** The ranks' node-local checkpoint directory inside the nodes (npb-bench's {@code --local-checkpoint-dir}). */
    static final String LOCAL_ROOT = "/local/ckpt";
    /** Indented: throughput.json is read by people, beside throughput.md; nothing reads it back. */
    private static final ObjectMapper JSON = Json.builder().enable(SerializationFeature.INDENT_OUTPUT).build();

    @picocli.CommandLine.Mixin
    RunOptions run = new RunOptions();

    @Option(names = "--kernel", paramLabel = "K", description = "ep, cg, is, mg, ft, bt, lu, sp (default: mg)")
    String kernel = "mg";

    @Option(names = "--class", paramLabel = "C", description = "S, W, A, B, C (default: B)")
    String cls = "B";

    @Option(names = "--nodes", paramLabel = "N", description = "compute nodes, one rank each (default: 4)")
    int nodes = 4;

    @Option(names = "--spares", paramLabel = "N", description = "spare nodes (default: 0; the run injects no failure)")
    int spares;

    @Option(names = "--checkpoint-every", paramLabel = "ITERATIONS",
            description = "checkpoint interval in iterations (default: max(1, iterations/8), as npb-bench's periodic variant)")
    int checkpointEvery;

    @Option(names = "--repeats", paramLabel = "N", description = "disk probe repetitions per level and concurrency; medians (default: 5)")
    int repeats = 5;

    @Option(names = "--target", paramLabel = "FRACTION", description = "write rate / disk bandwidth to reach (default: 0.7)")
    double target = 0.7;

    @Option(names = "--pace-ms", paramLabel = "MS", description = "sleep per iteration on every rank (default: 0)")
    long paceMillis;

    @Option(names = "--out", paramLabel = "DIR", description = "results directory (default: npb-harness/results/throughput-DATE-TIME)")
    Path out;


    /** The results file's content. */
    record Result(String command, String started, String finished, Map<String, Object> settings, String job, String runError,
                  Double npbSeconds, Long checkpoints, String method, List<Probe> disks, List<StoreAlone> storeAlone,
                  List<EpochRate> epochs, List<LevelResult> levels, double target, String verdict) {
    }

    /**
     * One disk probe: a level's directory, one writer or one per rank.
     *
     * @param partBytes each writer's file size
     * @param mbps      each repetition's aggregate bandwidth
     */
    record Probe(String level, String directory, int writers, List<Long> partBytes, List<Double> mbps, double medianMBps) {
    }

    /**
     * blcr-bridge's write path alone ({@link StoreProbe}): one writer per rank, no kernel running.
     *
     * @param mbps        each round's aggregate rate, as the run's epochs are computed
     * @param ratioToDisk the median over the disk probe's median with as many writers
     */
    record StoreAlone(String level, List<Double> mbps, double medianMBps, double ratioToDisk) {
    }

    @Override
    public Integer call() throws Exception {
        Clock clock = Clock.systemUTC();
        String started = clock.instant().toString();
        String name = Kernels.NAMES.contains(kernel.strip().toLowerCase(Locale.ROOT)) ? kernel.strip().toLowerCase(Locale.ROOT)
                : null;
        if (name == null) {
            throw new BenchException.Usage("kernel must be one of " + String.join(", ", Kernels.NAMES) + ", got '" + kernel + "'");
        }
        NpbClass npbClass;
        try {
            npbClass = NpbClass.parse(cls);
        } catch (IllegalArgumentException e) {
            throw new BenchException.Usage(e.getMessage());
        }
        if (repeats < 1) {
            throw new BenchException.Usage("--repeats must be >= 1, got " + repeats);
        }
        if (!(target > 0 && target <= 1)) {
            throw new BenchException.Usage("--target must be a fraction in (0, 1], got " + target);
        }
        Path repo = NpbBench.repo();
        Path outDirectory = (out != null ? out : repo.resolve("npb-harness/results")
                .resolve("throughput-" + LocalDateTime.now(clock).format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"))))
                .toAbsolutePath();
        BenchSettings settings = new BenchSettings(List.of(name), List.of(npbClass), List.of(nodes), spares, 1,
                List.of(Variant.PERIODIC), checkpointEvery, 0.5, 0, Duration.ofHours(24), paceMillis, Duration.ZERO,
                run.runTimeout(), run.rankHeapMb(nodes, spares), run.aotCache(), List.of(StorageConfig.DEFAULT), 1, 1, null, outDirectory, null,
                repo, run.launcher(repo), run.daemons(repo), run.cluster("tput"), NpbBench.commandLine(arguments()));

        List<Probe> probes = new ArrayList<>();
        Map<String, List<Double>> storeRates = new LinkedHashMap<>();
        List<PartWrite> writes = new ArrayList<>();
        BenchRunner runner = new BenchRunner(settings, clock, System.out)
                .rankEnvironment(NpbReport.WRITE_TIMES_VARIABLE, "1")
                .afterEachRun((plan, lines, sharedCheckpoints, nodeDirectories) -> {
                    writes.addAll(new NpbOutput(lines).partWrites());
                    if (writes.isEmpty()) {
                        return;
                    }
                    // Every node's /local is a directory of the host's disk; node1 hosts rank 0.
                    Path local = nodeDirectories.resolve("node1/local/ckpt/throughput-probe");
                    Path shared = sharedCheckpoints.resolve("throughput-probe");
                    probes.addAll(probeBoth(Map.of(ThroughputRates.LOCAL, local, ThroughputRates.SHARED, shared), writes, storeRates));
                    org.mpirunft.common.FileTrees.delete(local);
                    org.mpirunft.common.FileTrees.delete(shared);
                });
        BenchResults results = runner.run();
        RunResult run = results.runs().isEmpty() ? null : results.runs().getFirst();

        List<EpochRate> epochs = new ArrayList<>(ThroughputRates.epochRates(writes, LOCAL_ROOT));
        List<LevelResult> levels = new ArrayList<>();
        for (String level : List.of(ThroughputRates.LOCAL, ThroughputRates.SHARED)) {
            Probe single = find(probes, level, true);
            Probe concurrent = find(probes, level, false);
            if (single != null && concurrent != null) {
                levels.add(ThroughputRates.levelResult(level, epochs, concurrent.medianMBps(), single.medianMBps(), target));
            }
        }
        Probe both = find(probes, ThroughputRates.BOTH, false);
        if (both != null) {
            epochs.addAll(ThroughputRates.bothLevelRates(writes, LOCAL_ROOT));
            levels.add(ThroughputRates.levelResult(ThroughputRates.BOTH, epochs, both.medianMBps(), Double.NaN, target));
        }
        List<StoreAlone> storeAlone = new ArrayList<>();
        storeRates.forEach((level, mbps) -> {
            double median = Medians.of(mbps) == null ? Double.NaN : Medians.of(mbps);
            Probe concurrent = find(probes, level, false);
            storeAlone.add(new StoreAlone(level, List.copyOf(mbps), median,
                    ThroughputRates.ratio(median, concurrent == null ? Double.NaN : concurrent.medianMBps())));
        });
        String runError = run == null ? "no run" : run.error();
        if (runError == null && writes.isEmpty()) {
            runError = "the ranks printed no part write lines (" + NpbReport.WRITE_TIMES_VARIABLE + ")";
        }
        String verdict = runError != null ? "ERROR" : ThroughputRates.allPass(ThroughputRates.judged(levels)) ? "PASS" : "FAIL";
        Result result = new Result(NpbBench.commandLine(arguments()), started, clock.instant().toString(), describe(settings),
                run == null ? null : run.job(), runError, run == null ? null : run.npbSeconds(),
                run == null ? null : run.checkpointsTaken(), DiskProbe.class.getSimpleName() + ": " + METHOD, probes, storeAlone, epochs, levels,
                target, verdict);
        Files.createDirectories(outDirectory);
        JSON.writeValue(outDirectory.resolve("throughput.json").toFile(), result);
        String text = render(result);
        Files.writeString(outDirectory.resolve("throughput.md"), text);
        System.out.print(text);
        System.out.println("npb-bench throughput: " + verdict + "; results in " + outDirectory);
        return runError != null ? NpbBench.ENVIRONMENT : verdict.equals("PASS") ? NpbBench.OK : FAIL;
    }

    static final String METHOD = "each writer writes a new file of its rank's part size from one heap buffer through FileChannel.write "
            + "in CheckpointStore's 1 MiB slices, "
            + "force(true), atomic rename, directory fsync (as CheckpointStore.writePart); `sync` before each repetition; "
            + "pseudo-random bytes; caches not dropped (forced writes do not depend on them)";

    /**
     * Probes each level's directory with one writer (the median part size) and with one writer
     * per rank (each its rank's part size), {@code repeats} times each. The repetitions go round
     * robin over the four probes, after one unrecorded round: slow drift of the machine (the
     * run's dirty pages still being written back, other work) then hits all four alike.
     */
    private List<Probe> probeBoth(Map<String, Path> directories, List<PartWrite> writes, Map<String, List<Double>> storeRates)
            throws IOException, InterruptedException {
        record Plan(String level, List<Path> directories, List<Long> sizes) {
        }
        List<Plan> plans = new ArrayList<>();
        for (String level : List.of(ThroughputRates.LOCAL, ThroughputRates.SHARED)) {
            List<Long> parts = ThroughputRates.newestPartSizes(writes, LOCAL_ROOT, level);
            if (parts.isEmpty()) {
                continue;
            }
            Path directory = directories.get(level);
            plans.add(new Plan(level, List.of(directory), List.of(parts.stream().sorted().toList().get(parts.size() / 2))));
            plans.add(new Plan(level, java.util.Collections.nCopies(parts.size(), directory), parts));
        }
        if (plans.isEmpty()) {
            return List.of();
        }
        if (plans.size() == 4 && sameDisk(directories.get(ThroughputRates.LOCAL), directories.get(ThroughputRates.SHARED))) {
            List<Path> both = new ArrayList<>(plans.get(1).directories());
            both.addAll(plans.get(3).directories());
            List<Long> sizes = new ArrayList<>(plans.get(1).sizes());
            sizes.addAll(plans.get(3).sizes());
            plans.add(new Plan(ThroughputRates.BOTH, both, sizes));
        }
        DiskProbe probe = new DiskProbe(plans.stream().flatMap(p -> p.sizes().stream()).mapToLong(Long::longValue).max().orElse(1));
        List<List<Double>> mbps = new ArrayList<>();
        plans.forEach(p -> mbps.add(new ArrayList<>()));
        List<Long> rankSizes = ThroughputRates.newestPartSizes(writes, LOCAL_ROOT, ThroughputRates.LOCAL);
        Path storeLocal = directories.get(ThroughputRates.LOCAL).resolve("store");
        StoreProbe store = rankSizes.isEmpty() ? null : new StoreProbe(rankSizes);
        for (int round = 0; round <= repeats; round++) {
            for (int i = 0; i < plans.size(); i++) {
                DiskProbe.Repetition rep = probe.measure(plans.get(i).directories(), plans.get(i).sizes());
                if (round > 0) {
                    mbps.get(i).add(rep.mbps());
                }
            }
            if (store != null) {
                DiskProbe.sync();
                List<PartWrite> storeWrites = store.measure(storeLocal, directories.get(ThroughputRates.SHARED).resolve("store"));
                if (round > 0) {
                    List<EpochRate> rates = new ArrayList<>(ThroughputRates.epochRates(storeWrites, storeLocal.toString()));
                    if (plans.getLast().level().equals(ThroughputRates.BOTH)) {
                        rates.addAll(ThroughputRates.bothLevelRates(storeWrites, storeLocal.toString()));
                    }
                    for (EpochRate rate : rates) {
                        storeRates.computeIfAbsent(rate.level(), l -> new ArrayList<>()).add(rate.aggregateMBps());
                    }
                }
            }
            System.out.printf(Locale.ROOT, "npb-bench throughput: disk probe round %d of %d%s%n", round, repeats,
                    round == 0 ? " (warm-up, not recorded)" : "");
        }
        List<Probe> probes = new ArrayList<>();
        for (int i = 0; i < plans.size(); i++) {
            Double median = Medians.of(mbps.get(i));
            Plan plan = plans.get(i);
            probes.add(new Probe(plan.level(), String.join(" and ", plan.directories().stream().distinct().map(Path::toString).toList()),
                    plan.sizes().size(), plan.sizes(), List.copyOf(mbps.get(i)), median == null ? Double.NaN : median));
        }
        return probes;
    }

    /** Whether two existing directories are on one device (one disk, one file system). */
    static boolean sameDisk(Path a, Path b) throws IOException {
        Files.createDirectories(a);
        Files.createDirectories(b);
        return Files.getAttribute(a, "unix:dev").equals(Files.getAttribute(b, "unix:dev"));
    }

    private static Probe find(List<Probe> probes, String level, boolean single) {
        List<Probe> atLevel = probes.stream().filter(p -> p.level().equals(level)).toList();
        if (level.equals(ThroughputRates.BOTH)) {
            // Only probed with one writer per rank and level.
            return single || atLevel.isEmpty() ? null : atLevel.getFirst();
        }
        // Both probes of a one-rank run have one writer: the first one is the single writer's.
        if (atLevel.size() < 2) {
            return null;
        }
        return single ? atLevel.get(0) : atLevel.get(1);
    }

    /** The text report: the same numbers as the JSON, as a markdown table. */
    static String render(Result result) {
        StringBuilder md = new StringBuilder();
        md.append("# npb-bench throughput\n\n");
        md.append("`").append(result.command()).append("`, ").append(result.started()).append(" to ").append(result.finished())
                .append("\n\n");
        md.append("Run: ").append(result.job()).append(result.runError() == null ? ", verified" : ", ERROR: " + result.runError())
                .append(result.npbSeconds() == null ? "" : String.format(Locale.ROOT, ", NPB time %.2f s", result.npbSeconds()))
                .append(result.checkpoints() == null ? "" : ", " + result.checkpoints() + " checkpoints").append(".\n\n");
        md.append("Disk probe (").append(result.method()).append("):\n\n");
        md.append("| level | writers | MB per writer | MB/s per repetition | median MB/s |\n|---|---|---|---|---|\n");
        for (Probe p : result.disks()) {
            md.append(String.format(Locale.ROOT, "| %s | %d | %s | %s | %.1f |%n", p.level(), p.writers(),
                    p.partBytes().stream().map(b -> String.format(Locale.ROOT, "%.1f", b / 1e6)).distinct().toList(),
                    p.mbps().stream().map(v -> String.format(Locale.ROOT, "%.0f", v)).toList(), p.medianMBps()));
        }
        if (!result.storeAlone().isEmpty()) {
            md.append("\nblcr-bridge's write path alone (StoreProbe: one thread per rank, CheckpointStore.writePart to local then "
                    + "copyPart to shared, no kernel running; aggregate as for the run's epochs):\n\n");
            md.append("| level | MB/s per round | median MB/s | / disk (N writers) |\n|---|---|---|---|\n");
            for (StoreAlone s : result.storeAlone()) {
                md.append(String.format(Locale.ROOT, "| %s | %s | %.1f | %.2f |%n", s.level(),
                        s.mbps().stream().map(v -> String.format(Locale.ROOT, "%.0f", v)).toList(), s.medianMBps(), s.ratioToDisk()));
            }
        }
        md.append("\nCheckpoint writes per epoch (the ranks' own store timings; aggregate = all ranks' bytes over first start "
                + "to last durable end; the writer threads' time on a CPU, ready without a core, and blocked, as shares of "
                + "their write times):\n\n");
        md.append("| level | epoch | ranks | MB | span ms | aggregate MB/s | median per-rank MB/s | on CPU | waiting for a core "
                + "| blocked |\n|---|---|---|---|---|---|---|---|---|---|\n");
        for (EpochRate e : result.epochs()) {
            md.append(String.format(Locale.ROOT, "| %s | %d | %d | %.1f | %.1f | %.1f | %.1f | %.2f | %.2f | %.2f |%n", e.level(), e.epoch(),
                    e.writers(), e.bytes() / 1e6, e.spanMs(), e.aggregateMBps(), e.rankMBps(), e.cpuShare(), e.runQueueShare(),
                    1 - e.cpuShare() - e.runQueueShare()));
        }
        md.append("\nVerdict (median over epochs; aggregate write rate vs the disk with one writer per rank):\n\n");
        md.append("| level | write rate MB/s | disk MB/s (N writers) | ratio | per-rank MB/s | disk MB/s (1 writer) | per-rank ratio "
                + "| target | verdict |\n|---|---|---|---|---|---|---|---|---|\n");
        List<LevelResult> judgedLevels = ThroughputRates.judged(result.levels());
        boolean oneDisk = judgedLevels.size() < result.levels().size();
        for (LevelResult l : result.levels()) {
            boolean judged = judgedLevels.contains(l);
            md.append(String.format(Locale.ROOT, "| %s | %.1f | %.1f | %.2f | %.1f | %s | %s | %.2f | %s |%n", l.level(),
                    l.aggregateMBps(), l.diskConcurrentMBps(), l.ratio(), l.rankMBps(), orNa(l.diskSingleMBps(), "%.1f"),
                    orNa(l.rankRatio(), "%.2f"), l.target(), (l.pass() ? "PASS" : "FAIL") + (judged ? "" : " (for information)")));
        }
        if (oneDisk) {
            md.append("\nThe local and the shared directory are on one disk here, and an epoch's local writes and copies to shared "
                    + "storage overlap on it (a rank copies while others still write): each level's own rate counts the other "
                    + "level's writes against it. The verdict is therefore the disk's: local+shared is both levels' bytes of an "
                    + "epoch over the span from its first write's start to its last copy's end, against the disk probe writing "
                    + "one file per rank into each of the two directories at once.\n");
        }
        md.append("\nOverall: **").append(result.verdict()).append("**\n");
        return md.toString();
    }

    private static String orNa(double value, String format) {
        return Double.isNaN(value) ? "n/a" : String.format(Locale.ROOT, format, value);
    }

    private Map<String, Object> describe(BenchSettings settings) {
        Map<String, Object> map = new LinkedHashMap<>(settings.describe());
        // npb-bench's "repeats" is the one run here; this command's --repeats are the disk probe's rounds.
        map.remove("repeats");
        map.put("diskProbeRounds", repeats);
        map.put("target", target);
        map.remove("failAt");
        map.remove("failRank");
        map.remove("mtbfSeconds");
        map.put("localCheckpointDir", LOCAL_ROOT);
        return map;
    }

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    /** The command line as given, for the results. */
    private String[] arguments() {
        return spec == null ? new String[] {"throughput"} : spec.commandLine().getParseResult().originalArgs().toArray(String[]::new);
    }

}
