package org.mpirunft.npb.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The failures a run injects into its job, and when: one node killed or its rank moved away
 * ({@code mpirun-ft migrate}) once rank 0 passed the plan's iteration and a checkpoint is
 * committed; the {@code daly} variant's kills at exponentially distributed gaps
 * ({@link FailureSchedule}) and their record ({@link DalyRun}). Points are found by polling the
 * job's event log and output.
 */
final class FailureInjector {
    private static final Duration COMMIT_POLL = Duration.ofMillis(100);
    /** How long {@code mpirun-ft migrate} may take to have the move ordered. */
    private static final Duration MIGRATE_COMMAND_BOUND = Duration.ofSeconds(60);

    /** The nodes a {@code daly} run killed, and why it stopped killing. */
    record Injections(long seed, List<Integer> ranks, List<String> nodes, List<Instant> at, boolean sparesExhausted,
                      String error) {
    }

    /** mpirun-ft, for its migrate command. */
    private final Path launcher;
    private final BenchSettings settings;
    private final Clock clock;
    private final PrintStream out;

    FailureInjector(RunDirectory directory, BenchSettings settings, Clock clock, PrintStream out) {
        this.launcher = directory.launcher();
        this.settings = settings;
        this.clock = clock;
        this.out = out;
    }

    /**
     * The {@code daly} variant's failures: a {@link FailureSchedule} of exponential gaps with mean
     * {@code --mtbf}, counted from the job's start and then from each kill. A kill that falls due
     * waits until a first checkpoint is committed and the previous failure's recovery completed
     * (so none lands in a recovery), and comes before none once the program has printed its
     * result. Each kill uses a spare; when none is left, injection stops and the run records it.
     */
    Injections injectExponentialFailures(RunPlan plan, LauncherJob job, Path eventLog, long deadline,
                                         BenchCluster cluster) throws InterruptedException, IOException {
        long seed = FailureSchedule.seedOf(settings.seed(), plan.repeat());
        FailureSchedule schedule = new FailureSchedule(seed, settings.mtbf());
        List<Integer> ranks = new ArrayList<>();
        List<String> nodes = new ArrayList<>();
        List<Instant> at = new ArrayList<>();
        long due = System.nanoTime() + schedule.nextGap().toNanos();
        while (true) {
            while (System.nanoTime() < due) {
                if (!running(job, deadline)) {
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
                if (!running(job, deadline)) {
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
    private static boolean running(LauncherJob job, long deadline) {
        return job.isAlive() && System.nanoTime() < deadline && new NpbOutput(job.lines()).npbSeconds().isEmpty();
    }

    /** The daly run's record: the injections, each one's recovery, and the cost and interval the event log shows. */
    DalyRun dalyRun(Injections injections, LauncherEvents events) {
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
    String awaitFailurePoint(RunPlan plan, LauncherJob job, Path eventLog, long deadline)
            throws InterruptedException, IOException {
        Optional<TimedLine> reached = job.awaitLine(line -> NpbOutput.iterationOf(line) >= plan.failAfter(),
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
            if (!job.isAlive() || System.nanoTime() > deadline) {
                throw new BenchException("no checkpoint was committed before the job " + (job.isAlive() ? "timed out" : "ended")
                        + " (no failure injected); slow the iterations with --pace-ms");
            }
            Thread.sleep(COMMIT_POLL);
        }
    }

    /** {@code mpirun-ft migrate JOB NODE} on the head node's daemon; returns once the scheduler ordered the move. */
    void migrate(String job, String node, BenchCluster cluster) throws InterruptedException {
        List<String> command = List.of(launcher.toString(), "--socket",
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
}
