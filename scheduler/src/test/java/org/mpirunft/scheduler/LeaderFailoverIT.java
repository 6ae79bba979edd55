package org.mpirunft.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpirunft.membership.Await;
import org.mpirunft.scheduler.cli.NodeLine;
import org.mpirunft.scheduler.internal.JobTableStore;
import org.mpirunft.scheduler.loopback.SchedulerCluster;
import org.mpirunft.scheduler.loopback.SchedulerNodeProcess;

/**
 * Three node daemons as real JVMs on loopback (FAST membership timeouts). n1 leads; the job's
 * mpirun-ft is on n3, which also plays the launcher (commits each checkpoint it is ordered).
 * n1 is killed with SIGKILL while it schedules checkpoints every second; n2 must go on ordering
 * them within one interval plus the failure-detection time, with no epoch ordered twice. Then
 * the whole cluster is killed and started again on the same shared directory: the job and its
 * committed epoch are there, and the orders go on from where they were.
 */
class LeaderFailoverIT {
    private static final Duration INTERVAL = Duration.ofSeconds(1);
    /**
     * FAST profile: a killed process is caught by FD_SOCK2 (its socket closes) plus VERIFY_SUSPECT2,
     * a few hundred ms; the worst case, a missed socket close, is FD_ALL's heartbeat timeout plus
     * verification, 2 s + 0.1 s.
     */
    private static final Duration DETECTION_BOUND = Duration.ofMillis(2_100);
    /** The new leader's synchronization, a tick (100 ms), and three JVMs sharing two busy cores. */
    private static final Duration SLACK = Duration.ofMillis(1_500);
    private static final Duration WAIT = Duration.ofSeconds(30);

    @TempDir
    Path dir;

    private final List<SchedulerCluster> clusters = new ArrayList<>();

    @AfterEach
    void killEverything() {
        clusters.forEach(SchedulerCluster::close);
    }

    @Test
    void checkpointsContinueUnderTheNewLeaderWithinOneIntervalWhenTheLeaderIsKilledAndSurviveAWholeClusterRestart()
            throws Exception {
        SchedulerCluster cluster = start(true);
        SchedulerNodeProcess n1 = cluster.node("n1");
        SchedulerNodeProcess n2 = cluster.node("n2");
        SchedulerNodeProcess n3 = cluster.node("n3");
        n3.send("register job n3 n2,n3");
        await(n3, l -> l.event().equals("OK") && l.detail().startsWith("register job"), "the registration is applied");
        await(n3, nth(3, l -> isCheckpoint(l) && "n1".equals(l.leader())), "three checkpoint orders under n1");

        long killedAt = System.nanoTime();
        n1.killNow();
        NodeLine detected = await(n2, l -> l.event().equals("MEMBERSHIP") && "NODE_FAILED n1".equals(l.detail()),
                "n2 sees n1 fail");
        NodeLine first = await(n3, l -> isCheckpoint(l) && "n2".equals(l.leader()) && l.monoNanos() > killedAt,
                "a checkpoint order under n2");
        long lastBefore = n3.lines("CHECKPOINT").stream().mapToLong(NodeLine::monoNanos).filter(t -> t < killedAt).max().orElseThrow();
        double detectionMs = (detected.monoNanos() - killedAt) / 1e6;
        double killToOrderMs = (first.monoNanos() - killedAt) / 1e6;
        double detectionToOrderMs = (first.monoNanos() - detected.monoNanos()) / 1e6;
        System.out.printf(java.util.Locale.ROOT, "leader n1 killed: failure detected at n2 after %.0f ms; first order under n2 "
                        + "(epoch %d) %.0f ms after the kill, %.0f ms after detection; %.0f ms since the last order under n1%n",
                detectionMs, first.epoch(), killToOrderMs, detectionToOrderMs, (first.monoNanos() - lastBefore) / 1e6);
        Duration bound = INTERVAL.plus(DETECTION_BOUND).plus(SLACK);
        assertTrue(killToOrderMs <= bound.toMillis(), "first order under the new leader " + killToOrderMs
                + " ms after the kill, bound " + bound.toMillis() + " ms (interval + detection + slack)");
        assertTrue(detectionToOrderMs <= INTERVAL.plus(SLACK).toMillis(), "first order " + detectionToOrderMs
                + " ms after the failure was detected, bound " + INTERVAL.plus(SLACK).toMillis() + " ms");

        await(n3, nth(3, l -> isCheckpoint(l) && "n2".equals(l.leader())), "three orders under n2");
        assertEpochsStrictlyIncreasing(n3.lines("CHECKPOINT"));
        assertTrue(n3.lines("PAUSE").isEmpty() && n3.lines("STOP").isEmpty(), "n1 ran no rank: nothing to recover");

        // The whole cluster dies; each node's copy of the log is left (n1's is behind: it died first), and the table file.
        long lastOrdered = n3.lines("CHECKPOINT").getLast().epoch();
        JobTableStore store = new JobTableStore(JobTableStore.directoryIn(dir.resolve("shared")), "test");
        Await.waitUntil(WAIT, () -> committedInFile(store) >= lastOrdered,
                () -> "the table on disk reaches committed epoch " + lastOrdered + ", has " + committedInFile(store));
        cluster.close();
        JobRecord saved = store.load().orElseThrow().jobs().getFirst();
        System.out.println("after killing every node, the table on disk has " + saved);

        SchedulerCluster again = start(false);
        long orderedAfterRestart = 0;
        for (SchedulerNodeProcess node : again.nodes()) {
            // A node replays its own log, then catches up from the leader: n1's own copy ends where it died.
            JobRecord job = null;
            long deadline = System.nanoTime() + WAIT.toNanos();
            while (job == null || job.committedEpoch() != saved.committedEpoch() && System.nanoTime() < deadline) {
                long asked = System.nanoTime();
                node.send("table");
                NodeLine table = await(node, l -> l.event().equals("TABLE") && l.monoNanos() >= asked, node.name() + "'s table");
                job = table.jobs().stream().filter(j -> j.job().equals("job")).findFirst().orElseThrow(
                        () -> new AssertionError(node.name() + " lost the job: " + table.jobs()));
                if (job.committedEpoch() != saved.committedEpoch()) {
                    Thread.sleep(200);
                }
            }
            assertEquals(saved.committedEpoch(), job.committedEpoch(), node.name() + ": committed epoch after the restart");
            assertTrue(job.orderedEpoch() >= saved.orderedEpoch(), node.name() + ": ordered epoch " + job.orderedEpoch());
            orderedAfterRestart = job.orderedEpoch();
        }
        SchedulerNodeProcess launcher = again.node("n3");
        // The ranks go on: the order still open when the cluster died commits (if one was), then each next one does.
        launcher.send("committed job " + orderedAfterRestart + " 5");
        NodeLine next = await(launcher, LeaderFailoverIT::isCheckpoint, "an order after the restart");
        launcher.send("committed job " + next.epoch() + " 5");
        await(launcher, nth(2, LeaderFailoverIT::isCheckpoint), "orders after the restart");
        List<NodeLine> orders = launcher.lines("CHECKPOINT");
        assertTrue(orders.getFirst().epoch() > saved.orderedEpoch(), "orders go on after epoch " + saved.orderedEpoch()
                + ", first was " + orders.getFirst().epoch());
        assertEpochsStrictlyIncreasing(orders);
    }

    /**
     * A request that went to a leader killed before it could act (a rank's failure report, here an
     * order to checkpoint now) reaches the next leader as soon as the requester applies that
     * leader's first entry, not at the requester's next tick. The ticks here are 30 s apart, so
     * only the new leader's entry can bring the request on within the bound. In the simulated
     * cluster the leader's node was lost with a rank on it: its ranks' reports waited out a tick
     * (1 s) and the pause came that much later (RecoveryModesIT).
     */
    @Test
    void aRequestSentToALeaderThatDiedReachesTheNextLeaderOnceItLeads() throws Exception {
        Duration tick = Duration.ofSeconds(30);
        SchedulerCluster cluster = SchedulerCluster.start(SchedulerCluster.builder(dir).tick(tick), Duration.ofSeconds(90));
        clusters.add(cluster);
        SchedulerNodeProcess n1 = cluster.node("n1");
        SchedulerNodeProcess n3 = cluster.node("n3");
        n3.send("register job n3 n2,n3");
        await(n3, l -> l.event().equals("OK") && l.detail().startsWith("register job"), "the registration is applied");
        assertEquals("n1", n3.lines().getLast().leader(), "n1 leads");

        long killedAt = System.nanoTime();
        n1.killNow();
        // At once, while n3 still takes n1 for the leader: the request goes to a dead member.
        n3.send("checkpoint job");
        NodeLine order = await(n3, l -> isCheckpoint(l) && l.monoNanos() > killedAt, "the checkpoint order under the next leader");
        double afterKillMs = (order.monoNanos() - killedAt) / 1e6;
        System.out.printf(java.util.Locale.ROOT, "leader n1 killed as n3 asked it to checkpoint now: ordered under %s %.0f ms after the kill%n",
                order.leader(), afterKillMs);
        assertTrue(!"n1".equals(order.leader()), "ordered by the next leader: " + order.toJson());
        Duration bound = DETECTION_BOUND.plus(SLACK).plus(Duration.ofSeconds(2));
        assertTrue(afterKillMs < bound.toMillis(), "ordered " + afterKillMs + " ms after the kill, bound " + bound.toMillis()
                + " ms (detection, election, slack); the next tick was " + tick.toSeconds() + " s away");
    }

    private SchedulerCluster start(boolean autoCommit) throws Exception {
        SchedulerCluster.Builder builder = SchedulerCluster.builder(dir).tick(Duration.ofMillis(100));
        if (autoCommit) {
            builder.nodeArgs("n3", List.of("--auto-commit"));
        }
        SchedulerCluster cluster = SchedulerCluster.start(builder, Duration.ofSeconds(90));
        clusters.add(cluster);
        return cluster;
    }

    private static long committedInFile(JobTableStore store) {
        try {
            return store.load().flatMap(s -> s.jobs().stream().findFirst()).map(JobRecord::committedEpoch).orElse(-1L);
        } catch (JobTableFileException e) {
            throw new AssertionError("the job table on disk is unreadable: " + e.getMessage(), e);
        }
    }

    private static boolean isCheckpoint(NodeLine line) {
        return line.event().equals("CHECKPOINT");
    }

    /** Matches the line at which {@code n} lines so far matched {@code condition}. */
    private static Predicate<NodeLine> nth(int n, Predicate<NodeLine> condition) {
        int[] seen = new int[1];
        return l -> condition.test(l) && ++seen[0] >= n;
    }

    private static NodeLine await(SchedulerNodeProcess node, Predicate<NodeLine> condition, String what) throws InterruptedException {
        Optional<NodeLine> line = node.await(condition, WAIT);
        return line.orElseThrow(() -> new AssertionError("not within " + WAIT.toSeconds() + " s at " + node.name() + ": " + what
                + "\nlast lines: " + node.lines().stream().skip(Math.max(0, node.lines().size() - 10)).map(NodeLine::toJson).toList()
                + "\nstderr:\n" + node.stderrTail()));
    }

    private static void assertEpochsStrictlyIncreasing(List<NodeLine> orders) {
        List<Long> epochs = orders.stream().map(NodeLine::epoch).toList();
        for (int i = 1; i < epochs.size(); i++) {
            assertTrue(epochs.get(i) > epochs.get(i - 1), "epochs strictly increasing, none ordered twice: " + epochs);
        }
    }
}
