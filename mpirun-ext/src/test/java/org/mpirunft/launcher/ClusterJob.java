package org.mpirunft.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.mpirunft.bridge.pause.RollbackRank;
import org.mpirunft.bridge.resize.BlocksRank;
import org.mpirunft.common.MpirunSettings;
import org.mpirunft.common.PrivateDirectories;
import org.mpirunft.daemon.DaemonClient;
import org.mpirunft.launcher.cli.CliContext;
import org.mpirunft.launcher.cli.MpirunFtCli;
import org.mpirunft.testkit.MpiJobs;
import org.mpirunft.testkit.Pacing;
import org.mpirunft.testkit.SimulatedCluster;

/**
 * One mpirun-ft job of {@link RollbackRank} on a simulated cluster with the real node daemons:
 * mpirun-ft runs in this JVM against the head node's daemon, mpirun runs on the head node.
 * The program's output and the event log are what the tests judge.
 */
final class ClusterJob {
    static final Pattern RESULT = Pattern.compile("(?m)^RESULT bits=(\\S+) value=\\S+ (?:ranks=\\d+ )?recoveries=(\\d+)");
    private static final Pattern WHERE = Pattern.compile("(?m)^(START|END) rank=(\\d) pid=(\\d+) host=(\\S+)");
    static final long BOUND_SECONDS = 240;
    /**
     * Where the files that unpace jobs are ({@link Pacing}): a directory every user's rank can
     * look into (MultiUserIT's ranks run as ordinary users), as the repository is.
     */
    private static final Path UNPACED = SimulatedCluster.repoRoot().resolve("mpirun-ext/target/it-unpaced");
    /**
     * The test programs' rank JVMs: a few seconds of small arithmetic each, where C2's compiles
     * and G1's threads cost more CPU than they save (the daemon's own choice, bin/ftd). A job's
     * warm spares run the same command; the bits do not depend on the compiler.
     */
    static final List<String> RANK_JVM = List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC");

    /**
     * What {@link RollbackRank} runs: doubles per rank, iterations, sleep per iteration in ms.
     * Each iteration talks to every rank, so a lost or hung one stops the others at once.
     * {@code main} may be {@link BlocksRank} instead, whose first argument is a global length.
     */
    record Program(int doubles, int iterations, int paceMillis, Class<?> main) {
        Program(int doubles, int iterations, int paceMillis) {
            this(doubles, iterations, paceMillis, RollbackRank.class);
        }

        /** Long enough to lose a node at iteration 12, heal and look: most tests. */
        static final Program SHORT = new Program(1000, 40, 150);
        /** For a test with a second event late in the run (a second or third loss, a move after a move). */
        static final Program LONG = new Program(1000, 80, 150);

        List<String> args(Path unpacedWhen) {
            return List.of(Integer.toString(doubles), Integer.toString(iterations), Integer.toString(paceMillis),
                    Pacing.unpacedWhen(unpacedWhen));
        }
    }

    private final SimulatedCluster cluster;
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    /** Each output line with the System.nanoTime() it was complete at. */
    private final List<TimedLine> lines = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final CompletableFuture<Integer> status;
    final Path eventLog;
    final String id;
    final long startedNanos = System.nanoTime();
    /** The file that unpaces this job's program ({@link #unpace}); null if it runs none of ours. */
    private final Path unpacedWhen;

    private ClusterJob(SimulatedCluster cluster, String id, List<String> args, Path eventLog, Path unpacedWhen) {
        this.cluster = cluster;
        this.id = id;
        this.eventLog = eventLog;
        this.unpacedWhen = unpacedWhen;
        PrintStream both = new PrintStream(new TimingStream(), true, StandardCharsets.UTF_8);
        CliContext context = new CliContext(both, both, null, Map.of(), DaemonClient::new, Optional.empty(), Clock.systemUTC());
        this.status = CompletableFuture.supplyAsync(() -> MpirunFtCli.execute(args.toArray(String[]::new), context), JOB_THREADS);
    }

    /**
     * A thread per job, not the common pool: on 2 cores that pool has one thread, so a job still
     * running past its bound (scripts/chaos goes on after one) would hold the next job's start.
     */
    private static final java.util.concurrent.Executor JOB_THREADS = runnable -> {
        Thread thread = new Thread(runnable, "mpirun-ft-job");
        thread.setDaemon(true);
        thread.start();
    };

    /** Starts {@code job} of {@link Program#SHORT} in {@code recovery} mode, checkpointing every 5 iterations. */
    static ClusterJob start(SimulatedCluster cluster, Path scratch, String job, String recovery, String... extraOptions)
            throws IOException {
        return start(Program.SHORT, cluster, scratch, job, recovery, extraOptions);
    }

    /** As above, of {@code program}. */
    static ClusterJob start(Program program, SimulatedCluster cluster, Path scratch, String job, String recovery, String... extraOptions)
            throws IOException {
        return start(program, cluster, scratch, job, recovery, 5, extraOptions);
    }

    /** As above, checkpointing every {@code checkpointEvery} iterations; 0: only as the options say. */
    static ClusterJob start(SimulatedCluster cluster, Path scratch, String job, String recovery, int checkpointEvery,
                            String... extraOptions) throws IOException {
        return start(Program.SHORT, cluster, scratch, job, recovery, checkpointEvery, extraOptions);
    }

    /** As above, of {@code program}. */
    static ClusterJob start(Program program, SimulatedCluster cluster, Path scratch, String job, String recovery, int checkpointEvery,
                            String... extraOptions) throws IOException {
        return start(program, cluster, scratch, job, recovery, checkpointEvery, checkpointsOf(cluster.name()), extraOptions);
    }

    /** A job's files in {@code checkpoints}: in its user's directory, and the tests run their jobs as root. */
    static Path jobDirectory(Path checkpoints, String job) {
        return userDirectory(checkpoints).resolve(job);
    }

    /** Root's directory in {@code checkpoints} (PrivateDirectories), where the tests' jobs keep their files. */
    static Path userDirectory(Path checkpoints) {
        return PrivateDirectories.ofUser(checkpoints, "root");
    }

    /** The shared checkpoint directory of a cluster's jobs (seen at the same path on the host and the nodes). */
    static Path checkpointsOf(String clusterName) {
        return SimulatedCluster.repoRoot().resolve("mpirun-ext/target/it-checkpoints").resolve(clusterName);
    }

    /** As above, with the shared checkpoint directory given: a job relaunched on another cluster resumes from it. */
    static ClusterJob start(SimulatedCluster cluster, Path scratch, String job, String recovery, int checkpointEvery,
                            Path checkpoints, String... extraOptions) throws IOException {
        return start(Program.SHORT, cluster, scratch, job, recovery, checkpointEvery, checkpoints, extraOptions);
    }

    /** As above, of {@code program}. */
    static ClusterJob start(Program program, SimulatedCluster cluster, Path scratch, String job, String recovery, int checkpointEvery,
                            Path checkpoints, String... extraOptions) throws IOException {
        return startFrom(program, "head", cluster, scratch, job, recovery, checkpointEvery, checkpoints, extraOptions);
    }

    /**
     * As above, launched from {@code node}: mpirun-ft talks to that node's daemon and mpirun runs
     * there, as when mpirun-ft runs on a node (an sbatch script's); a node that runs ranks too gets
     * them from mpirun itself.
     */
    static ClusterJob startFrom(String node, SimulatedCluster cluster, Path scratch, String job, String recovery, int checkpointEvery,
                                Path checkpoints, String... extraOptions) throws IOException {
        return startFrom(Program.SHORT, node, cluster, scratch, job, recovery, checkpointEvery, checkpoints, extraOptions);
    }

    static ClusterJob startFrom(Program program, String node, SimulatedCluster cluster, Path scratch, String job, String recovery,
                                        int checkpointEvery, Path checkpoints, String... extraOptions) throws IOException {
        return startFrom(program, List.of(), node, cluster, scratch, job, recovery, checkpointEvery, checkpoints, extraOptions);
    }

    /** As above, with {@code programOptions} after the program's own arguments. */
    private static ClusterJob startFrom(Program program, List<String> programOptions, String node, SimulatedCluster cluster, Path scratch,
                                        String job, String recovery, int checkpointEvery, Path checkpoints, String... extraOptions)
            throws IOException {
        List<String> options = new ArrayList<>(List.of("--recovery", recovery));
        if (checkpointEvery > 0) {
            // The one checkpoint knob: registered with the job, carried out by the scheduler's standing order.
            options.addAll(List.of("--checkpoint-interval", "every " + checkpointEvery));
        }
        options.addAll(List.of(extraOptions));
        Path unpacedWhen = UNPACED.resolve(job);
        Files.createDirectories(UNPACED);
        Files.deleteIfExists(unpacedWhen);
        List<String> args = new ArrayList<>(program.args(unpacedWhen));
        args.addAll(programOptions);
        return launch(node, cluster, scratch, job, checkpoints, options, MpiJobs.java(RANK_JVM, program.main(), args.toArray(String[]::new)),
                unpacedWhen);
    }

    /**
     * Ends the program's pacing for the rest of the run: what a test does once it has done what
     * the pacing gave it time for. The result does not change, only how soon it comes. Nothing
     * for a job that runs no paced program.
     */
    void unpace() throws IOException {
        if (unpacedWhen != null && !Files.exists(unpacedWhen)) {
            Files.createFile(unpacedWhen);
        }
    }

    /**
     * Any {@code program} (a C program, a Java one on Open MPI's bindings alone), from the head
     * node, with mpirun-ft's defaults beyond the cluster's plumbing (its daemon, mpirun, the
     * launch agent, the checkpoint directory, as a site config gives them): pause mode, warm
     * spares as the program allows, no checkpoint interval of its own, {@code --spares 1}.
     */
    static ClusterJob startProgram(SimulatedCluster cluster, Path scratch, String job, List<String> program, String... options)
            throws IOException {
        return launch("head", cluster, scratch, job, checkpointsOf(cluster.name()), List.of(options), program, null);
    }

    private static ClusterJob launch(String node, SimulatedCluster cluster, Path scratch, String job, Path checkpoints, List<String> options,
                                     List<String> program, Path unpacedWhen) throws IOException {
        Path socket = cluster.stateDirectory().resolve("nodes/" + node + "/ftd.sock");
        List<String> args = new ArrayList<>(List.of("--socket", socket.toString(), "--mpirun", mpirunOn(node, cluster, scratch).toString(),
                "--agent", SimulatedCluster.FTD_AGENT,
                "--checkpoint-dir", checkpoints.toString(), "--job", job, "--spares", "1",
                "--exit-timeout", "15s"));
        args.addAll(options);
        if (!args.contains("-np")) {
            args.addAll(List.of("-np", "4"));
        }
        args.addAll(MpirunSettings.SHARED_CORES.argv());
        args.addAll(program);
        // An --event-log of the caller's (scripts/chaos keeps it off the checkpoint disk it fills), else mpirun-ft's default.
        int given = options.indexOf("--event-log");
        Path eventLog = given >= 0 && given + 1 < options.size() ? Path.of(options.get(given + 1))
                : jobDirectory(checkpoints, job).resolve(LaunchSettings.EVENT_LOG_NAME);
        return new ClusterJob(cluster, job, args, eventLog, unpacedWhen);
    }

    record TimedLine(long nanos, String text) {
    }

    /** Keeps the bytes and stamps each line as it completes. */
    private final class TimingStream extends java.io.OutputStream {
        private final ByteArrayOutputStream line = new ByteArrayOutputStream();

        @Override
        public synchronized void write(int b) {
            if (b == '\n') {
                // Stamped before its newline reaches the output: a line await() found is in lines.
                lines.add(new TimedLine(System.nanoTime(), line.toString(StandardCharsets.UTF_8)));
                line.reset();
            } else {
                line.write(b);
            }
            out.write(b);
        }
    }

    /** The first line matching {@code regex} that came after {@code afterNanos}. */
    Optional<TimedLine> firstLineAfter(long afterNanos, String regex) {
        Pattern pattern = Pattern.compile(regex);
        return lines.stream().filter(l -> l.nanos() > afterNanos && pattern.matcher(l.text()).find()).findFirst();
    }

    /** The output lines completed after {@code afterNanos}, in order. */
    List<TimedLine> linesAfter(long afterNanos) {
        return lines.stream().filter(l -> l.nanos() > afterNanos).toList();
    }

    boolean ended() {
        return status.isDone();
    }

    String output() {
        return out.toString(StandardCharsets.UTF_8);
    }

    /**
     * Waits up to {@code seconds} until the output has a line matching {@code regex}; returns the
     * match. Only whole lines count while the job runs: the output grows a byte at a time, and a
     * pattern matched on a line still being written (a prefix, or {@code ^ITER 1$} on the first
     * half of {@code ITER 12}) would return before the line is there.
     */
    Matcher await(String regex, long seconds) throws InterruptedException {
        Pattern pattern = Pattern.compile("(?m)" + regex);
        long deadline = System.nanoTime() + seconds * 1_000_000_000L;
        while (System.nanoTime() < deadline) {
            boolean ended = status.isDone();
            String text = output();
            Matcher m = pattern.matcher(ended ? text : text.substring(0, text.lastIndexOf('\n') + 1));
            if (m.find()) {
                return m;
            }
            if (ended) {
                break;
            }
            Thread.sleep(20);
        }
        throw new AssertionError((status.isDone() ? "the job ended" : "timed out after " + seconds + " s") + " before printing /"
                + regex + "/; the daemons' decisions:\n" + cluster.daemonDigest(80, 240)
                + "\noutput without ITER lines:\n" + output().replaceAll("(?m)^ITER \\d+\n", "") + "\nevents:\n" + eventsText());
    }

    Matcher await(String regex) throws InterruptedException {
        return await(regex, BOUND_SECONDS);
    }

    String eventsText() {
        try {
            return Files.exists(eventLog) ? Files.readString(eventLog) : "(no event log)";
        } catch (IOException e) {
            return "(event log unreadable: " + e.getMessage() + ")";
        }
    }

    /**
     * The failure-free bits of each program, by iteration count, once per test JVM: every run of
     * it on 4 ranks, on any cluster, at any pace, has the same bits.
     */
    private static final Map<Recurrence, Map<Integer, String>> REFERENCE_BITS = new HashMap<>();
    /**
     * The iteration counts of {@link RollbackRank} programs the module's tests compare with: one
     * failure-free run to the largest prints the bits of every one ({@code checksums-at}), where
     * a run each would cost a job start each.
     */
    private static final List<Integer> REFERENCE_POINTS = List.of(Program.SHORT.iterations(), Program.LONG.iterations(),
            DaemonCrashIT.PROGRAM.iterations());
    private static final Pattern RESULT_AT = Pattern.compile("(?m)^RESULT@(\\d+) bits=(\\S+)$");

    /** What a program's bits depend on: not its pace, and not its iteration count, which a reference run covers several of. */
    private record Recurrence(int doubles, Class<?> main) {
    }

    /** The bits of a failure-free run of {@link Program#SHORT}. */
    static String referenceBits(SimulatedCluster cluster, Path scratch) throws Exception {
        return referenceBits(Program.SHORT, cluster, scratch);
    }

    /**
     * The bits of a failure-free run of {@code program}, checked to exit 0: what recovered runs
     * must match. Run on {@code cluster} the first time, then remembered (each run costs a job).
     */
    static synchronized String referenceBits(Program program, SimulatedCluster cluster, Path scratch) throws Exception {
        Map<Integer, String> known = REFERENCE_BITS.computeIfAbsent(new Recurrence(program.doubles(), program.main()), r -> new HashMap<>());
        String bits = known.get(program.iterations());
        if (bits == null) {
            Program run = program;
            List<String> programOptions = List.of();
            if (program.main() == RollbackRank.class) {
                int last = Math.max(program.iterations(), REFERENCE_POINTS.stream().mapToInt(Integer::intValue).max().orElseThrow());
                run = new Program(program.doubles(), last, program.paceMillis(), program.main());
                programOptions = List.of("checksums-at=" + String.join(",", REFERENCE_POINTS.stream().map(String::valueOf).toList()));
            }
            // No checkpoints: they change no bit, and each one is a commit through the group's log.
            // A name of its own per program: a job name used again on a cluster resumes that job.
            ClusterJob reference = startFrom(run, programOptions, "head", cluster, scratch, "ref-" + run.iterations() + "-" + cluster.name(),
                    "pause", 0, checkpointsOf(cluster.name()), "--checkpoint-interval", "1h");
            // Its bits are all a reference run is for: no pacing from the start.
            reference.unpace();
            assertEquals(0, reference.exitCode(), reference.output());
            known.put(run.iterations(), reference.resultBits());
            Matcher at = RESULT_AT.matcher(reference.output());
            while (at.find()) {
                known.put(Integer.parseInt(at.group(1)), at.group(2));
            }
            bits = known.get(program.iterations());
        }
        return bits;
    }

    /** The newest epoch the scheduler recorded as committed for this job, as the head node's daemon tells; 0 if none or unreachable. */
    long committedEpoch() {
        try {
            return new DaemonClient(cluster.stateDirectory().resolve("nodes/head/ftd.sock")).status().jobs().stream()
                    .filter(j -> j.job().equals(id)).mapToLong(org.mpirunft.daemon.protocol.ControlReply.JobStatus::committedEpoch)
                    .max().orElse(0);
        } catch (RuntimeException e) {
            return 0;
        }
    }

    /** The node rank {@code rank} started on. */
    String startNodeOf(int rank) throws InterruptedException {
        return await("^START rank=" + rank + " pid=\\d+ host=(\\S+)").group(1);
    }

    /** The rank (of the 4) that started on {@code node}; fails the test if none did. */
    int rankStartedOn(String node) throws InterruptedException {
        for (int rank = 0; rank < 4; rank++) {
            if (startNodeOf(rank).equals(node)) {
                return rank;
            }
        }
        throw new AssertionError("no rank started on " + node + ": " + output());
    }

    /** Kills the whole node rank {@code rank} started on once the job printed iteration {@code iteration}: a node lost mid-run. */
    void killStartNodeOf(SimulatedCluster cluster, int rank, int iteration) throws InterruptedException {
        String node = startNodeOf(rank);
        await("^ITER " + iteration + "$");
        cluster.kill(node);
    }

    /** Waits for the end; asserts that mpirun-ft exited 0 with {@code reference}'s bits (the failure-free run's); returns the output. */
    String assertEndedWithBits(String reference) throws Exception {
        int code = exitCode();
        String output = output();
        assertEquals(0, code, output);
        assertEquals(reference, resultBits(), "the result must be bit-identical to the failure-free run's");
        return output;
    }

    /**
     * mpirun-ft's exit code, once it ended; the program is unpaced for the wait ({@link #unpace}).
     * The job's output and event log are kept under
     * {@code target/it-jobs/JOB.*}, since the test's scratch directory goes with the test: they
     * are what tells why a run went as it did.
     */
    int exitCode() throws Exception {
        unpace();
        return exitCode(BOUND_SECONDS);
    }

    /**
     * As {@link #exitCode()}, waiting at most {@code boundSeconds}: past it, a {@link java.util.concurrent.TimeoutException}.
     * The program stays paced: for a test that looks at the whole run's rhythm, or that still acts on the job meanwhile.
     */
    int exitCode(long boundSeconds) throws Exception {
        try {
            return status.get(boundSeconds, TimeUnit.SECONDS);
        } finally {
            Path kept = SimulatedCluster.repoRoot().resolve("mpirun-ext/target/it-jobs");
            Files.createDirectories(kept);
            Files.writeString(kept.resolve(id + ".out"), output());
            if (Files.exists(eventLog)) {
                Files.copy(eventLog, kept.resolve(id + ".events.json"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            }
        }
    }

    String resultBits() {
        return resultBitsOf(output());
    }

    /** The bits of the RESULT line in a job's {@code output}. */
    static String resultBitsOf(String output) {
        Matcher m = RESULT.matcher(output);
        assertTrue(m.find(), "no RESULT line: " + output);
        return m.group(1);
    }

    /** {@code START}/{@code END} + rank to {pid, host}. */
    Map<String, String[]> whereRanksRan() {
        Map<String, String[]> where = new HashMap<>();
        Matcher line = WHERE.matcher(output());
        while (line.find()) {
            where.put(line.group(1) + line.group(2), new String[] {line.group(3), line.group(4)});
        }
        return where;
    }

    /** Every rank but {@code lost} ended in the process it started in; {@code lost} ended on {@code spare}. */
    void assertReplacedOnlyRank(int lost, String spare) {
        Map<String, String[]> where = whereRanksRan();
        for (int rank = 0; rank < 4; rank++) {
            assertTrue(where.containsKey("START" + rank) && where.containsKey("END" + rank), "START/END of rank " + rank + ": " + output());
            if (rank != lost) {
                assertEquals(where.get("START" + rank)[0], where.get("END" + rank)[0], "rank " + rank + " keeps its process");
            }
        }
        assertEquals(spare, where.get("END" + lost)[1], "rank " + lost + " replaced on the spare");
    }

    List<JsonNode> events() throws IOException {
        return EventLog.read(eventLog);
    }

    List<String> eventTypes() throws IOException {
        return events().stream().map(e -> e.get("type").asText()).toList();
    }

    void printEvents(String title) throws IOException {
        System.out.println(title + ": events " + eventTypes());
        events().forEach(e -> System.out.println("  " + e));
    }

    /**
     * mpirun on the head node, with the job's name for the daemons that start its node daemons.
     * It runs Open MPI's mpirun by its absolute path ({@code $MPI_HOME/bin/mpirun}), so PRRTE
     * prefixes its node daemons' command with its environment, as it does for users who do so.
     */
    private static Path mpirunOn(String node, SimulatedCluster cluster, Path scratch) throws IOException {
        Path script = scratch.resolve("mpirun-" + cluster.name() + "-" + node);
        Files.writeString(script, "#!/usr/bin/env bash\nexec env MPIRUN_FT_CLUSTER=" + cluster.name() + " "
                + SimulatedCluster.repoRoot().resolve("scripts/cluster")
                + " exec " + node + " -e MPIRUN_FT_JOB=\"$MPIRUN_FT_JOB\" -e MPIRUN_FT_RANK_SOCKET=\"${MPIRUN_FT_RANK_SOCKET:-}\""
                + " -- sh -c 'exec \"$MPI_HOME/bin/mpirun\" \"$@\"' mpirun \"$@\"\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
        return script;
    }

    /** The number of the last {@code ITER n} line in {@code output} ({@code iter}'s first group), -1 if none. */
    static int lastIteration(Pattern iter, String output) {
        int last = -1;
        Matcher m = iter.matcher(output);
        while (m.find()) {
            last = Integer.parseInt(m.group(1));
        }
        return last;
    }
}
