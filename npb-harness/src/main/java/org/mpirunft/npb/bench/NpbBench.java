package org.mpirunft.npb.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Clock;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import org.mpirunft.common.BadValueException;
import org.mpirunft.common.Durations;
import org.mpirunft.npb.Kernel;
import org.mpirunft.npb.Kernels;
import org.mpirunft.npb.NpbClass;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code npb-bench}: the paper's evaluation on NPB. Runs a matrix of kernel, class, node count,
 * repeat and variant through mpirun-ft on a simulated cluster with node daemons, then writes
 * results.json / results.csv / summary.csv, the plots and the results README.
 * {@code npb-bench report DIR} regenerates plots and README from a results.json; {@code npb-bench
 * evidence DIR} the evidence file ({@link VerificationEvidence}) from the run logs.
 */
@Command(name = "npb-bench", mixinStandardHelpOptions = true, subcommands = {NpbBench.Report.class, NpbBench.Evidence.class, Throughput.class},
        description = {"Runs NPB kernels through mpirun-ft on a simulated cluster: baseline, one checkpoint, periodic "
                + "checkpoints, a node failure in pause mode and in restart mode; medians, plots and a README."})
public final class NpbBench implements Callable<Integer> {
    public static final int OK = 0;
    public static final int RUNS_FAILED = 1;
    public static final int USAGE = 2;
    public static final int ENVIRONMENT = 3;

    @picocli.CommandLine.Mixin
    RunOptions run = new RunOptions();

    @Option(names = "--kernels", split = ",", paramLabel = "K,...", description = "ep, cg, is, mg, ft, bt, lu, sp (default: all)")
    List<String> kernels = Kernels.NAMES;

    @Option(names = "--classes", split = ",", paramLabel = "C,...", description = "S, W, A, B, C (default: B)")
    List<String> classes = List.of("B");

    @Option(names = "--nodes", split = ",", paramLabel = "N,...", description = "compute node counts, one rank each (default: 4)")
    List<Integer> nodes = List.of(4);

    @Option(names = "--spares", paramLabel = "N", description = "spare nodes (default: 1)")
    int spares = 1;

    @Option(names = "--repeats", paramLabel = "N", description = "runs of each variant; medians are reported (default: 3)")
    int repeats = 3;

    @Option(names = "--variants", split = ",", paramLabel = "V,...",
            description = "baseline, one-checkpoint, periodic, pause, pause-cold, restart, full-restart, daly, migration, transparent"
                    + " (default: all but daly, migration and transparent)")
    List<String> variants = Arrays.stream(Variant.values())
            .filter(v -> v != Variant.DALY && v != Variant.MIGRATION && v != Variant.TRANSPARENT).map(Variant::label).toList();

    @Option(names = "--checkpoint-every", paramLabel = "ITERATIONS",
            description = "periodic checkpoint interval in iterations (default: max(1, iterations/8))")
    int checkpointEvery;

    @Option(names = "--fail-at", paramLabel = "FRACTION",
            description = "fail (or, for migration, move) after this fraction of the iterations (default: 0.5)")
    double failAt = 0.5;

    @Option(names = "--fail-rank", paramLabel = "RANK", description = "the rank whose whole node is killed (default: 2)")
    int failRank = 2;

    @Option(names = "--mtbf", paramLabel = "DURATION",
            description = "MTBF for Daly's interval, the cluster's MTBF, and the daly variant's mean time between injected failures: "
                    + "30s, 10m, 24h (default: 24h)")
    String mtbf = "24h";

    @Option(names = "--seed", paramLabel = "N",
            description = "seed of the daly variant's failure times and victims; repeat R uses N+R-1 (default: 1)")
    long seed = 1;

    @Option(names = "--kernel-repeat", paramLabel = "N",
            description = "IS and MG: each job goes through the class's iterations N times (npb --repeat), each verified, "
                    + "so that a short class runs long enough for the daly variant's intervals and failures (default: 1)")
    int kernelRepeat = 1;

    @Option(names = "--pace-ms", paramLabel = "MS", description = "sleep per iteration on every rank, for class S (default: 0)")
    long paceMillis;

    @Option(names = "--pace-run", paramLabel = "DURATION",
            description = "or pace each kernel so that its iterations sleep this long in all: 4s (default: 0)")
    String paceRun = "0s";

    @Option(names = "--checkpoint-levels", paramLabel = "LEVEL[:N],...",
            description = "mpirun-ft's --checkpoint-levels for every run: partner, local, shared (default: mpirun-ft's, local,shared)")
    String checkpointLevels;

    @Option(names = "--checkpoint-full-every", paramLabel = "N",
            description = "mpirun-ft's --checkpoint-full-every: incremental disk parts, a full one every N epochs (default: 1)")
    Integer checkpointFullEvery;

    @Option(names = "--checkpoint-compression", paramLabel = "none|zstd",
            description = "mpirun-ft's --checkpoint-compression (default: none)")
    String checkpointCompression;

    @Option(names = "--storage", paramLabel = "LABEL=OPTIONS",
            description = {"a storage configuration to compare, repeatable: each checkpointing run is made once per configuration, "
                    + "alternating; OPTIONS are mpirun-ft's --checkpoint-levels, --checkpoint-full-every, --checkpoint-compression "
                    + "(empty: its defaults), e.g. --storage full= --storage 'pi=--checkpoint-levels partner,shared:8 "
                    + "--checkpoint-full-every 8'. Not with the three single-config options."})
    List<String> storage = new ArrayList<>();

    @Option(names = "--stand-in", paramLabel = "CLASS",
            description = {"a smaller class to run in place of one that does not fit this machine: when a rank runs out of memory, "
                    + "or a baseline does not end within --run-timeout, the kernel's other runs of that class and node count are "
                    + "listed as not run, with the reason, and this class's runs take their place (default: none, they are only listed)"})
    String standIn;

    @Option(names = "--out", paramLabel = "DIR", description = "results directory (default: npb-harness/results/bench-DATE-TIME)")
    Path out;

    @Option(names = "--readme", paramLabel = "FILE", description = "the README to write (default: npb-harness/results/README.md)")
    Path readme;

    @Option(names = "--no-readme", description = "write no README")
    boolean noReadme;

    @Option(names = "--debug", description = "stack traces of errors")
    boolean debug;

    private String[] arguments = new String[0];
    private Clock clock = Clock.systemUTC();
    private PrintStream console = System.out;

    public static void main(String[] args) {
        System.exit(execute(args, Clock.systemUTC(), System.out, System.err));
    }

    /** Runs the command; the streams and clock are parameters so that tests can capture them. */
    public static int execute(String[] args, Clock clock, PrintStream out, PrintStream err) {
        NpbBench bench = new NpbBench();
        bench.arguments = args.clone();
        bench.clock = clock;
        bench.console = out;
        CommandLine line = new CommandLine(bench);
        line.setOut(new java.io.PrintWriter(out, true));
        line.setErr(new java.io.PrintWriter(err, true));
        line.setParameterExceptionHandler((e, a) -> {
            err.println("npb-bench: " + e.getMessage());
            return USAGE;
        });
        line.setExecutionExceptionHandler((e, cmd, parsed) -> {
            boolean debug = bench.debug || (cmd.getCommand() instanceof Report r && r.debug);
            if (debug) {
                e.printStackTrace(err);
            }
            err.println("npb-bench: " + (e.getMessage() == null ? e.toString() : e.getMessage()));
            return e instanceof BenchException.Usage ? USAGE : e instanceof InterruptedException ? 130 : ENVIRONMENT;
        });
        return line.execute(args);
    }

    @Override
    public Integer call() throws Exception {
        BenchSettings settings = settings();
        BenchResults results = new BenchRunner(settings, clock, console).run();
        List<String> plots = Plots.write(settings.outDirectory(), results.summary());
        if (settings.readme() != null) {
            Files.createDirectories(settings.readme().toAbsolutePath().getParent());
            Files.writeString(settings.readme(), ReadmeReport.render(results, settings.outDirectory(), settings.readme(), plots));
        }
        long failed = results.runs().stream().filter(r -> !r.counts()).count();
        // A run that showed its class does not fit is listed with the reason; it is no failure of mpirun-ft.
        java.util.Set<String> misfits = results.notRun().stream().map(NotRun::shownBy).collect(Collectors.toSet());
        long failures = results.runs().stream().filter(r -> !r.counts() && !misfits.contains(r.job())).count();
        int notRun = results.notRun().stream().mapToInt(n -> n.variants().size()).sum();
        console.println("npb-bench: " + results.runs().size() + " runs, " + failed + " do not count"
                + (notRun == 0 ? "" : " (" + misfits.size() + " of them showed a class does not fit this machine; " + notRun
                        + " runs not made)")
                + "; results in " + settings.outDirectory() + (settings.readme() == null ? "" : ", report " + settings.readme()));
        return failures == 0 ? OK : RUNS_FAILED;
    }

    /** The validated settings; bad input is a {@link BenchException.Usage} naming what is wrong. */
    BenchSettings settings() {
        List<String> kernelNames = new ArrayList<>();
        for (String k : kernels) {
            String name = k.strip().toLowerCase(Locale.ROOT);
            if (!Kernels.NAMES.contains(name)) {
                throw new BenchException.Usage("kernel must be one of " + String.join(", ", Kernels.NAMES) + ", got '" + k + "'");
            }
            kernelNames.add(name);
        }
        List<NpbClass> classList = new ArrayList<>();
        for (String c : classes) {
            try {
                classList.add(NpbClass.parse(c));
            } catch (IllegalArgumentException e) {
                throw new BenchException.Usage(e.getMessage());
            }
        }
        List<Variant> variantList = variants.stream().map(Variant::parse).distinct().toList();
        Path repo = repo();
        Path outDirectory = out != null ? out : repo.resolve("npb-harness/results")
                .resolve("bench-" + LocalDateTime.now(clock).format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
        Path readmeFile = noReadme ? null : readme != null ? readme : repo.resolve("npb-harness/results/README.md");
        return new BenchSettings(kernelNames, classList, nodes, spares, repeats, variantList, checkpointEvery, failAt, failRank,
                duration("--mtbf", mtbf), paceMillis, duration("--pace-run", paceRun), run.runTimeout(),
                run.rankHeapMb(largestCluster(kernelNames, classList), spares),
                run.aotCache(), storageConfigs(), seed, kernelRepeat, standInClass(), outDirectory.toAbsolutePath(),
                readmeFile == null ? null : readmeFile.toAbsolutePath(), repo, run.launcher(repo), run.daemons(repo),
                run.cluster("bench"), commandLine(arguments));
    }

    private NpbClass standInClass() {
        try {
            return standIn == null ? null : NpbClass.parse(standIn);
        } catch (IllegalArgumentException e) {
            throw new BenchException.Usage("--stand-in: " + e.getMessage());
        }
    }

    /** The most nodes a cluster of this invocation has: BT and SP may take more than {@code --nodes} says ({@link Kernel#ranksNear}). */
    private int largestCluster(List<String> kernelNames, List<NpbClass> classList) {
        int largest = 1;
        for (int requested : nodes) {
            largest = Math.max(largest, requested);
            for (String name : kernelNames) {
                for (NpbClass cls : classList) {
                    largest = Math.max(largest, Kernels.byName(name).ranksNear(cls, requested));
                }
            }
        }
        return largest;
    }

    /**
     * The storage configurations to compare: those of {@code --storage}, or the one unnamed
     * configuration of the single-config options (which may be mpirun-ft's defaults).
     */
    private List<StorageConfig> storageConfigs() {
        boolean single = checkpointLevels != null || checkpointFullEvery != null || checkpointCompression != null;
        if (!storage.isEmpty()) {
            if (single) {
                throw new BenchException.Usage("give --storage, or --checkpoint-levels/--checkpoint-full-every/--checkpoint-compression "
                        + "for one configuration, not both");
            }
            return StorageConfig.parseAll(storage);
        }
        return List.of(StorageConfig.of("", checkpointLevels, checkpointFullEvery == null ? null : checkpointFullEvery.toString(),
                checkpointCompression, ""));
    }

    static boolean onOff(String option, String text) {
        return switch (text.strip().toLowerCase(Locale.ROOT)) {
            case "on" -> true;
            case "off" -> false;
            default -> throw new BenchException.Usage(option + " must be 'on' or 'off', got '" + text + "'");
        };
    }

    /** A size such as 4g or 3500m, in MiB. */
    static long megabytes(String option, String text) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(\\d{1,7})([mMgG])").matcher(text.strip());
        if (!m.matches()) {
            throw new BenchException.Usage(option + " must be a size such as 4g or 3500m, got '" + text + "'");
        }
        long value = Long.parseLong(m.group(1));
        return m.group(2).equalsIgnoreCase("g") ? value * 1024 : value;
    }

    /** A duration in common's grammar ("30s", "10m", "24h", "2d", "PT1M"); a bad one is a usage error. */
    static Duration duration(String option, String text) {
        try {
            return Durations.parse(option, text);
        } catch (BadValueException e) {
            throw new BenchException.Usage(e.getMessage());
        }
    }

    /** The repository: the build's {@code mpirunft.repo}, {@code NPB_BENCH_REPO}, else upward from here. */
    static Path repo() {
        for (String candidate : new String[] {System.getProperty("mpirunft.repo"), System.getenv("NPB_BENCH_REPO")}) {
            if (candidate != null && Files.isExecutable(Paths.get(candidate, "scripts", "cluster"))) {
                return Paths.get(candidate).toAbsolutePath();
            }
        }
        for (Path dir = Paths.get("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isExecutable(dir.resolve("scripts/cluster"))) {
                return dir;
            }
        }
        throw new BenchException("cannot find the repository (scripts/cluster) above " + Paths.get("").toAbsolutePath()
                + "; run from inside it or set NPB_BENCH_REPO");
    }

    /** The command as a shell would take it back. */
    static String commandLine(String[] args) {
        return "npb-harness/bin/npb-bench" + Arrays.stream(args).map(a -> " " + shellQuote(a)).collect(Collectors.joining());
    }

    static String shellQuote(String arg) {
        return arg.matches("[A-Za-z0-9_./:=,@%+-]+") ? arg : "'" + arg.replace("'", "'\\''") + "'";
    }

    /**
     * {@code npb-bench report DIR}: plots and README again from DIR/results.json. With several
     * directories (a long matrix run in parts), their runs are merged into {@code --out}.
     */
    @Command(name = "report", mixinStandardHelpOptions = true,
            description = {"Regenerates the plots and the README from a bench directory's results.json.",
                    "Several directories are merged into --out: their runs, one set of medians, plots and README."})
    static final class Report implements Callable<Integer> {
        @Parameters(index = "0..*", arity = "1..*", paramLabel = "DIR", description = "bench results directories")
        List<Path> directories;

        @Option(names = "--out", paramLabel = "DIR", description = "where merged results and plots go (needed with several DIRs)")
        Path out;

        @Option(names = "--readme", paramLabel = "FILE", description = "the README to write (default: npb-harness/results/README.md)")
        Path readme;

        @Option(names = "--debug", description = "stack traces of errors")
        boolean debug;

        @Override
        public Integer call() throws IOException {
            Path directory;
            BenchResults results;
            if (directories.size() == 1 && out == null) {
                directory = directories.getFirst();
                results = ResultsFiles.read(directory);
            } else {
                if (out == null) {
                    throw new BenchException.Usage("report: merging " + directories.size() + " directories needs --out DIR");
                }
                directory = out.toAbsolutePath();
                List<ResultsFiles.Located> parts = new ArrayList<>();
                for (Path d : directories) {
                    parts.add(new ResultsFiles.Located(d.toAbsolutePath(), ResultsFiles.read(d)));
                }
                results = ResultsFiles.merge(parts, directory);
                ResultsFiles.write(directory, results);
            }
            List<String> plots = Plots.write(directory, results.summary());
            Path file = (readme != null ? readme : repo().resolve("npb-harness/results/README.md")).toAbsolutePath();
            Files.writeString(file, ReadmeReport.render(results, directory.toAbsolutePath(), file, plots));
            System.out.println("npb-bench: report " + file + " from " + directory.resolve(ResultsFiles.JSON_FILE));
            return OK;
        }
    }

    /**
     * {@code npb-bench evidence DIR...}: each directory's evidence file again from its run logs,
     * for a results directory written before there was one or by a bench that was cut.
     */
    @Command(name = "evidence", mixinStandardHelpOptions = true,
            description = {"Writes each results directory's evidence file, " + VerificationEvidence.FILE + " (gzip'd if large): "
                    + "every run's NPB verification block, copied from its log in runs/."})
    static final class Evidence implements Callable<Integer> {
        @Parameters(index = "0..*", arity = "1..*", paramLabel = "DIR", description = "bench results directories with runs/*.log")
        List<Path> directories;

        @Override
        public Integer call() throws IOException {
            for (Path directory : directories) {
                if (!Files.isDirectory(directory.resolve("runs"))) {
                    throw new BenchException.Usage("evidence: no runs/ in " + directory);
                }
            }
            for (Path directory : directories) {
                List<RunResult> runs = Files.isRegularFile(directory.resolve(ResultsFiles.JSON_FILE))
                        ? ResultsFiles.read(directory).runs() : List.of();
                VerificationEvidence.Written written = VerificationEvidence.write(directory, runs);
                System.out.println("npb-bench: evidence " + written.file() + ": " + VerificationEvidence.runs(written.runs()) + ", "
                        + (written.runs() - written.notVerified().size()) + " verified"
                        + (written.notVerified().isEmpty() ? "" : "; not verified: " + String.join(", ", written.notVerified())));
            }
            return OK;
        }
    }
}
