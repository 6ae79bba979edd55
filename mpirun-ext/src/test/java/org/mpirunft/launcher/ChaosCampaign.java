package org.mpirunft.launcher;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.mpirunft.testkit.SimulatedCluster;

/**
 * scripts/chaos: a seeded campaign of faults against a stream of jobs on a simulated cluster that
 * the script brought up (8 compute nodes, 2 spares, the head node; daemons on all). Each job is
 * planned from the seed ({@link ChaosPlan}: a program and a recovery mode, {@link ChaosProgram}),
 * run with its faults injected ({@link ChaosFaults}), and judged: it ended with its program's
 * right result (RollbackRank: the failure-free run's bits; NPB: its own verification;
 * TransparentRing: its failure-free checksum), or it stopped with a documented code (75, 81) and
 * a relaunch with the same id (resuming from the last committed epoch's iteration, for the rank
 * library's programs) ended with that result; no pause resumed from an epoch that never
 * committed; each attempt ended within its bound; nothing of it was left running on any node; no
 * decision of a split-off minority reached it. One line per job
 * goes to the results file as the job ends, so a campaign cut short still has its table. Not a
 * test: a command.
 */
public final class ChaosCampaign {
    /**
     * One attempt's bound, launch to mpirun-ft's exit: the program runs about 20 s failure-free
     * (100 iterations of 150 ms and launch) and each of up to four faults may cost a recovery or a
     * relaunch (seconds), a heal bound (60 s) or a decision timeout (30 s). ClusterJob's bound too.
     */
    static final long ATTEMPT_BOUND_SECONDS = ClusterJob.BOUND_SECONDS;
    /** Past the bound, for mpirun-ft to end once the job was killed (its decision timeout is 30 s). */
    private static final long AFTER_KILL_BOUND_SECONDS = 60;

    enum Outcome { VERIFIED, STOPPED_RESUMED, FAILED }

    /** One attempt of a job: mpirun-ft's exit code (null: not within the bound), its wall time and what it printed. */
    record Attempt(Integer exitCode, double wallSeconds, String output) {
    }

    private final Options options;
    private final ChaosCluster nodes;
    private final Path checkpoints;
    private final ChaosDisk disk;
    /** The failure-free RollbackRank run's bits. */
    private String reference;
    private final List<String> rows = new ArrayList<>();
    private final Map<String, Integer> faultCounts = new LinkedHashMap<>();
    private final Map<Outcome, Integer> outcomes = new LinkedHashMap<>();
    /** Per job kind: its label, then each outcome's count ({@code pause-warm verified=3 failed=1}). */
    private final Map<String, Map<Outcome, Integer>> outcomesByKind = new java.util.TreeMap<>();
    private final List<String> failures = new ArrayList<>();
    private double longestAttempt;
    private int minorityDecisions;
    private int splitsChecked;

    private ChaosCampaign(Options options) {
        this.options = options;
        this.nodes = new ChaosCluster(SimulatedCluster.attach(options.cluster, ChaosPlan.COMPUTE_NODES, ChaosPlan.SPARES));
        this.checkpoints = ClusterJob.checkpointsOf(options.cluster);
        this.disk = new ChaosDisk(checkpoints);
    }

    public static void main(String[] args) throws Exception {
        Options options;
        try {
            options = Options.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("chaos: " + e.getMessage());
            System.exit(2);
            return;
        }
        System.exit(new ChaosCampaign(options).run());
    }

    private int run() throws Exception {
        Files.createDirectories(options.logs);
        write("# Chaos campaign: seeded faults against a stream of jobs of 4 ranks on " + ChaosPlan.COMPUTE_NODES
                + " simulated compute nodes, " + ChaosPlan.SPARES + " spares and the head node, a daemon on each");
        for (ChaosProgram program : ChaosProgram.values()) {
            write("# program: " + program.description + "; kinds " + java.util.Arrays.stream(ChaosPlan.Kind.values())
                    .filter(k -> k.program == program).map(k -> k.label + " (" + String.join(" ", k.options) + ")").toList());
        }
        write("# checkpoint directory (full-disk faults fill it for " + ChaosFaults.FULL_DISK_MILLIS / 1000 + " s): " + checkpoints + ", "
                + disk.unfillable().orElse(String.format("a tmpfs of %d MB", checkpointDiskBytes() / (1 << 20))));
        write("# command: " + options.command + "; seed " + options.seed + "; machine: " + Runtime.getRuntime().availableProcessors()
                + " cores, load before: " + Files.readString(Path.of("/proc/loadavg")).strip());
        write("# bounds: each attempt (launch to mpirun-ft's exit) " + ATTEMPT_BOUND_SECONDS + " s; the fault's iteration "
                + ChaosFaults.ITERATION_BOUND_MILLIS / 1000 + " s; heal after a hang, cut or split " + ChaosFaults.HEAL_BOUND_MILLIS / 1000
                + " s; nothing left running " + ChaosCluster.LEFTOVER_BOUND_MILLIS / 1000 + " s after the exit; a healthy group before a job "
                + ChaosCluster.HEALTHY_BOUND_MILLIS / 1000 + " s");
        write("# outcome: verified (exit 0, the program's right result), stopped-resumed (exit 75 or 81, the relaunch ended with that"
                + " result, resuming at the last committed epoch's iteration for the rank library's programs), FAILED (the reason)");
        Optional<String> wrong = nodes.repairAndAwaitHealthy();
        if (wrong.isPresent()) {
            write("# ABORTED: the cluster is not one healthy group before the first job: " + wrong.get());
            keepDaemonLogs();
            return 3;
        }
        // Twice at most: a failure-free run that fails is a finding (kept), not yet a reason to give up.
        Attempt ref = null;
        Matcher bits = null;
        for (int attempt = 1; attempt <= 2; attempt++) {
            ref = finish(start(ChaosPlan.Kind.PAUSE_WARM, "chaos-" + options.seed + "-ref" + attempt, List.of("node1", "node2", "node3", "node4")));
            bits = ClusterJob.RESULT.matcher(ref.output());
            if (ref.exitCode() != null && ref.exitCode() == 0 && bits.find()) {
                break;
            }
            write("# the failure-free reference run " + attempt + " exited " + ref.exitCode() + " (" + said(ref.output()) + "); its output: "
                    + options.logs.resolve("reference" + attempt + ".out"));
            Files.writeString(options.logs.resolve("reference" + attempt + ".out"), ref.output());
            failures.add("failure-free reference run " + attempt + ": exit " + ref.exitCode() + " (" + said(ref.output()) + ")");
            nodes.killLeftovers(nodes.awaitNothingLeft());
            if (attempt == 2) {
                write("# ABORTED: no failure-free reference run");
                keepDaemonLogs();
                return 3;
            }
        }
        reference = bits.group(1);
        write(String.format("# reference: failure-free run, %.1f s, bits %s", ref.wallSeconds(), reference));
        write("# job  kind        faults  outcome          exit  wall_s  relaunch  detail");
        long deadline = System.nanoTime() + options.duration.toNanos();
        int ran = 0;
        for (int number = options.fromJob; (options.jobs == 0 || ran < options.jobs) && System.nanoTime() < deadline; number++, ran++) {
            try {
                if (!runJob(ChaosPlan.draw(options.seed, number))) {
                    break;
                }
            } catch (RuntimeException | IOException e) {
                // A cluster command that failed (exit status, its own bound): the job is not judged,
                // the finding is kept, and the next job starts on a repaired cluster.
                write("# job " + number + ": the campaign could not go on with it: " + e);
                failures.add("job " + number + " (seed " + options.seed + ", --from-job " + number + " --jobs 1): campaign error: " + e);
                outcomes.merge(Outcome.FAILED, 1, Integer::sum);
                nodes.killLeftovers(nodes.jobProcesses());
            }
        }
        summarize(ran);
        return failures.isEmpty() ? 0 : 1;
    }

    /** Runs and judges one job; false when the cluster could not be repaired for it (the campaign stops). */
    private boolean runJob(ChaosPlan plan) throws Exception {
        String id = plan.job(Long.toString(options.seed));
        Optional<String> wrong = nodes.repairAndAwaitHealthy();
        if (wrong.isPresent()) {
            write("# STOPPED before job " + plan.number() + ": the cluster is not one healthy group within "
                    + ChaosCluster.HEALTHY_BOUND_MILLIS / 1000 + " s: " + wrong.get());
            failures.add("before job " + plan.number() + ": cluster unhealthy: " + wrong.get());
            return false;
        }
        write("# " + plan.describe());
        ChaosProgram program = plan.kind().program;
        ChaosJob job = start(plan.kind(), id, plan.computeNodes());
        ChaosFaults faults = new ChaosFaults(nodes, job, program, disk, plan.computeNodes());
        List<String> problems = new ArrayList<>();
        try {
            faults.inject(plan.faults());
        } catch (Exception | AssertionError e) {
            problems.add("injecting a fault failed: " + e.getMessage());
        }
        Attempt first = finish(job);
        faults.healAll();
        int injected = faults.injected.stream().mapToInt(ChaosFaults.Injected::count).sum();
        // By the plan's kind; a spare-lost fault is two of the cluster's actions (two kills), and counts as two.
        faults.injected.stream().filter(f -> f.count() > 0).forEach(f -> faultCounts.merge(f.planned().kind().label, f.count(), Integer::sum));
        problems.addAll(ChaosChecks.crashesTakenForLosses(job, faults));
        int seenBefore = minorityDecisions;
        checkMinority(job, faults, problems);
        write("#   faults of job " + plan.number() + ": " + faults.injected
                + (faults.splits.isEmpty() ? "" : "; minority decisions about the job during its splits: " + (minorityDecisions - seenBefore)));
        checkAttempt(first, nodes.awaitNothingLeft(), problems, "");

        Outcome outcome;
        String relaunch = "-";
        String resumed = "";
        Integer code = first.exitCode();
        if (code != null && code == 0) {
            program.wrongResult(first.output(), reference).ifPresent(result -> problems.add("exit 0 with " + result));
            problems.addAll(ChaosChecks.resumesFromUncommittedEpochs(job));
            outcome = problems.isEmpty() ? Outcome.VERIFIED : Outcome.FAILED;
        } else {
            boolean documented = code != null && (code == ExitCode.NO_SPARE.code() || code == ExitCode.JOB_STOPPED.code());
            if (!documented) {
                problems.add(code == null ? "no exit within " + ATTEMPT_BOUND_SECONDS + " s" : "exit " + code + " (" + said(first.output()) + ")");
            } else if (injected > 0 && faults.injected.stream().flatMap(f -> f.actions().stream())
                    .allMatch(a -> a.startsWith("crash-daemon") || a.startsWith("full-disk"))) {
                // A crashed daemon is no node loss (DaemonCrashIT), and a full checkpoint disk only
                // keeps epochs from committing: with nothing else injected, no rank had to be replaced.
                problems.add("stopped with " + code + " though no node was lost, only daemons crashed or the disk was full ("
                        + said(first.output()) + ")");
            }
            long resumeAt = ChaosChecks.lastCommittedIteration(ClusterJob.jobDirectory(checkpoints, id));
            Optional<String> unhealthy = nodes.repairAndAwaitHealthy();
            if (unhealthy.isPresent()) {
                problems.add("no relaunch: the cluster is not one healthy group: " + unhealthy.get());
            } else {
                ChaosJob second = start(plan.kind(), id, plan.computeNodes());
                Attempt again = finish(second);
                relaunch = (again.exitCode() == null ? "-" : again.exitCode()) + String.format("/%.0fs", again.wallSeconds());
                checkAttempt(again, nodes.awaitNothingLeft(), problems, "relaunch: ");
                long resumedAt = program.firstIteration(again.output());
                Optional<String> wrongAgain = program.wrongResult(again.output(), reference);
                if (again.exitCode() == null || again.exitCode() != 0) {
                    problems.add("relaunch: exit " + again.exitCode() + " (" + said(again.output()) + ")");
                } else if (program.resumesAtCommittedIteration && resumedAt != resumeAt) {
                    problems.add("relaunch: first iteration " + resumedAt + ", not the last committed epoch's " + resumeAt);
                } else if (wrongAgain.isPresent()) {
                    problems.add("relaunch: " + wrongAgain.get());
                }
                problems.addAll(ChaosChecks.resumesFromUncommittedEpochs(second));
                resumed = "stopped: " + said(first.output()).replaceFirst("^mpirun-ft: ", "") + "; the relaunch "
                        + (program.resumesAtCommittedIteration ? "resumed at iteration " + resumeAt : "started at iteration " + resumedAt);
                keep(id + ".relaunch", again.output());
            }
            outcome = problems.isEmpty() ? Outcome.STOPPED_RESUMED : Outcome.FAILED;
        }
        outcomes.merge(outcome, 1, Integer::sum);
        outcomesByKind.computeIfAbsent(plan.kind().label, k -> new LinkedHashMap<>()).merge(outcome, 1, Integer::sum);
        String detail = problems.isEmpty() ? resumed : String.join("; ", problems);
        String row = String.format("%-4d %-11s %6d  %-16s %4s  %6.1f  %-8s  %s", plan.number(), plan.kind().label, injected,
                outcome.name().toLowerCase().replace('_', '-'), code == null ? "-" : code.toString(), first.wallSeconds(), relaunch, detail);
        write(row);
        if (outcome == Outcome.FAILED) {
            failures.add("job " + plan.number() + " (seed " + options.seed + ", --from-job " + plan.number() + " --jobs 1): " + detail);
            keepFailure(id, job, first);
        }
        return true;
    }

    /** One attempt of job {@code id}: its event log in the scratch directory, which the nodes share and a full disk does not reach. */
    private ChaosJob start(ChaosPlan.Kind kind, String id, List<String> computeNodes) throws IOException {
        String hosts = String.join(":1,", computeNodes) + ":1,spare1:1,spare2:1";
        Path eventLog = Files.createDirectories(options.scratch.resolve("events")).resolve(id + ".jsonl");
        return kind.program.start(nodes.cluster, options.scratch, checkpoints, id, kind.options, hosts, eventLog);
    }

    /** The checkpoint directory's size, 0 if it cannot be read. */
    private long checkpointDiskBytes() {
        try {
            return Files.getFileStore(checkpoints).getTotalSpace();
        } catch (IOException e) {
            return 0;
        }
    }

    /**
     * Waits for the job's end within {@link #ATTEMPT_BOUND_SECONDS} of its start. Past it the job is
     * killed on every node (the daemons' kill-job and mpirun's SIGKILL) and mpirun-ft gets
     * {@link #AFTER_KILL_BOUND_SECONDS} more to end; the attempt counts as not ended either way.
     */
    private Attempt finish(ChaosJob job) throws Exception {
        long left = ATTEMPT_BOUND_SECONDS - (System.nanoTime() - job.startedNanos()) / 1_000_000_000L;
        Integer code;
        try {
            code = job.exitCode(Math.max(1, left));
        } catch (TimeoutException e) {
            code = null;
            try {
                nodes.cluster.exec("head", "ftd", "kill-job", job.id());
            } catch (RuntimeException refused) {
                System.err.println("chaos: kill-job " + job.id() + ": " + refused.getMessage());
            }
            nodes.killLeftovers(nodes.jobProcesses());
            try {
                job.exitCode(AFTER_KILL_BOUND_SECONDS);
            } catch (TimeoutException still) {
                System.err.println("chaos: mpirun-ft of " + job.id() + " still runs " + AFTER_KILL_BOUND_SECONDS + " s after the job was killed");
                job.abandon();
            }
        }
        double wall = (System.nanoTime() - job.startedNanos()) / 1e9;
        longestAttempt = Math.max(longestAttempt, wall);
        return new Attempt(code, wall, job.output());
    }

    private void checkAttempt(Attempt attempt, List<ChaosCluster.Leftover> left, List<String> problems, String prefix) throws Exception {
        if (attempt.wallSeconds() > ATTEMPT_BOUND_SECONDS) {
            problems.add(prefix + String.format("ran %.1f s, past the %d s bound", attempt.wallSeconds(), ATTEMPT_BOUND_SECONDS));
        }
        if (!left.isEmpty()) {
            problems.add(prefix + "left running " + ChaosCluster.LEFTOVER_BOUND_MILLIS / 1000 + " s after the exit: " + left);
            nodes.killLeftovers(left);
        }
    }

    private void checkMinority(ChaosJob job, ChaosFaults faults, List<String> problems) throws IOException {
        List<JsonNode> decisions;
        try {
            decisions = job.events().stream().filter(e -> e.path("type").asText().equals("decision")).toList();
        } catch (IOException | RuntimeException e) {
            decisions = List.of();
        }
        for (ChaosFaults.Split split : faults.splits) {
            MinorityOrders.Finding finding = MinorityOrders.check(nodes.nodesDirectory(), split.minority(), job.id(), split.at(),
                    split.healedAt(), decisions);
            splitsChecked++;
            minorityDecisions += finding.minorityDecisions().size();
            problems.addAll(finding.violations());
        }
    }

    /** mpirun-ft's own one-line verdict, if it printed one. */
    private static String said(String output) {
        return output.lines().filter(l -> l.startsWith("mpirun-ft: ")).reduce((a, b) -> b).orElse("no mpirun-ft line");
    }

    /** A failed job's output, event log and every daemon's log, under the campaign's log directory (kept out of git). */
    private void keepFailure(String id, ChaosJob job, Attempt first) throws IOException {
        Path dir = options.logs.resolve(id);
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("output.txt"), first.output());
        if (Files.exists(job.eventLog())) {
            Files.copy(job.eventLog(), dir.resolve("events.jsonl"), StandardCopyOption.REPLACE_EXISTING);
        }
        for (String node : nodes.allNodes) {
            Path log = nodes.nodesDirectory().resolve(node).resolve("ftd.log");
            if (Files.exists(log)) {
                Files.copy(log, dir.resolve(node + "-ftd.log"), StandardCopyOption.REPLACE_EXISTING);
            }
            // Open MPI's node daemons' own logs of the job: what a rank's exit status or a spawn failure left there.
            Path prted = nodes.nodesDirectory().resolve(node).resolve("ftd-state/logs");
            if (Files.isDirectory(prted)) {
                try (Stream<Path> logs = Files.list(prted)) {
                    for (Path p : logs.filter(p -> p.getFileName().toString().startsWith("prted-" + id + "-")).toList()) {
                        Files.copy(p, dir.resolve(node + "-" + p.getFileName()), StandardCopyOption.REPLACE_EXISTING);
                    }
                }
            }
        }
        Path relaunch = options.logs.resolve(id + ".relaunch.out");
        if (Files.exists(relaunch)) {
            Files.move(relaunch, dir.resolve("relaunch-output.txt"), StandardCopyOption.REPLACE_EXISTING);
        }
    }

    /** A relaunch's output, until the job is judged: moved into the job's directory if it failed, deleted at the end otherwise. */
    private void keep(String name, String output) throws IOException {
        Files.writeString(options.logs.resolve(name + ".out"), output);
    }

    private void summarize(int ran) throws IOException {
        int faults = faultCounts.values().stream().mapToInt(Integer::intValue).sum();
        write("# summary: " + ran + " jobs, " + faults + " faults injected (cluster actions, by the plan's kind " + faultCounts + "); outcomes "
                + outcomes.entrySet().stream().map(e -> e.getKey().name().toLowerCase().replace('_', '-') + "=" + e.getValue()).toList()
                + "; by kind " + outcomesByKind.entrySet().stream().map(k -> k.getKey() + k.getValue().entrySet().stream()
                        .map(e -> " " + e.getKey().name().toLowerCase().replace('_', '-') + "=" + e.getValue())
                        .collect(java.util.stream.Collectors.joining())).toList());
        write(String.format("# longest attempt %.1f s (bound %d s); splits checked for minority orders: %d, minority decisions seen: %d",
                longestAttempt, ATTEMPT_BOUND_SECONDS, splitsChecked, minorityDecisions));
        try (Stream<Path> kept = Files.list(options.logs)) {
            for (Path relaunch : kept.filter(p -> p.getFileName().toString().endsWith(".relaunch.out")).toList()) {
                Files.delete(relaunch);
            }
        }
        keepDaemonLogs();
        if (failures.isEmpty()) {
            write("# no job failed");
        } else {
            failures.forEach(f -> uncheckedWrite("# FAILED " + f));
            write("# the failed jobs' output, event logs and daemon logs: " + options.logs);
        }
    }

    /** Every daemon's log, for what the table cannot say (who led, what the minority decided); bulk, kept out of git. */
    private void keepDaemonLogs() throws IOException {
        Path daemons = options.logs.resolve("daemons");
        Files.createDirectories(daemons);
        for (String node : nodes.allNodes) {
            Path log = nodes.nodesDirectory().resolve(node).resolve("ftd.log");
            if (Files.exists(log)) {
                Files.copy(log, daemons.resolve(node + "-ftd.log"), StandardCopyOption.REPLACE_EXISTING);
            }
        }
    }

    private void uncheckedWrite(String line) {
        try {
            write(line);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** Appends a line to the results file and prints it: a campaign cut short keeps what it found. */
    private void write(String line) throws IOException {
        System.out.println(line);
        Files.writeString(options.results, line + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }

    /** The command's options, as scripts/chaos passes them. */
    record Options(String cluster, long seed, Duration duration, int jobs, int fromJob, Path results, Path logs, Path scratch, String command) {
        static Options parse(String[] args) {
            Map<String, String> values = new LinkedHashMap<>();
            for (int i = 0; i < args.length; i += 2) {
                if (!args[i].startsWith("--") || i + 1 >= args.length) {
                    throw new IllegalArgumentException("expected --option value pairs, got '" + args[i] + "'");
                }
                values.put(args[i].substring(2), args[i + 1]);
            }
            for (String required : List.of("cluster", "seed", "duration", "results", "logs", "scratch")) {
                if (!values.containsKey(required)) {
                    throw new IllegalArgumentException("--" + required + " is required");
                }
            }
            return new Options(values.get("cluster"), number(values, "seed", 0), duration(values.get("duration")),
                    (int) number(values, "jobs", 0), (int) number(values, "from-job", 1), Path.of(values.get("results")),
                    Path.of(values.get("logs")), Path.of(values.get("scratch")), values.getOrDefault("command", "scripts/chaos"));
        }

        private static long number(Map<String, String> values, String key, long min) {
            String text = values.getOrDefault(key, key.equals("jobs") ? "0" : "1");
            try {
                long value = Long.parseLong(text);
                if (value < min) {
                    throw new IllegalArgumentException("--" + key + " must be at least " + min + ", got " + text);
                }
                return value;
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("--" + key + " must be a whole number, got '" + text + "'");
            }
        }

        /** 90s, 10m, 2h. */
        static Duration duration(String text) {
            Matcher m = Pattern.compile("([1-9][0-9]*)([smh])").matcher(text);
            if (!m.matches()) {
                throw new IllegalArgumentException("--duration must be a whole number with s, m or h (90s, 10m, 2h), got '" + text + "'");
            }
            long n = Long.parseLong(m.group(1));
            return switch (m.group(2)) {
                case "s" -> Duration.ofSeconds(n);
                case "m" -> Duration.ofMinutes(n);
                default -> Duration.ofHours(n);
            };
        }
    }
}
