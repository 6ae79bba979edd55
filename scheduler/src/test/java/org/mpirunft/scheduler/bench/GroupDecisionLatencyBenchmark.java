package org.mpirunft.scheduler.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.function.Predicate;
import org.mpirunft.common.FileTrees;
import org.mpirunft.scheduler.cli.NodeLine;
import org.mpirunft.scheduler.loopback.SchedulerCluster;
import org.mpirunft.scheduler.loopback.SchedulerNodeProcess;

/**
 * The scheduler's decision latency over a real group: four node daemons as JVMs on loopback
 * (FAST membership timeouts): n1 leads, n2 hosts the jobs' mpirun-ft, s1 is the spare, v1 runs a
 * rank and is killed (SIGKILL) once per round. After the kill, the group is the 3 members n1, n2,
 * s1. Each round registers a job with ranks on n2 and v1, kills v1, waits for the pause at n2,
 * completes the recovery, finishes the job (so s1 is free again) and restarts v1. Measured, all
 * on CLOCK_MONOTONIC of one machine:
 *
 * <ul>
 *   <li><b>decision at the leader</b>: the leader's scheduler gets the failure event until it
 *       applies its RecoveryStarted, which has gone through the JGroups stack and come back
 *       (the leader's own copy of the broadcast): {@code SchedulerService.decisionNanos()};</li>
 *   <li><b>event to pause at the launcher</b>: the leader prints the failure event until the
 *       launcher's daemon (another process) hands out the pause command: replication to the
 *       launcher included;</li>
 *   <li><b>kill to pause</b>: the same from the SIGKILL, so failure detection included.</li>
 * </ul>
 *
 * A command on the test class path, not a test (see README.md):
 * <pre>java -cp "target/test-classes:target/classes:$(cat target/scheduler-test.classpath)" \
 *   org.mpirunft.scheduler.bench.GroupDecisionLatencyBenchmark [rounds] [work-dir]</pre>
 */
public final class GroupDecisionLatencyBenchmark {
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final int WARM_UP_ROUNDS = 2;

    private GroupDecisionLatencyBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 20;
        boolean ownDirectory = args.length <= 1;
        Path work = ownDirectory ? Files.createTempDirectory("group-decision-bench") : Path.of(args[1]);
        try {
            run(rounds, work);
        } finally {
            if (ownDirectory) {
                FileTrees.delete(work); // a directory given on the command line is left to its owner
            }
        }
    }

    private static void run(int rounds, Path work) throws Exception {
        List<Double> decision = new ArrayList<>();
        List<Double> eventToPause = new ArrayList<>();
        List<Double> killToPause = new ArrayList<>();
        SchedulerCluster.Builder builder = SchedulerCluster.builder(work)
                .nodes(List.of("n1", "n2", "s1", "v1"))
                .nodeArgs("s1", List.of("--role", "spare"))
                .config("version: 1\ncheckpoint:\n  interval: 1h\nstorage:\n  shared: " + work.toAbsolutePath().resolve("shared") + "\n")
                .echo(false)
                .verbose(false);
        try (SchedulerCluster cluster = SchedulerCluster.start(builder, Duration.ofSeconds(120))) {
            SchedulerNodeProcess leader = cluster.node("n1");
            SchedulerNodeProcess launcher = cluster.node("n2");
            for (int round = 0; round < rounds; round++) {
                String job = "job" + round;
                launcher.send("register " + job + " n2 n2,v1");
                await(launcher, l -> l.event().equals("OK") && l.detail().startsWith("register " + job));

                long killedAt = System.nanoTime();
                cluster.node("v1").killNow();
                NodeLine pause = await(launcher, l -> l.event().equals("PAUSE") && job.equals(l.job()));
                NodeLine event = await(leader, l -> l.event().equals("MEMBERSHIP") && "NODE_FAILED v1".equals(l.detail())
                        && l.monoNanos() > killedAt);
                leader.send("table");
                int decisions = round + 1;
                NodeLine table = await(leader, l -> l.event().equals("TABLE") && l.decisionNanos().size() >= decisions);

                if (round >= WARM_UP_ROUNDS) {
                    decision.add(table.decisionNanos().getLast() / 1e3);
                    eventToPause.add((pause.monoNanos() - event.monoNanos()) / 1e3);
                    killToPause.add((pause.monoNanos() - killedAt) / 1e3);
                }
                System.out.printf(Locale.ROOT, "round %d: decision at the leader %.0f us, event to pause at the launcher %.0f us,"
                                + " kill to pause %.1f ms%n", round, table.decisionNanos().getLast() / 1e3,
                        (pause.monoNanos() - event.monoNanos()) / 1e3, (pause.monoNanos() - killedAt) / 1e6);

                launcher.send("completed " + job + " " + pause.failureId());
                await(launcher, l -> l.event().equals("OK") && l.detail().startsWith("completed " + job));
                launcher.send("finished " + job);
                await(launcher, l -> l.event().equals("OK") && l.detail().startsWith("finished " + job));
                cluster.restart("v1", WAIT);
            }
        }
        System.out.printf(Locale.ROOT, "group decision latency, 3 members after the kill, %d rounds after %d warm-up:%n"
                        + "  decision at the leader (failure event to RecoveryStarted applied, own broadcast back): %s%n"
                        + "  failure event at the leader to pause at the launcher's daemon: %s%n"
                        + "  SIGKILL to pause at the launcher's daemon (failure detection included): %s%n",
                decision.size(), WARM_UP_ROUNDS, summary(decision, "us"), summary(eventToPause, "us"),
                summary(killToPause.stream().map(us -> us / 1e3).toList(), "ms"));
    }

    private static NodeLine await(SchedulerNodeProcess node, Predicate<NodeLine> condition) throws InterruptedException {
        return node.await(condition, WAIT).orElseThrow(() -> new IllegalStateException(node.name()
                + " did not print the expected line in time; stderr:\n" + node.stderrTail()));
    }

    private static String summary(List<Double> values, String unit) {
        List<Double> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        if (sorted.isEmpty()) {
            return "no samples";
        }
        return String.format(Locale.ROOT, "median %.1f %s, min %.1f, p90 %.1f, max %.1f", sorted.get(sorted.size() / 2), unit,
                sorted.getFirst(), sorted.get(Math.min(sorted.size() - 1, sorted.size() * 9 / 10)), sorted.getLast());
    }
}
