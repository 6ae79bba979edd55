package org.mpirunft.npb.sim;

import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import org.mpirunft.common.BadValueException;
import org.mpirunft.common.Durations;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code npb-simulate} (issue #23): the efficiency of a job on 1,000 to 100,000 nodes under
 * exponential node failures, for each recovery mode, simulated ({@link JobSimulation}) with the
 * checkpoint and recovery costs this project's own bench measured ({@link SimulationCosts}) and
 * set beside Daly's model. Prints the tables and writes results.csv, README.md and two plots.
 *
 * <p>Exit status: 0 done, 2 bad input (a missing file or column, a bad value, an unknown option),
 * 3 another error (writing the results).
 */
@Command(name = "npb-simulate", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Simulates a job of N nodes with exponential node failures, checkpoints and each recovery mode (pause, restart, "
                + "full restart) at the costs npb-bench measured, and sets its efficiency beside Daly's model: tables, results.csv, "
                + "README.md and plots."})
public final class SimulateCommand implements Callable<Integer> {
    public static final int OK = 0;
    public static final int USAGE = 2;
    public static final int ERROR = 3;
    static final String DEFAULT_COSTS = "npb-harness/results/bench-B-warm/summary.csv";
    static final String DEFAULT_OUT = "npb-harness/results/simulation";

    @Option(names = "--costs", paramLabel = "FILE", description = "npb-bench summary.csv with the measured costs (default: " + DEFAULT_COSTS + ")")
    Path costsFile;

    @Option(names = "--kernels", split = ",", paramLabel = "K,...", description = "kernels of that file to simulate (default: all it has)")
    List<String> kernels = List.of();

    @Option(names = "--nodes", split = ",", paramLabel = "N,...", description = "node counts (default: 1000,10000,100000)")
    List<Integer> nodes = List.of(1_000, 10_000, 100_000);

    @Option(names = "--mtbf-years", split = ",", paramLabel = "Y,...", description = "per-node MTBFs in years of 365 days (default: 1,5,25)")
    List<Double> mtbfYears = List.of(1.0, 5.0, 25.0);

    @Option(names = "--interval", paramLabel = "daly|DURATION",
            description = "checkpoint interval (of work): daly, Daly's for the cost and the job MTBF, or fixed, e.g. 10m (default: daly)")
    String interval = "daly";

    @Option(names = "--replications", paramLabel = "N", description = "independent replications per configuration (default: 100)")
    int replications = 100;

    @Option(names = "--work-mtbfs", paramLabel = "X", description = "useful work of one replication in job MTBFs (default: 1000)")
    double workMtbfs = 1000;

    @Option(names = "--seed", paramLabel = "N", description = "seed of the failure times (default: 23)")
    long seed = 23;

    @Option(names = "--headline-nodes", paramLabel = "N", description = "node count of the headline and of the table against MTBF (default: 10000)")
    int headlineNodes = 10_000;

    @Option(names = "--headline-mtbf-years", paramLabel = "Y",
            description = "per-node MTBF of the headline and of the table against node count (default: 5)")
    double headlineYears = 5;

    @Option(names = "--plot-kernel", paramLabel = "K", description = "the kernel the plots show (default: the largest checkpoint cost)")
    String plotKernel;

    @Option(names = "--out", paramLabel = "DIR", description = "where results.csv, README.md and the plots go (default: " + DEFAULT_OUT + ")")
    Path out;

    @Option(names = "--debug", description = "stack traces of errors")
    boolean debug;

    private String[] arguments = new String[0];
    private PrintStream console = System.out;

    public static void main(String[] args) {
        System.exit(execute(args, System.out, System.err));
    }

    /** Runs the command; the streams are parameters so that tests can capture them. */
    public static int execute(String[] args, PrintStream out, PrintStream err) {
        SimulateCommand command = new SimulateCommand();
        command.arguments = args.clone();
        command.console = out;
        CommandLine line = new CommandLine(command);
        line.setOut(new PrintWriter(out, true));
        line.setErr(new PrintWriter(err, true));
        line.setParameterExceptionHandler((e, a) -> {
            err.println("npb-simulate: " + e.getMessage());
            return USAGE;
        });
        line.setExecutionExceptionHandler((e, cmd, parsed) -> {
            if (command.debug) {
                e.printStackTrace(err);
            }
            err.println("npb-simulate: " + (e.getMessage() == null ? e.toString() : e.getMessage()));
            return e instanceof SimulationInputException ? USAGE : ERROR;
        });
        return line.execute(args);
    }

    @Override
    public Integer call() throws IOException {
        Path repo = repo();
        Path costsPath = costsFile != null ? costsFile : repo.resolve(DEFAULT_COSTS);
        Path outDir = out != null ? out : repo.resolve(DEFAULT_OUT);
        Double fixedInterval = fixedInterval();
        if (headlineNodes < 1) {
            throw new SimulationInputException("--headline-nodes must be >= 1, got " + headlineNodes);
        }
        if (!(headlineYears > 0) || Double.isInfinite(headlineYears)) {
            throw new SimulationInputException("--headline-mtbf-years must be > 0, got " + headlineYears);
        }
        SimulationCosts costs = SimulationCosts.read(costsPath);
        List<SimulationCosts.Kernel> chosen = kernels.isEmpty() ? costs.kernels() : kernels.stream().map(costs::kernel).distinct().toList();
        SimulationCosts.Kernel plotted = plotKernel != null ? costs.kernel(plotKernel)
                : chosen.stream().max(Comparator.comparingDouble(SimulationCosts.Kernel::checkpointS)).orElseThrow();
        if (!chosen.contains(plotted)) {
            throw new SimulationInputException("--plot-kernel " + plotKernel + " is not among --kernels " + String.join(",", kernels));
        }
        // The headline's node count and MTBF are always simulated, whatever the grid.
        LinkedHashSet<Integer> nodeCounts = new LinkedHashSet<>(nodes);
        nodeCounts.add(headlineNodes);
        LinkedHashSet<Double> years = new LinkedHashSet<>(mtbfYears);
        years.add(headlineYears);
        SimulationGrid grid = new SimulationGrid(chosen, List.of(RecoveryMode.values()), nodeCounts.stream().sorted().toList(),
                years.stream().sorted().toList(), fixedInterval, replications, workMtbfs, seed);

        long started = System.nanoTime();
        List<SimulationGrid.Row> rows = grid.run();
        double seconds = (System.nanoTime() - started) / 1e9;

        Files.createDirectories(outDir);
        List<String> plots = SimulationPlots.write(outDir, rows, plotted, headlineNodes, headlineYears);
        SimulationReport report = new SimulationReport(costs, shown(repo, costsPath), grid, rows, headlineNodes, headlineYears, commandLine(),
                plots, plotted.label());
        Files.writeString(outDir.resolve(SimulationReport.CSV), report.csv());
        String markdown = report.markdown();
        Files.writeString(outDir.resolve(SimulationReport.README), markdown);

        console.print(markdown);
        console.println(String.format(Locale.ROOT, "npb-simulate: %,d nodes, %s-year per-node MTBF, efficiency simulated:", headlineNodes,
                SimulationReport.years(headlineYears)));
        report.headlineLines().forEach(l -> console.println("  " + l));
        console.println(String.format(Locale.ROOT, "npb-simulate: %d configurations x %d replications in %.1f s; results in %s (%s, %s%s)",
                rows.size(), replications, seconds, shown(repo, outDir), SimulationReport.CSV, SimulationReport.README,
                plots.isEmpty() ? "" : ", " + String.join(", ", plots)));
        return OK;
    }

    private Double fixedInterval() {
        String text = interval.strip().toLowerCase(Locale.ROOT);
        if (text.equals("daly")) {
            return null;
        }
        try {
            return Durations.parsePositive("--interval", text).toNanos() / 1e9;
        } catch (BadValueException e) {
            throw new SimulationInputException(e.getMessage() + " (or daly)");
        }
    }

    /** The command as a shell would take it back, as run from the repository. */
    String commandLine() {
        return "npb-harness/bin/npb-simulate" + Arrays.stream(arguments)
                .map(a -> a.matches("[A-Za-z0-9_./:=,@%+-]+") ? " " + a : " '" + a.replace("'", "'\\''") + "'")
                .collect(Collectors.joining());
    }

    /** A path inside the repository relative to it (so that the committed README names no machine's directories). */
    static String shown(Path repo, Path path) {
        Path absolute = path.toAbsolutePath().normalize();
        return absolute.startsWith(repo) ? repo.relativize(absolute).toString() : absolute.toString();
    }

    /** The repository: {@code NPB_BENCH_REPO} (the launcher sets it), else upward from here to the directory holding npb-harness. */
    static Path repo() {
        List<Path> candidates = new ArrayList<>();
        String env = System.getenv("NPB_BENCH_REPO");
        if (env != null && !env.isBlank()) {
            candidates.add(Paths.get(env));
        }
        for (Path dir = Paths.get("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            candidates.add(dir);
        }
        return candidates.stream().map(p -> p.toAbsolutePath().normalize()).filter(p -> Files.isRegularFile(p.resolve("npb-harness/pom.xml")))
                .findFirst().orElse(Paths.get("").toAbsolutePath().normalize());
    }
}
