package org.mpirunft.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.mpirunft.common.CheckpointSchedule;
import org.mpirunft.common.JobOwner;
import org.mpirunft.common.NoSpareAction;
import org.mpirunft.membership.ClusterView;
import org.mpirunft.membership.Member;
import org.mpirunft.membership.MembershipEvent;
import org.mpirunft.membership.NodeLoad;
import org.mpirunft.membership.NodeMetadata;
import org.mpirunft.scheduler.config.SchedulerConfig;
import org.mpirunft.scheduler.policy.LeastLoadedSpare;
import org.mpirunft.scheduler.policy.Placement;

/**
 * Three scheduler replicas (the daemons d1, d2, d3) over an in-memory ordered bus, with a
 * deterministic clock. The jobs' launcher runs on d3; what d3's replica hands out as transitions
 * is what mpirun-ft would act on (keyed as it acts: once per checkpoint order, failure, stop). (Partial delivery when a
 * leader crashes is in {@code internal.SchedulerServiceTest}.)
 */
class SchedulerCoreTest {
    private static final InetSocketAddress CONTROL = InetSocketAddress.createUnresolved("localhost", 7000);
    private static final Member D1 = compute("d1");
    private static final Member D2 = compute("d2");
    private static final Member D3 = compute("d3");
    private static final Member NODE1 = compute("node1");
    private static final Member NODE2 = compute("node2");
    private static final Member SPARE1 = spare("spare1", 0.5);
    private static final Member SPARE2 = spare("spare2", 0.1);

    private final AtomicLong clock = new AtomicLong(1_000_000);
    private final Map<String, SchedulerCore> daemons = new LinkedHashMap<>();
    private final List<SchedulerUpdate> log = new ArrayList<>();
    private final Set<String> executed = new LinkedHashSet<>();
    /** The transitions the launcher's daemon d3 acted on (a checkpoint order, a recovery, a stop). */
    private final List<JobTransition> sent = new ArrayList<>();
    /** Every daemon that handed out a checkpoint order, in order. */
    private final List<String> sentBy = new ArrayList<>();
    /** While true, proposals wait in {@link #held} instead of being delivered: a decision on its way through the group. */
    private boolean holding;
    private final List<SchedulerUpdate> held = new ArrayList<>();
    private final Set<String> dropProposalsFrom = new java.util.HashSet<>();
    private long viewId;
    /** The schedule jobs are registered with: the config's interval, as the service resolves it. */
    private CheckpointSchedule schedule = CheckpointSchedule.AUTO;
    private final java.util.Deque<SchedulerUpdate> inFlight = new java.util.ArrayDeque<>();
    private boolean delivering;

    @Test
    void ordersCheckpointsAtTheFixedIntervalFromTheLeaderOnly() {
        start(fixed(Duration.ofMinutes(10)), "d1", "d2", "d3");
        view(D1, D2, D3, NODE1, NODE2, SPARE1);
        register("job", "node1", "node2");
        advance(Duration.ofMinutes(10).minusSeconds(1));
        tickAll();
        assertTrue(executed.isEmpty(), "nothing is due yet: " + executed);
        advance(Duration.ofSeconds(1));
        tickAll();
        assertEquals(Set.of("job/checkpoint/1"), executed);
        served("job", 1);
        advance(Duration.ofMinutes(5));
        tickAll();
        assertEquals(1, executed.size(), "not due again before another interval");
        advance(Duration.ofMinutes(5));
        tickAll();
        assertEquals(Set.of("job/checkpoint/1", "job/checkpoint/2"), executed);
        assertEquals(2, sent.size(), "one transition per order");
        assertEquals(List.of("d1", "d2", "d3", "d1", "d2", "d3"), sentBy, "every daemon hands the order to its own ranks");
        assertTrue(log.stream().allMatch(u -> !(u instanceof SchedulerUpdate.CheckpointOrdered o) || o.atMillis() > 0),
                "orders carry the leader's time");
    }

    @Test
    void anOrderNotYetCommittedHoldsBackTheNextUntilItCommits() {
        start(fixed(Duration.ofSeconds(2)), "d1", "d3");
        view(D1, D3, NODE1, NODE2, SPARE1);
        register("job", "node1", "node2");
        advance(Duration.ofSeconds(2));
        tickAll();
        // The ranks are still starting: more intervals pass without a commit.
        for (int i = 0; i < 3; i++) {
            advance(Duration.ofSeconds(2));
            tickAll();
        }
        assertEquals(Set.of("job/checkpoint/1"), executed, "ranks would serve a second order with the same epoch");
        served("job", 1);
        tickAll();
        assertEquals(Set.of("job/checkpoint/1", "job/checkpoint/2"), executed, "due since long: ordered once the first committed");
        JobRecord job = daemons.get("d3").table().job("job").orElseThrow();
        assertEquals(2, job.orderedEpoch());
        assertEquals(1, job.servedOrder(), "every replica knows which order committed");
        // An epoch the ranks took on their own (no order) does not serve the outstanding one.
        deliver(new SchedulerUpdate.EpochCommitted(SchedulerUpdate.VERSION, "job", 2, 0, 0));
        advance(Duration.ofSeconds(2));
        tickAll();
        assertEquals(2, executed.size(), "order 2 is still outstanding: " + executed);
    }

    @Test
    void anOrderWhoseEpochDidNotCommitIsOverAndTheNextComesAtTheInterval() {
        start(fixed(Duration.ofSeconds(2)), "d1", "d3");
        view(D1, D3, NODE1, NODE2, SPARE1);
        register("job", "node1", "node2");
        advance(Duration.ofSeconds(2));
        tickAll();
        requestAtLeader(new SchedulerUpdate.CheckpointAbandoned(SchedulerUpdate.VERSION, "job", 1, 1, "part 1 not written"));
        JobRecord job = daemons.get("d3").table().job("job").orElseThrow();
        assertFalse(job.orderOutstanding(), "order 1 is over");
        assertEquals(0, job.committedEpoch(), "without a new recovery line");
        advance(Duration.ofSeconds(2));
        tickAll();
        assertEquals(Set.of("job/checkpoint/1", "job/checkpoint/2"), executed);
    }

    @Test
    void aNewLeaderKeepsTheCheckpointRhythm() {
        start(fixed(Duration.ofMinutes(10)), "d1", "d2", "d3");
        view(D1, D2, D3, NODE1, NODE2, SPARE1);
        register("job", "node1", "node2");
        advance(Duration.ofMinutes(10));
        tickAll();
        served("job", 1);
        advance(Duration.ofMinutes(4));
        daemons.remove("d1");
        view(D2, D3, NODE1, NODE2, SPARE1);
        tickAll();
        assertEquals(1, executed.size(), "the new leader waits out the interval begun under the old one");
        advance(Duration.ofMinutes(6));
        tickAll();
        assertEquals(Set.of("job/checkpoint/1", "job/checkpoint/2"), executed);
    }

    @Test
    void leaderDyingInTheMiddleOfARecoveryStillRecoversExactlyOnce() {
        start(fixed(Duration.ofMinutes(10)), "d1", "d2", "d3");
        view(D1, D2, D3, NODE1, NODE2, SPARE1, SPARE2);
        register("job", "node1", "node2");
        fail(NODE2, D1, D2, D3, NODE1, SPARE1, SPARE2);
        assertEquals(Set.of("job/pause/1@node2"), executed, "the leader paused the job");
        // The leader dies before the launcher reports back.
        daemons.remove("d1");
        view(D2, D3, NODE1, SPARE1, SPARE2);
        long pauses = sent.stream().filter(t -> t.update() instanceof SchedulerUpdate.RecoveryStarted).count();
        assertEquals(1, pauses, "the new leader finds the recovery in the table and does not start another");
        assertEquals(Set.of("job/pause/1@node2"), executed);
        requestAtLeader(completed("job", "1@node2", "node1", "spare2"));
        requestAtLeader(completed("job", "1@node2", "node1", "spare2"));
        assertEquals(1, log.stream().filter(u -> u instanceof SchedulerUpdate.RecoveryCompleted).count(),
                "a repeated completion request changes nothing");
        assertEquals(1, log.stream().filter(u -> u instanceof SchedulerUpdate.RecoveryStarted).count(), "one recovery");
        for (SchedulerCore daemon : daemons.values()) {
            JobRecord job = daemon.table().job("job").orElseThrow();
            assertEquals(List.of("node1", "spare2"), job.rankNodes(), "rank 1 moved to the least-loaded spare");
            assertTrue(job.recovery().isEmpty());
        }
    }

    @Test
    void aFailureTheDeadLeaderNeverProposedIsRecoveredByTheNextOne() {
        start(fixed(Duration.ofMinutes(10)), "d1", "d2", "d3");
        view(D1, D2, D3, NODE1, NODE2, SPARE1);
        register("job", "node1", "node2");
        dropProposalsFrom.add("d1"); // d1 decides, then dies before its proposal goes out
        fail(NODE2, D1, D2, D3, NODE1, SPARE1);
        assertTrue(executed.isEmpty());
        daemons.remove("d1");
        view(D2, D3, NODE1, SPARE1);
        assertEquals(Set.of("job/pause/1@node2"), executed);
        assertEquals(1, log.stream().filter(u -> u instanceof SchedulerUpdate.RecoveryStarted).count());
    }

    @Test
    void sparesAreNeverBookedTwiceAndAJobWithoutOneStopsWithAReason() {
        start(fixed(Duration.ofMinutes(10)), "d1", "d3");
        Member node3 = compute("node3");
        view(D1, D3, NODE1, NODE2, node3, SPARE1);
        register("a", "node1", "node2");
        register("b", "node3");
        fail(NODE2, D1, D3, NODE1, node3, SPARE1);
        deliver(completed("a", "1@node2", "node1", "spare1"));
        fail(node3, D1, D3, NODE1, SPARE1);
        JobRecord b = daemons.get("d1").table().job("b").orElseThrow();
        assertTrue(b.stopped(), "spare1 now runs a's rank: b has no spare");
        assertEquals("no-spare", b.stop().orElseThrow().cause());
        assertTrue(b.stop().orElseThrow().reason().contains("no free spare for rank 0"), b.stop().orElseThrow().reason());
        assertTrue(executed.contains("b/stop"));
        assertEquals(List.of("node1", "spare1"), daemons.get("d1").table().job("a").orElseThrow().rankNodes());
    }

    @Test
    void aJobsRegisteredSpareTakesALostRankEvenWhenItsDaemonComputes() {
        start(fixed(Duration.ofMinutes(10)), "d1", "d3");
        Member node3 = compute("node3");
        view(D1, D3, NODE1, NODE2, node3, SPARE1);
        // A batch allocation of node1-3: node3 is the job's spare, spare1 is not the job's.
        deliver(new SchedulerUpdate.JobRegistered(SchedulerUpdate.VERSION, "job", "d3", List.of("node1", "node2"), List.of("node3"),
                RecoveryMode.PAUSE, schedule, 2, clock.get(), JobOwner.ROOT));
        fail(NODE2, D1, D3, NODE1, node3, SPARE1);
        JobRecord job = daemons.get("d1").table().job("job").orElseThrow();
        assertEquals(Map.of(1, "node3"), job.recovery().orElseThrow().placement(), "the job's own spare, not the daemons' spare1");
    }

    @Test
    void measuresTheDecisionLatency() {
        AtomicLong nanos = new AtomicLong();
        SchedulerCore core = new SchedulerCore("d1", fixed(Duration.ofMinutes(1)),
                new Placement(new LeastLoadedSpare(), NoSpareAction.STOP_JOB), new JobTable(), clock::get, nanos::get,
                new SchedulerCore.Outputs() {
                    @Override
                    public void replicate(SchedulerUpdate update) {
                        nanos.addAndGet(250_000); // the replication round trip
                        daemons.get("d1").apply(update);
                    }

                    @Override
                    public void transition(JobTransition transition) {
                    }
                });
        daemons.put("d1", core);
        core.onView(new ClusterView(1, List.of(D1, NODE1, NODE2, SPARE1)));
        core.apply(new SchedulerUpdate.JobRegistered(SchedulerUpdate.VERSION, "job", "head", List.of("node1", "node2"),
                List.of(), RecoveryMode.PAUSE, CheckpointSchedule.AUTO, 10, 0, JobOwner.ROOT));
        core.onMembershipEvent(new MembershipEvent.NodeFailed(NODE2, new ClusterView(2, List.of(D1, NODE1, SPARE1))));
        assertEquals(List.of(250_000L), core.decisionNanos());
    }

    @Test
    void theAutoIntervalIsDalysOptimumRecomputedAsCostsAreMeasured() {
        start(auto(Duration.ofHours(24), Duration.ofMinutes(5)), "d1", "d3");
        view(D1, D3, NODE1, NODE2, SPARE1);
        register("job", "node1", "node2");
        // Daly, checkpoint 5 min and MTBF 24 h: 116.7 min.
        assertEquals(116.7, interval("d1").toSeconds() / 60.0, 0.1);
        advance(Duration.ofMinutes(116));
        tickAll();
        assertTrue(executed.isEmpty(), "not due before 116.7 min: " + executed);
        advance(Duration.ofMinutes(1));
        tickAll();
        assertEquals(Set.of("job/checkpoint/1"), executed);
        // The launcher measured 30 s: the interval is now Daly's for 30 s, about 37.5 min.
        deliver(new SchedulerUpdate.EpochCommitted(SchedulerUpdate.VERSION, "job", 1, 1, Duration.ofSeconds(30).toNanos()));
        double minutes = interval("d1").toSeconds() / 60.0;
        assertEquals(37.5, minutes, 0.5, "interval after a 30 s checkpoint");
        assertEquals(interval("d1"), interval("d3"),
                "every replica measured the same, so a new leader keeps the interval");
        advance(Duration.ofMinutes(37));
        tickAll();
        assertEquals(1, executed.size(), "not due yet");
        advance(Duration.ofMinutes(1));
        tickAll();
        assertEquals(Set.of("job/checkpoint/1", "job/checkpoint/2"), executed);
    }

    @Test
    void anObservedFailureReplacesTheConfiguredMtbf() {
        start(auto(Duration.ofHours(24), Duration.ofMinutes(5)), "d1", "d3");
        view(D1, D3, NODE1, NODE2, SPARE1);
        register("job", "node1", "node2");
        advance(Duration.ofHours(6));
        fail(NODE2, D1, D3, NODE1, SPARE1);
        // One failure in 6 h of running: Daly for 5 min and 6 h is 56.7 min.
        assertEquals(56.7, interval("d1").toSeconds() / 60.0, 0.1);
    }

    @Test
    void theObservedMtbfCountsTheJobsRunningTimeNotTheDaemonsUptime() {
        start(auto(Duration.ofHours(24), Duration.ofMinutes(5)), "d1", "d3");
        view(D1, D3, NODE1, NODE2, SPARE1);
        advance(Duration.ofHours(30));
        register("job", "node1", "node2");
        advance(Duration.ofHours(6));
        fail(NODE2, D1, D3, NODE1, SPARE1);
        assertEquals(56.7, interval("d1").toSeconds() / 60.0, 0.1, "one failure in the job's 6 h, whatever ran before it");
        assertEquals(56.7, interval("d3").toSeconds() / 60.0, 0.1, "the same on every replica");
    }

    @Test
    void requestsAreProposedByTheLeaderOnlyAndOnlyWhileTheyChangeSomething() {
        start(fixed(Duration.ofMinutes(10)), "d1", "d2", "d3");
        view(D1, D2, D3, NODE1, NODE2, SPARE1);
        SchedulerUpdate.JobRegistered registration = new SchedulerUpdate.JobRegistered(SchedulerUpdate.VERSION, "job", "d3",
                List.of("node1", "node2"), List.of(), RecoveryMode.PAUSE, CheckpointSchedule.AUTO, 10, 0, JobOwner.ROOT);
        requestAtLeader(registration);
        requestAtLeader(registration);
        assertEquals(1, log.size(), "one registration for two requests: " + log);
        assertEquals(clock.get(), ((SchedulerUpdate.JobRegistered) log.getFirst()).atMillis(), "stamped with the leader's clock");
        requestAtLeader(new SchedulerUpdate.EpochCommitted(SchedulerUpdate.VERSION, "job", 3, 0, 0));
        requestAtLeader(new SchedulerUpdate.EpochCommitted(SchedulerUpdate.VERSION, "job", 2, 0, 0));
        requestAtLeader(new SchedulerUpdate.EpochCommitted(SchedulerUpdate.VERSION, "nosuchjob", 2, 0, 0));
        assertEquals(2, log.size(), "an older epoch and an unknown job change nothing: " + log);
        for (SchedulerCore daemon : daemons.values()) {
            assertEquals(3, daemon.table().job("job").orElseThrow().committedEpoch());
        }
        requestAtLeader(new SchedulerUpdate.JobFinished(SchedulerUpdate.VERSION, "job"));
        requestAtLeader(new SchedulerUpdate.JobFinished(SchedulerUpdate.VERSION, "job"));
        assertEquals(3, log.size(), "finished once: " + log);
        assertTrue(daemons.get("d2").table().job("job").isEmpty());
    }

    @Test
    void aStaggeredFlushLetsAtMostTheConfiguredNodesWriteAtOnceInTheOrderTheyAsked() {
        start(fixed(Duration.ofMinutes(10)).withFlushWriters(2), "d1", "d2", "d3");
        view(D1, D2, D3, NODE1, NODE2, SPARE1);
        register("job", "node1", "node2", "d2", "d3");
        for (String node : List.of("d3", "node1", "node2", "d2")) {
            requestAtLeader(new SchedulerUpdate.FlushRequested(SchedulerUpdate.VERSION, "job", 1, node));
        }
        requestAtLeader(new SchedulerUpdate.FlushRequested(SchedulerUpdate.VERSION, "job", 1, "node1"));
        assertEquals(List.of("d3", "node1"), granted(), "two writers, the first two that asked");
        assertEquals(List.of("node2", "d2"), daemons.get("d2").table().job("job").orElseThrow().flush().waiting(),
                "a repeated request changes nothing: " + log);
        requestAtLeader(new SchedulerUpdate.FlushDone(SchedulerUpdate.VERSION, "job", 1, "node1"));
        assertEquals(List.of("d3", "node1", "node2"), granted(), "a turn ended, the next node's began");
        requestAtLeader(new SchedulerUpdate.FlushDone(SchedulerUpdate.VERSION, "job", 1, "node1"));
        assertEquals(List.of("d3", "node1", "node2"), granted(), "a repeated done frees no second turn");
        // The leader dies between two turns: the next one grants what waits.
        daemons.remove("d1");
        view(D2, D3, NODE1, NODE2, SPARE1);
        requestAtLeader(new SchedulerUpdate.FlushDone(SchedulerUpdate.VERSION, "job", 1, "d3"));
        assertEquals(List.of("d3", "node1", "node2", "d2"), granted());
        JobRecord.Flush flush = daemons.get("d3").table().job("job").orElseThrow().flush();
        assertEquals(List.of("node2", "d2"), flush.writing());
        assertEquals(List.of("node1", "d3"), flush.done());
        // A late request of an older epoch is stale; the next epoch starts afresh.
        requestAtLeader(new SchedulerUpdate.FlushRequested(SchedulerUpdate.VERSION, "job", 0, "node1"));
        requestAtLeader(new SchedulerUpdate.FlushRequested(SchedulerUpdate.VERSION, "job", 2, "node1"));
        assertEquals(new JobRecord.Flush(2, List.of(), List.of("node1"), List.of()), daemons.get("d2").table().job("job").orElseThrow().flush());
    }

    @Test
    void aRecoveryDropsTheFlushUnderWayAndAnUnlimitedClusterGrantsEveryNode() {
        start(fixed(Duration.ofMinutes(10)).withFlushWriters(1), "d1", "d3");
        view(D1, D3, NODE1, NODE2, SPARE1);
        register("job", "node1", "node2");
        requestAtLeader(new SchedulerUpdate.FlushRequested(SchedulerUpdate.VERSION, "job", 4, "node2"));
        requestAtLeader(new SchedulerUpdate.FlushRequested(SchedulerUpdate.VERSION, "job", 4, "node1"));
        assertEquals(List.of("node2"), granted());
        fail(NODE2, D1, D3, NODE1, SPARE1);
        assertEquals(JobRecord.Flush.NONE, daemons.get("d3").table().job("job").orElseThrow().flush(),
                "the epoch in flight is discarded with the rollback, and node2's turn with it");
        requestAtLeader(new SchedulerUpdate.FlushRequested(SchedulerUpdate.VERSION, "job", 5, "node1"));
        assertEquals(List.of("node2"), granted(), "no turns while the job is paused");

        log.clear();
        daemons.clear();
        jobOnNode1And2();
        requestAtLeader(new SchedulerUpdate.FlushRequested(SchedulerUpdate.VERSION, "job", 1, "node1"));
        requestAtLeader(new SchedulerUpdate.FlushRequested(SchedulerUpdate.VERSION, "job", 1, "node2"));
        assertEquals(List.of("node1", "node2"), granted());
    }

    /** The nodes the leader granted a turn, in order. */
    private List<String> granted() {
        return log.stream().filter(u -> u instanceof SchedulerUpdate.FlushGranted).map(u -> ((SchedulerUpdate.FlushGranted) u).node())
                .toList();
    }

    @Test
    void checkpointNowOrdersTheNextEpochOnceAndNotDuringARecovery() {
        jobOnNode1And2();
        daemons.values().forEach(d -> d.checkpointNow("job", 0));
        daemons.values().forEach(d -> d.checkpointNow("job", 0));
        assertEquals(Set.of("job/checkpoint/1"), executed, "two requests after epoch 0, one order");
        fail(NODE2, D1, D3, NODE1, SPARE1);
        daemons.values().forEach(d -> d.checkpointNow("job", 1));
        assertEquals(Set.of("job/checkpoint/1", "job/pause/1@node2"), executed, "no checkpoint while paused");
    }

    @Test
    void aJobRegisteredWithARankOnANodeAlreadyGoneIsRecoveredAtOnce() {
        start(fixed(Duration.ofMinutes(10)), "d1", "d3");
        view(D1, D3, NODE1, NODE2, SPARE1);
        fail(NODE2, D1, D3, NODE1, SPARE1); // while mpirun-ft was registering the job
        register("job", "node1", "node2");
        assertEquals(Set.of("job/pause/1@node2"), executed);
    }

    @Test
    void nodesNotSeenYetAreNotTakenForFailedAsAfterAWholeClusterRestart() {
        start(fixed(Duration.ofMinutes(10)), "d1", "d3");
        view(D1, D3, SPARE1); // the first daemons back; node1 and node2 are still booting
        register("job", "node1", "node2");
        assertTrue(executed.isEmpty(), "no recovery for nodes that were never seen: " + executed);
        view(D1, D3, NODE1, NODE2, SPARE1);
        fail(NODE2, D1, D3, NODE1, SPARE1);
        assertEquals(Set.of("job/pause/1@node2"), executed, "once seen, a node that goes is a failure");
    }

    @Test
    void aReplicaInstallingANewerTableHandsItsLauncherTheCommandsItMissed() {
        jobOnNode1And2();
        register("other", "node1");
        SchedulerCore d3 = daemons.get("d3");
        JobRecord job = d3.table().job("job").orElseThrow();
        JobRecord other = d3.table().job("other").orElseThrow();
        d3.install(List.of(record(job, JobState.RUNNING, 4, Optional.empty()),
                record(other, JobState.PAUSING, 0, Optional.of(new JobRecord.Recovery("0@node1", 1, "detector", Map.of(0, "node1"),
                        Map.of(0, "spare1"))))));
        assertEquals(Set.of("job/checkpoint/4", "other/pause/0@node1"), executed, "the newest order and the open recovery");
        d3.install(d3.table().jobs());
        assertEquals(2, sent.size(), "the same table again gives nothing new");
    }

    @Test
    void aNewIncarnationOfTheDaemonFollowsTheViewsOfAGroupThatNumbersAfresh() {
        start(fixed(Duration.ofMinutes(10)), "d1");
        viewId = 5;
        view(D2, D1, NODE1);
        assertFalse(daemons.get("d1").isLeader(), "d2 is older");
        // d1 left and joined again (a new member id) a group restarted meanwhile, at view 1.
        Member again = new Member("d1-id-2", D1.metadata(), D1.load());
        daemons.get("d1").onView(new ClusterView(1, List.of(again, NODE1)));
        assertTrue(daemons.get("d1").isLeader(), "view 1 of the new incarnation is not an old view");
        daemons.get("d1").onView(new ClusterView(0, List.of(again)));
        assertEquals(1, daemons.get("d1").view().id(), "an older view of the same incarnation still is");
    }

    @Test
    void aLeaderThatIsNotGrantedLeadershipActsOnNothing() {
        start(fixed(Duration.ofMinutes(10)), "d1", "d3");
        ClusterView view = new ClusterView(++viewId, List.of(D1, D3, NODE1, NODE2, SPARE1));
        daemons.values().forEach(d -> d.onView(view, false));
        register("job", "node1", "node2");
        advance(Duration.ofMinutes(11));
        tickAll();
        assertTrue(executed.isEmpty() && !daemons.get("d1").isLeader(), "the coordinator waits to be granted: " + executed);
        daemons.get("d1").onView(view, true);
        tickAll();
        assertEquals(Set.of("job/checkpoint/1"), executed);
    }

    /**
     * Regression: a hung node's rank, replaced meanwhile, woke up alone, saw every other rank
     * fail and said so; the leader took it for a new failure of the whole job and stopped it.
     */
    @Test
    void aReplacedRanksReportsFromTheNodeItWasLostOnChangeNothing() {
        start(fixed(Duration.ofMinutes(10)), "d1", "d2", "d3");
        view(D1, D2, D3, NODE1, NODE2, SPARE1, SPARE2);
        register("job", "node1", "node2");
        reportAtLeader("job", FailureReport.nodes("detector", List.of("node2"), "node2 hung"));
        deliver(completed("job", "1@node2", "node1", "spare2"));
        reportAtLeader("job", new FailureReport("ulfm", Map.of(0, "node1"), List.of(), "rank 1 saw rank 0 fail",
                new FailureReport.Reporter(1, "node2")));
        daemons.values().forEach(d -> d.restartNeeded("job", "ranks", "rank 1: recovery failed", new FailureReport.Reporter(1, "node2")));
        JobRecord job = daemons.get("d2").table().job("job").orElseThrow();
        assertEquals(JobState.RUNNING, job.state(), "the stale rank's word changes nothing: " + log);
        assertEquals(List.of("node1", "spare2"), job.rankNodes());
        assertEquals(1, log.stream().filter(u -> u instanceof SchedulerUpdate.RecoveryStarted).count(), "one recovery: " + log);
        // The same report from where rank 1 runs now is a real failure.
        reportAtLeader("job", new FailureReport("ulfm", Map.of(0, "node1"), List.of(), "rank 1 saw rank 0 fail",
                new FailureReport.Reporter(1, "spare2")));
        assertEquals(2, log.stream().filter(u -> u instanceof SchedulerUpdate.RecoveryStarted).count(), "a second recovery: " + log);
    }

    /**
     * Every rank of a pause job dies with no node lost (their daemons saw the processes end
     * without leaving). Held for {@link FailureReports#EXIT_SETTLE}, the exits are judged together:
     * no rank is left to roll back in place, and the job is relaunched on the nodes it ran on,
     * rather than paused onto spares that the next deaths would use up.
     */
    @Test
    void aPauseJobWhoseEveryRankDiedIsRelaunchedAndNotLeftWaitingForAPause() {
        start(fixed(Duration.ofMinutes(10)), "d1", "d2", "d3");
        view(D1, D2, D3, NODE1, NODE2, SPARE1, SPARE2);
        register("job", "node1", "node2");
        reportAtLeader("job", exit(0, "node1", 1));
        advance(Duration.ofMillis(300));
        reportAtLeader("job", exit(1, "node2", 1));
        assertEquals(JobState.RUNNING, daemons.get("d3").table().job("job").orElseThrow().state(), "held: " + log);
        advance(FailureReports.EXIT_SETTLE);
        tickAll();
        JobRecord job = daemons.get("d3").table().job("job").orElseThrow();
        assertEquals(JobState.RESTARTING, job.state(), "no rank left to roll back in place: " + log);
        assertEquals(0, recoveries(), "no pause first: " + log);
        SchedulerUpdate.RestartStarted restart = (SchedulerUpdate.RestartStarted) log.stream()
                .filter(u -> u instanceof SchedulerUpdate.RestartStarted).findFirst().orElseThrow();
        assertTrue(restart.reason().endsWith("no rank survives to recover in place"), restart.reason());
        assertEquals(List.of("node1", "node2"), job.rankNodes(), "their nodes are still in the group: the ranks start there again");

        // The old launch's processes end as the relaunch kills them: no failure.
        reportAtLeader("job", exit(0, "node1", 1));
        requestAtLeader(new SchedulerUpdate.JobRelaunched(SchedulerUpdate.VERSION, "job", 2, job.rankNodes()));
        reportAtLeader("job", exit(1, "node2", 1));
        advance(FailureReports.EXIT_SETTLE);
        tickAll();
        assertEquals(JobState.RUNNING, daemons.get("d3").table().job("job").orElseThrow().state(),
                "a late end of the first launch's rank changes nothing in the second: " + log);
        // One rank of the second launch dies alone: after the hold, a pause, as for any lost rank.
        reportAtLeader("job", exit(1, "node2", 2));
        advance(FailureReports.EXIT_SETTLE);
        tickAll();
        assertEquals(JobState.PAUSING, daemons.get("d3").table().job("job").orElseThrow().state(), "the second launch's own rank: " + log);
    }

    /**
     * node2's daemon crashes (its host answers the probe with a refusal): its rank is kept, no
     * daemon fences the node, and when a new daemon of node2 joins, nothing was lost. A second
     * crash whose daemon does not come back within the grace loses the node, and then it is fenced.
     */
    @Test
    void aCrashedDaemonsNodeKeepsItsRanksUntilItsGraceRunsOut() {
        List<String> fenced = jobOnNode1And2Probing(member -> true);
        fail(NODE2, D1, D3, NODE1, SPARE1);
        assertEquals(JobState.RUNNING, daemons.get("d3").table().job("job").orElseThrow().state(), "a daemon crash is no node loss: " + log);
        assertEquals(List.of(), fenced);
        assertTrue(daemons.get("d1").keepsNodeOfCrashedDaemon("node2"));
        Member restarted = new Member("node2-id2", NodeMetadata.compute("node2", 1, CONTROL), new NodeLoad(0.0, 0));
        view(D1, D3, NODE1, restarted, SPARE1);
        advance(Duration.ofMinutes(1));
        daemons.values().forEach(SchedulerCore::expireHolds);
        tickAll();
        assertEquals(0, recoveries(), "its daemon came back: " + log);
        assertFalse(daemons.get("d1").keepsNodeOfCrashedDaemon("node2"));
        assertEquals(List.of(), fenced);

        fail(restarted, D1, D3, NODE1, SPARE1);
        advance(SchedulerCore.DAEMON_RESTART_GRACE.minusSeconds(1));
        daemons.values().forEach(SchedulerCore::expireHolds);
        assertEquals(0, recoveries(), "within the grace: " + log);
        advance(Duration.ofSeconds(1));
        daemons.values().forEach(SchedulerCore::expireHolds);
        assertEquals(1, recoveries(), "no daemon back within the grace: the node is lost: " + log);
        assertEquals(List.of("d1:node2", "d3:node2"), fenced.stream().sorted().toList(), "every daemon fences it then");
    }

    /** A restart job's node whose daemon crashed is held as a pause job's is: no relaunch for a daemon crash. */
    @Test
    void aRestartJobsNodeWhoseDaemonCrashedIsHeldToo() {
        start(fixed(Duration.ofMinutes(10)), "d1", "d3");
        List<String> fenced = probing(member -> true);
        view(D1, D3, NODE1, NODE2, SPARE1);
        register("job", RecoveryMode.RESTART, "node1", "node2");
        fail(NODE2, D1, D3, NODE1, SPARE1);
        tickAll();
        assertEquals(JobState.RUNNING, daemons.get("d3").table().job("job").orElseThrow().state(), "a daemon crash is no node loss: " + log);
        assertEquals(List.of(), fenced);
        assertTrue(daemons.get("d1").keepsNodeOfCrashedDaemon("node2"));
    }

    /**
     * The daemon of mpirun's node crashes (seen by scripts/chaos on the head node): fencing that
     * node would cut mpirun off its node daemons and end every rank, so it is held too.
     */
    @Test
    void theNodeOfMpirunWhoseDaemonCrashedIsNotFenced() {
        start(fixed(Duration.ofMinutes(10)), "d1", "d3");
        List<String> fenced = probing(member -> true);
        view(D1, D3, NODE1, NODE2, SPARE1);
        deliver(new SchedulerUpdate.JobRegistered(SchedulerUpdate.VERSION, "job", "spare1", List.of("node1", "node2"), List.of(),
                RecoveryMode.PAUSE, schedule, 2, clock.get(), JobOwner.ROOT));
        fail(SPARE1, D1, D3, NODE1, NODE2);
        tickAll();
        assertEquals(JobState.RUNNING, daemons.get("d3").table().job("job").orElseThrow().state(), "" + log);
        assertEquals(List.of(), fenced, "mpirun's node is held while its daemon may come back");
        assertTrue(daemons.get("d1").keepsNodeOfCrashedDaemon("spare1"));
    }

    /** A crashed daemon's node whose rank a survivor reports lost is lost at once, and fenced. */
    @Test
    void aCrashedDaemonsNodeWhoseRankIsReportedLostIsLostAtOnce() {
        List<String> fenced = jobOnNode1And2Probing(member -> true);
        fail(NODE2, D1, D3, NODE1, SPARE1);
        reportAtLeader("job", FailureReport.ranks("ulfm", Map.of(1, "node2"), "rank 0 saw PROC_FAILED"));
        assertEquals(1, recoveries(), "" + log);
        assertEquals(List.of("d1:node2", "d3:node2"), fenced.stream().sorted().toList());
        assertFalse(daemons.get("d3").keepsNodeOfCrashedDaemon("node2"));
    }

    /**
     * The other order: a survivor reports node2's rank lost, and only then does node2's daemon
     * fail out of the view (its host still answers: the simulated nodes' interface outlives their
     * processes). The node's ranks are being replaced already: nothing there to keep, so every
     * daemon fences it at once rather than after the restart grace (DaemonCrashIT saw no fence
     * in the 30 s a fast job's end left it).
     */
    @Test
    void aNodeWhoseRanksWereReportedLostBeforeItsDaemonFailedIsLostAtOnce() {
        List<String> fenced = jobOnNode1And2Probing(member -> true);
        reportAtLeader("job", FailureReport.ranks("ulfm", Map.of(1, "node2"), "rank 0 saw PROC_FAILED"));
        assertEquals(1, recoveries(), "" + log);
        assertEquals(List.of(), fenced, "its daemon is still in the view");
        fail(NODE2, D1, D3, NODE1, SPARE1);
        assertEquals(List.of("d1:node2", "d3:node2"), fenced.stream().sorted().toList(), "fenced at once: " + log);
        assertFalse(daemons.get("d3").keepsNodeOfCrashedDaemon("node2"));
        assertEquals(1, recoveries(), "the one recovery: " + log);
    }

    /** A failed node whose host does not answer (hung, cut off, dead) is lost at once, as without a probe. */
    @Test
    void aFailedNodeWhoseHostDoesNotAnswerIsLostAtOnce() {
        List<String> fenced = jobOnNode1And2Probing(member -> false);
        fail(NODE2, D1, D3, NODE1, SPARE1);
        assertEquals(1, recoveries(), "" + log);
        assertEquals(List.of("d1:node2", "d3:node2"), fenced.stream().sorted().toList());
    }

    /** Daemons d1 and d3 (10 min checkpoint interval) and a pause job with ranks on node1 and node2, spare1 free. */
    private void jobOnNode1And2() {
        start(fixed(Duration.ofMinutes(10)), "d1", "d3");
        view(D1, D3, NODE1, NODE2, SPARE1);
        register("job", "node1", "node2");
    }

    /**
     * Daemons d1 and d3, a pause job with ranks on node1 and node2, and every daemon probing failed
     * hosts with {@code hostUp} ({@link #probing}); returns the fences as DAEMON:NODE.
     */
    private List<String> jobOnNode1And2Probing(java.util.function.Predicate<Member> hostUp) {
        start(fixed(Duration.ofMinutes(10)), "d1", "d3");
        List<String> fenced = probing(hostUp);
        view(D1, D3, NODE1, NODE2, SPARE1);
        register("job", "node1", "node2");
        return fenced;
    }

    /** Every daemon probes failed hosts with {@code hostUp} and notes the nodes it fences as DAEMON:NODE. */
    private List<String> probing(java.util.function.Predicate<Member> hostUp) {
        List<String> fenced = new java.util.concurrent.CopyOnWriteArrayList<>();
        daemons.forEach((name, core) -> {
            core.probeFailedNodes(member -> java.util.concurrent.CompletableFuture.completedFuture(hostUp.test(member)),
                    SchedulerCore.DAEMON_RESTART_GRACE);
            core.onNodeLost(member -> fenced.add(name + ":" + member.name()));
        });
        return fenced;
    }

    /** A rank's exit with a survivor's ULFM report of the same death: judged at once, not held. */
    @Test
    void aDeathASurvivorSawIsJudgedAtOnce() {
        jobOnNode1And2();
        reportAtLeader("job", exit(1, "node2", 1));
        reportAtLeader("job", FailureReport.ranks("ulfm", Map.of(1, "node2"), "rank 0 saw PROC_FAILED"));
        assertEquals(JobState.PAUSING, daemons.get("d3").table().job("job").orElseThrow().state(), "" + log);
    }

    @Test
    void aRankThatEndsAfterItsProgramFinishedIsNoFailure() {
        jobOnNode1And2();
        requestAtLeader(new SchedulerUpdate.ProgramFinished(SchedulerUpdate.VERSION, "job"));
        reportAtLeader("job", exit(0, "node1", 1));
        reportAtLeader("job", exit(1, "node2", 1));
        assertEquals(JobState.RUNNING, daemons.get("d3").table().job("job").orElseThrow().state(), "" + log);
        assertEquals(0, recoveries());
    }

    private static FailureReport exit(int rank, String node, int attempt) {
        return new FailureReport(FailureReport.EXIT, Map.of(rank, node), List.of(), "rank " + rank + " ended without finishing",
                new FailureReport.Reporter(rank, node, attempt));
    }

    @Test
    void oneFailureReportedByEverySourceIsRecoveredOnce() {
        start(fixed(Duration.ofMinutes(10)), "d1", "d2", "d3");
        view(D1, D2, D3, NODE1, NODE2, SPARE1, SPARE2);
        register("job", "node1", "node2");
        reportAtLeader("job", FailureReport.ranks("ulfm", Map.of(1, "node2"), "rank 0 saw PROC_FAILED"));
        fail(NODE2, D1, D2, D3, NODE1, SPARE1, SPARE2);
        reportAtLeader("job", FailureReport.nodes("runtime", List.of("node2"), "PRRTE lost the node daemon of node2"));
        reportAtLeader("job", FailureReport.ranks("ulfm", Map.of(1, "node2"), "rank 0 again"));
        assertEquals(1, log.stream().filter(u -> u instanceof SchedulerUpdate.RecoveryStarted).count(), "one recovery: " + log);
        assertEquals(0, log.stream().filter(u -> u instanceof SchedulerUpdate.RecoveryExtended).count(), "nothing to extend: " + log);
        SchedulerUpdate.RecoveryStarted started = (SchedulerUpdate.RecoveryStarted) log.stream()
                .filter(u -> u instanceof SchedulerUpdate.RecoveryStarted).findFirst().orElseThrow();
        assertEquals("ulfm", started.source(), "the first source to see it starts it");
        assertEquals(Map.of(1, "spare2"), started.placement(), "on the less loaded of the two spares");
        deliver(completed("job", "1@node2", "node1", "spare2"));
        // Open MPI's late report of the same lost daemon, after the recovery.
        reportAtLeader("job", FailureReport.nodes("runtime", List.of("node2"), "PRRTE lost the node daemon of node2, late"));
        assertEquals(JobState.RUNNING, daemons.get("d2").table().job("job").orElseThrow().state(), "a repaired failure changes nothing");
        assertEquals(1, log.stream().filter(u -> u instanceof SchedulerUpdate.RecoveryStarted).count());
    }

    @Test
    void aNodeWhoseDaemonLeftGracefullyKeepsItsRanksUntilTheRanksReportThemLost() {
        jobOnNode1And2();
        // node2's daemon restarts (an upgrade): it leaves, then joins again as a new incarnation.
        leave(NODE2, D1, D3, NODE1, SPARE1);
        assertEquals(0, recoveries(), "a daemon's graceful leave loses no rank: " + log);
        view(D1, D3, NODE1, compute("node2"), SPARE1);
        assertEquals(JobState.RUNNING, daemons.get("d1").table().job("job").orElseThrow().state());
        // It leaves again, and this time the node goes down with its rank: the ranks say so.
        leave(NODE2, D1, D3, NODE1, SPARE1);
        assertEquals(0, recoveries());
        reportAtLeader("job", FailureReport.ranks("ulfm", Map.of(1, "node2"), "rank 0 saw PROC_FAILED"));
        assertEquals(1, recoveries(), "the ranks' report recovers it: " + log);
        assertEquals(Map.of(1, "spare1"), daemons.get("d3").table().job("job").orElseThrow().recovery().orElseThrow().placement());
    }

    @Test
    void aNodeThatFailsAfterItsDaemonLeftAndCameBackIsLost() {
        jobOnNode1And2();
        leave(NODE2, D1, D3, NODE1, SPARE1);
        view(D1, D3, NODE1, NODE2, SPARE1);
        fail(NODE2, D1, D3, NODE1, SPARE1);
        assertEquals(1, recoveries(), "the detector's failure of the node, after it came back, is a loss: " + log);
    }

    @Test
    void aFailureDuringARecoveryExtendsItWithTheNextSpare() {
        start(fixed(Duration.ofMinutes(10)), "d1", "d3");
        Member node3 = compute("node3");
        view(D1, D3, NODE1, NODE2, node3, SPARE1, SPARE2);
        register("job", "node1", "node2", "node3");
        fail(NODE2, D1, D3, NODE1, node3, SPARE1, SPARE2);
        fail(node3, D1, D3, NODE1, SPARE1, SPARE2);
        JobRecord job = daemons.get("d3").table().job("job").orElseThrow();
        assertEquals(JobState.PAUSING, job.state());
        JobRecord.Recovery recovery = job.recovery().orElseThrow();
        assertEquals(2, recovery.seq(), "extended once");
        assertEquals("1@node2,2@node3", recovery.failureId());
        assertEquals(Map.of(1, "spare2", 2, "spare1"), recovery.placement(), "the first placement stays, the new rank gets the other spare");
        assertEquals(List.of("job/pause/1@node2", "job/pause/1@node2,2@node3"), List.copyOf(executed));
        requestAtLeader(completed("job", "1@node2,2@node3", "node1", "spare2", "spare1"));
        assertEquals(List.of("node1", "spare2", "spare1"), daemons.get("d1").table().job("job").orElseThrow().rankNodes());
    }

    @Test
    void aSpareLostBeforeTheRanksResumedIsReplacedByTheNextOne() {
        start(fixed(Duration.ofMinutes(10)), "d1", "d3");
        Member spare3 = spare("spare3", 0.9);
        view(D1, D3, NODE1, NODE2, SPARE1, SPARE2, spare3);
        register("job", "node1", "node2");
        fail(NODE2, D1, D3, NODE1, SPARE1, SPARE2, spare3);
        assertEquals(Map.of(1, "spare2"), placement("d1"));
        fail(SPARE2, D1, D3, NODE1, SPARE1, spare3);
        assertEquals(Map.of(1, "spare1"), placement("d1"), "the next least loaded spare");
        assertEquals(Map.of(1, "node2"), daemons.get("d1").table().job("job").orElseThrow().recovery().orElseThrow().lostRanks());
        // The ranks finished the first part before the new order reached them: the job is not repaired yet.
        requestAtLeader(completed("job", "1@node2", "node1", "spare2"));
        assertEquals(JobState.PAUSING, daemons.get("d1").table().job("job").orElseThrow().state());
        requestAtLeader(completed("job", "1@node2", "node1", "spare1"));
        assertEquals(JobState.RUNNING, daemons.get("d1").table().job("job").orElseThrow().state(),
                "rank 1 runs on a live node off the one it was lost on");
    }

    /**
     * Every rank of attempt 1 exits: a relaunch. Their daemons repeat the exit reports while the
     * relaunch is on its way through the group (the reports are not settled before it applies),
     * and the leader holds them (exits are judged together) until attempt 2 runs, on the same
     * nodes. Judged then, they are stale: attempt 1's ranks are no longer the job's. Taken for
     * attempt 2's, they paused it with no spare free and stopped it (RankExitIT, once).
     */
    @Test
    void exitReportsOfTheLastAttemptHeldUntilTheRelaunchRunsAreStale() {
        jobOnNode1And2();
        reportAtLeader("job", exit(0, "node1", 1));
        reportAtLeader("job", exit(1, "node2", 1));
        advance(FailureReports.EXIT_SETTLE);
        holding = true;
        tickAll(); // judged together: a relaunch, on its way
        assertEquals(1, held.size(), "the relaunch decision: " + held);
        reportAtLeader("job", exit(0, "node1", 1)); // repeated, while attempt 1 still runs as far as the table says
        reportAtLeader("job", exit(1, "node2", 1));
        release();
        JobRecord restarting = daemons.get("d3").table().job("job").orElseThrow();
        assertEquals(JobState.RESTARTING, restarting.state(), "" + log);
        requestAtLeader(new SchedulerUpdate.JobRelaunched(SchedulerUpdate.VERSION, "job", 2, restarting.rankNodes()));
        advance(FailureReports.EXIT_SETTLE);
        tickAll();
        JobRecord job = daemons.get("d3").table().job("job").orElseThrow();
        assertEquals(JobState.RUNNING, job.state(), "attempt 2 runs on: " + log);
        assertEquals(2, job.attempt());
        assertEquals(0, recoveries(), "no pause for attempt 1's exits: " + log);
    }

    @Test
    void reportsThatArriveWhileADecisionIsOnItsWayAreJudgedAgainstIt() {
        start(fixed(Duration.ofMinutes(10)), "d1", "d3");
        Member node3 = compute("node3");
        view(D1, D3, NODE1, NODE2, node3, SPARE1, SPARE2);
        register("job", "node1", "node2", "node3");
        holding = true;
        reportAtLeader("job", FailureReport.ranks("ulfm", Map.of(1, "node2"), ""));
        reportAtLeader("job", FailureReport.ranks("ulfm", Map.of(2, "node3"), ""));
        reportAtLeader("job", FailureReport.ranks("ulfm", Map.of(1, "node2"), "a repeat"));
        assertEquals(1, held.size(), "one decision at a time per job: " + held);
        release();
        JobRecord.Recovery recovery = daemons.get("d3").table().job("job").orElseThrow().recovery().orElseThrow();
        assertEquals("1@node2,2@node3", recovery.failureId(), "the second failure extended the first recovery");
        assertEquals(2, recovery.seq());
    }

    @Test
    void whenNoSpareIsLeftTheJobStopsWithTheNoSpareCause() {
        jobOnNode1And2();
        fail(NODE2, D1, D3, NODE1, SPARE1);
        requestAtLeader(completed("job", "1@node2", "node1", "spare1"));
        fail(NODE1, D1, D3, SPARE1);
        JobRecord job = daemons.get("d3").table().job("job").orElseThrow();
        assertEquals(JobState.STOPPED, job.state());
        assertEquals("no-spare", job.stop().orElseThrow().cause());
        assertTrue(executed.contains("job/stop"));
        reportAtLeader("job", FailureReport.nodes("runtime", List.of("node1"), "late"));
        assertEquals(1, log.stream().filter(u -> u instanceof SchedulerUpdate.JobStopped).count(), "stopped once");
    }

    @Test
    void withWhenNoSpareShrinkAJobWithNoSpareLeftGoesOnWithItsSurvivors() {
        start(shrinking(), "d1", "d3");
        Member node3 = compute("node3");
        view(D1, D3, NODE1, NODE2, node3);
        register("job", "node1", "node2", "node3");
        fail(NODE2, D1, D3, NODE1, node3);
        JobRecord job = daemons.get("d3").table().job("job").orElseThrow();
        assertEquals(JobState.PAUSING, job.state());
        assertEquals(Map.of(), job.recovery().orElseThrow().placement(), "nobody placed: the pause shrinks the job");
        assertTrue(executed.contains("job/pause/1@node2"), executed.toString());
        requestAtLeader(completed("job", "1@node2", "node1", "node3", "node2"));
        assertEquals(JobState.PAUSING, daemons.get("d1").table().job("job").orElseThrow().state(), "not the survivors in their order");
        requestAtLeader(completed("job", "1@node2", "node1", "node3"));
        job = daemons.get("d3").table().job("job").orElseThrow();
        assertEquals(JobState.RUNNING, job.state());
        assertEquals(List.of("node1", "node3"), job.rankNodes(), "old rank 2 is rank 1 now");
        fail(node3, D1, D3, NODE1);
        assertEquals(Map.of(1, "node3"), daemons.get("d3").table().job("job").orElseThrow().recovery().orElseThrow().lostRanks(),
                "a later loss is judged against the shrunk table");
    }

    @Test
    void aProgramThatRunsOnFewerRanksThanSurvivedGoesOnWithTheFirstSurvivors() {
        start(shrinking(), "d1", "d3");
        Member node3 = compute("node3");
        Member node4 = compute("node4");
        view(D1, D3, NODE1, NODE2, node3, node4);
        register("job", "node1", "node2", "node3", "node4");
        fail(node3, D1, D3, NODE1, NODE2, node4);
        requestAtLeader(completed("job", "2@node3", "node1", "node4"));
        assertEquals(JobState.PAUSING, daemons.get("d1").table().job("job").orElseThrow().state(), "node4's rank was not first");
        requestAtLeader(completed("job", "2@node3", "node1", "node2"));
        JobRecord job = daemons.get("d1").table().job("job").orElseThrow();
        assertEquals(JobState.RUNNING, job.state(), "a power of two: the first two survivors");
        assertEquals(List.of("node1", "node2"), job.rankNodes());
    }

    @Test
    void onlyARecoveryInPlaceOfARankCountTheProgramCanChangeShrinks() {
        start(shrinking(), "d1", "d3");
        Member node3 = compute("node3");
        view(D1, D3, NODE1, NODE2, node3);
        register("transparent", RecoveryMode.TRANSPARENT, "node1");
        register("restart", RecoveryMode.RESTART, "node2");
        register("alone", "node3");
        fail(NODE1, D1, D3, NODE2, node3);
        fail(NODE2, D1, D3, node3);
        fail(node3, D1, D3);
        JobRecord transparent = daemons.get("d3").table().job("transparent").orElseThrow();
        assertEquals("no-spare", transparent.stop().orElseThrow().cause());
        assertTrue(transparent.stop().orElseThrow().reason().contains("a transparent job cannot shrink"), transparent.stop().toString());
        JobRecord restart = daemons.get("d3").table().job("restart").orElseThrow();
        assertTrue(restart.stop().orElseThrow().reason().contains("only a recovery in place"), restart.stop().toString());
        // Its only rank lost, the pause job is relaunched, and the relaunch finds no node for it.
        JobRecord alone = daemons.get("d3").table().job("alone").orElseThrow();
        assertEquals("no-spare", alone.stop().orElseThrow().cause());
        assertTrue(alone.stop().orElseThrow().reason().contains("no free spare for rank 0"), alone.stop().toString());
    }

    /**
     * A node the job lost and that is back in the group has no node daemon of the job's running
     * mpirun: a spawn there fails (seen by scripts/chaos, MPI error 50). It is the job's spare
     * again only once a relaunch started a new runtime.
     */
    @Test
    void aNodeOfTheAllocationThatComesBackIsASpareAgainOnlyAfterARelaunch() {
        start(shrinking(), "d1", "d3");
        Member node3 = compute("node3");
        Member node4 = compute("node4");
        view(D1, D3, NODE1, NODE2, node3, node4);
        // An allocation of node1-4: three ranks, node4 their spare.
        deliver(new SchedulerUpdate.JobRegistered(SchedulerUpdate.VERSION, "job", "d3", List.of("node1", "node2", "node3"),
                List.of("node4"), RecoveryMode.PAUSE, schedule, 2, clock.get(), JobOwner.ROOT));
        fail(NODE2, D1, D3, NODE1, node3, node4);
        assertEquals(Map.of(1, "node4"), placement("d3"));
        requestAtLeader(completed("job", "1@node2", "node1", "node4", "node3"));
        fail(node3, D1, D3, NODE1, node4);
        assertEquals(Map.of(), placement("d3"), "no spare left: the job shrinks");
        requestAtLeader(completed("job", "2@node3", "node1", "node4"));
        view(D1, D3, NODE1, node4, NODE2);
        assertEquals(List.of("node2", "node3"), daemons.get("d3").table().job("job").orElseThrow().lostNodes());
        fail(node4, D1, D3, NODE1, NODE2);
        assertEquals(Map.of(), placement("d3"), "node2 is back, but not for the launch that lost it: the job shrinks again");
        requestAtLeader(completed("job", "1@node4", "node1"));

        daemons.values().forEach(d -> d.restartNeeded("job", "runtime", "mpirun ended early", null));
        JobRecord restarting = daemons.get("d3").table().job("job").orElseThrow();
        assertEquals(JobState.RESTARTING, restarting.state(), log.toString());
        requestAtLeader(new SchedulerUpdate.JobRelaunched(SchedulerUpdate.VERSION, "job", 2, restarting.rankNodes()));
        JobRecord relaunched = daemons.get("d3").table().job("job").orElseThrow();
        assertEquals(JobState.RUNNING, relaunched.state(), log.toString());
        assertEquals(List.of(), relaunched.lostNodes(), "a new runtime, with node daemons on node2, node3 and node4 again if they run ranks");
        assertTrue(relaunched.spares().containsAll(List.of("node2", "node3", "node4")), "still the allocation's: " + relaunched.spares());
    }

    @Test
    void aRestartModeJobIsRelaunchedOnLiveNodesOnly() {
        start(fixed(Duration.ofMinutes(10)), "d1", "d3");
        Member node3 = compute("node3");
        view(D1, D3, NODE1, NODE2, node3, SPARE1, SPARE2);
        register("job", RecoveryMode.RESTART, "node1", "node2", "node3");
        // node3 was expelled (fenced under load) just before node2 failed.
        fail(node3, D1, D3, NODE1, NODE2, SPARE1, SPARE2);
        JobRecord job = daemons.get("d3").table().job("job").orElseThrow();
        assertEquals(JobState.RESTARTING, job.state());
        assertEquals(List.of("node1", "node2", "spare2"), job.rankNodes());
        requestAtLeader(new SchedulerUpdate.JobRelaunched(SchedulerUpdate.VERSION, "job", 2, job.rankNodes()));
        fail(NODE2, D1, D3, NODE1, SPARE1, SPARE2);
        job = daemons.get("d3").table().job("job").orElseThrow();
        assertEquals(List.of("node1", "spare1", "spare2"), job.rankNodes(), "never a node out of the group");
        assertEquals(JobState.RESTARTING, job.state());
    }

    @Test
    void aTransparentJobIsRestoredInPlaceWithASpareForTheLostNode() {
        start(fixed(Duration.ofMinutes(10)), "d1", "d3");
        view(D1, D3, NODE1, NODE2, SPARE1);
        register("job", RecoveryMode.TRANSPARENT, "node1", "node2");
        fail(NODE2, D1, D3, NODE1, SPARE1);
        JobRecord job = daemons.get("d3").table().job("job").orElseThrow();
        assertEquals(JobState.PAUSING, job.state(), "recovered in place, as a pause: no relaunch");
        assertEquals(Map.of(1, "spare1"), job.recovery().orElseThrow().placement());
    }

    @Test
    void restartNeededRestartsOnTheLiveNodesAndStopsOnceTheRestartsAreUsedUp() {
        jobOnNode1And2();
        for (int attempt = 2; attempt <= 3; attempt++) {
            daemons.values().forEach(d -> d.restartNeeded("job", "runtime", "mpirun ended early", null));
            JobRecord job = daemons.get("d3").table().job("job").orElseThrow();
            assertEquals(JobState.RESTARTING, job.state());
            assertEquals(List.of("node1", "node2"), job.rankNodes(), "every node is alive: the same plan");
            requestAtLeader(new SchedulerUpdate.JobRelaunched(SchedulerUpdate.VERSION, "job", attempt, job.rankNodes()));
        }
        daemons.values().forEach(d -> d.restartNeeded("job", "runtime", "mpirun ended early", null));
        JobRecord job = daemons.get("d3").table().job("job").orElseThrow();
        assertEquals(JobState.STOPPED, job.state(), "2 restarts allowed");
        assertEquals("restarts-exhausted", job.stop().orElseThrow().cause());
    }

    @Test
    void aJobOnAnIterationScheduleGetsNoTimedOrders() {
        start(fixed(Duration.ofSeconds(2)), "d1", "d3");
        view(D1, D3, NODE1, NODE2, SPARE1);
        deliver(new SchedulerUpdate.JobRegistered(SchedulerUpdate.VERSION, "job", "d3", List.of("node1", "node2"), List.of(), RecoveryMode.PAUSE,
                CheckpointSchedule.everyIterations(5), 2, clock.get(), JobOwner.ROOT));
        advance(Duration.ofMinutes(1));
        tickAll();
        assertTrue(executed.isEmpty(), "the ranks checkpoint every 5 iterations on their own: " + executed);
        assertTrue(daemons.get("d1").checkpointInterval("job").isEmpty());
    }

    @Test
    void eachJobKeepsItsOwnInterval() {
        start(fixed(Duration.ofMinutes(10)), "d1", "d3");
        view(D1, D3, NODE1, NODE2, SPARE1);
        deliver(new SchedulerUpdate.JobRegistered(SchedulerUpdate.VERSION, "fast", "d3", List.of("node1"), List.of(), RecoveryMode.PAUSE,
                CheckpointSchedule.every(Duration.ofSeconds(2)), 2, clock.get(), JobOwner.ROOT));
        register("job", "node2");
        for (int i = 1; i <= 5; i++) {
            advance(Duration.ofSeconds(2));
            tickAll();
            served("fast", i);
        }
        assertEquals(Set.of("fast/checkpoint/1", "fast/checkpoint/2", "fast/checkpoint/3", "fast/checkpoint/4",
                "fast/checkpoint/5"), executed, "one order per 2 s for the fast job, none yet for the 10 min one");
    }

    @Test
    void aPauseReplacesOnlyOnSparesOfTheJobsAllocationTheLeastLoadedFirst() {
        start(fixed(Duration.ofMinutes(10)), "d1", "d3");
        Member idle = spare("spare3", 0.0);
        view(D1, D3, NODE1, NODE2, SPARE1, SPARE2, idle);
        // mpirun was given spare1 and spare2; spare3, idler still, is not in the job's allocation.
        deliver(new SchedulerUpdate.JobRegistered(SchedulerUpdate.VERSION, "job", "d3", List.of("node1", "node2"),
                List.of("spare1", "spare2"), RecoveryMode.PAUSE, schedule, 2, clock.get(), JobOwner.ROOT));
        fail(NODE2, D1, D3, NODE1, SPARE1, SPARE2, idle);
        assertEquals(Map.of(1, "spare2"), placement("d1"), "the less loaded of the job's two spares");
    }

    @Test
    void aPlacementSeesTheLoadsReportedSinceTheLastViewChange() {
        start(fixed(Duration.ofMinutes(10)), "d1", "d3");
        view(D1, D3, NODE1, NODE2, SPARE1, SPARE2);
        register("job", "node1", "node2");
        // spare2 was the idler at the view change; since then another job's rank went there.
        Member busy = new Member(SPARE2.id(), SPARE2.metadata(), new NodeLoad(0.1, 1));
        ClusterView now = new ClusterView(viewId, List.of(D1, D3, NODE1, NODE2, SPARE1, busy));
        daemons.values().forEach(d -> d.loadsFrom(() -> now));
        fail(NODE2, D1, D3, NODE1, SPARE1, SPARE2);
        assertEquals(Map.of(1, "spare1"), placement("d1"), "spare2 now runs a rank: spare1 is the less loaded");
    }

    @Test
    void aMigrateRequestMovesTheNodesRanksToTheLeastLoadedOfTwoSparesWithoutAPause() {
        start(fixed(Duration.ofMinutes(10)), "d1", "d3");
        view(D1, D3, NODE1, NODE2, SPARE1, SPARE2);
        register("job", "node1", "node2");
        assertEquals(Optional.empty(), daemons.get("d3").migrationRefusal("job", "node2"));
        migrateAtLeader("job", "node2", "fan failing");
        JobRecord job = job("d3");
        assertEquals(JobState.MIGRATING, job.state());
        JobRecord.Migration migration = job.migration().orElseThrow();
        assertEquals(1, migration.seq());
        assertEquals(Map.of(1, "node2"), migration.moving());
        assertEquals(Map.of(1, "spare2"), migration.placement(), "spare2 (load 0.1) before spare1 (load 0.5)");
        assertEquals("operator", migration.source());
        assertEquals("fan failing", migration.reason());
        migrateAtLeader("job", "node2", "asked again");
        assertEquals(1, log.stream().filter(u -> u instanceof SchedulerUpdate.MigrationStarted).count(), "one migration for a repeated request");
        advance(Duration.ofMinutes(10));
        tickAll();
        assertTrue(executed.isEmpty(), "no checkpoint is ordered while the ranks move: " + executed);

        requestAtLeader(new SchedulerUpdate.MigrationCompleted(SchedulerUpdate.VERSION, "job", 1, List.of("node1", "spare2"), 42, null));
        job = job("d3");
        assertEquals(JobState.RUNNING, job.state());
        assertEquals(List.of("node1", "spare2"), job.rankNodes());
        assertTrue(job.migration().isEmpty());
        assertEquals(1, job.migrations());
        // Open MPI reports the moved rank's old process gone, late: that is no failure.
        reportAtLeader("job", FailureReport.ranks("runtime", Map.of(1, "node2"), "process exited"));
        assertEquals(0, recoveries(), "no pause for the moved rank's old process");
        assertEquals(JobState.RUNNING, job("d3").state());
        tickAll();
        assertEquals(Set.of("job/checkpoint/1"), executed, "checkpoints go on once the ranks moved");
    }

    @Test
    void aFailureDuringAMigrationPausesTheJobAndItsReplacementMayTakeTheMigrationsSpare() {
        start(fixed(Duration.ofMinutes(10)), "d1", "d3");
        view(D1, D3, NODE1, NODE2, SPARE1, SPARE2);
        register("job", "node1", "node2");
        migrateAtLeader("job", "node2", "fan failing");
        assertEquals(JobState.MIGRATING, job("d3").state());
        fail(NODE2, D1, D3, NODE1, SPARE1, SPARE2);
        JobRecord job = job("d3");
        assertEquals(JobState.PAUSING, job.state(), "the node died before its rank moved: a pause from the last committed epoch");
        assertTrue(job.migration().isEmpty(), "the move is dropped");
        assertEquals(Map.of(1, "spare2"), placement("d3"), "the spare the move had, the least loaded, is free for the pause");
        assertEquals(1, recoveries());
    }

    @Test
    void aDrainedNodesRanksMoveAtTheNextTickAndADrainedSpareGetsNoRank() {
        start(fixed(Duration.ofMinutes(10)), "d1", "d3");
        view(D1, D3, NODE1, NODE2, SPARE1, SPARE2);
        register("job", "node1", "node2");
        // node2's daemon reports its drain with its load; spare2, the less loaded spare, is drained too.
        Member drainedNode2 = new Member(NODE2.id(), NODE2.metadata(), new NodeLoad(0.0, 1, "health check failed: 91 C"));
        Member drainedSpare2 = new Member(SPARE2.id(), SPARE2.metadata(), new NodeLoad(0.1, 0, "drained by the operator: memory"));
        ClusterView now = new ClusterView(viewId, List.of(D1, D3, NODE1, drainedNode2, SPARE1, drainedSpare2));
        daemons.values().forEach(d -> d.loadsFrom(() -> now));
        tickAll();
        JobRecord.Migration migration = job("d3").migration().orElseThrow();
        assertEquals("drain", migration.source());
        assertEquals("health check failed: 91 C", migration.reason());
        assertEquals(Map.of(1, "spare1"), migration.placement(), "spare2 is drained: only spare1 takes ranks");
    }

    @Test
    void aSpareLostBeforeTheRanksMovedAbandonsTheMigrationAndNobodyPauses() {
        start(fixed(Duration.ofMinutes(10)), "d1", "d3");
        view(D1, D3, NODE1, NODE2, SPARE1, SPARE2);
        register("job", "node1", "node2");
        migrateAtLeader("job", "node2", "fan failing");
        fail(SPARE2, D1, D3, NODE1, NODE2, SPARE1);
        JobRecord job = job("d3");
        assertEquals(JobState.RUNNING, job.state(), "the ranks stay where they were");
        assertEquals(List.of("node1", "node2"), job.rankNodes());
        assertEquals(0, recoveries());
        assertTrue(log.stream().anyMatch(u -> u instanceof SchedulerUpdate.MigrationAbandoned a && a.reason().contains("spare2")), log.toString());
        migrateAtLeader("job", "node2", "again");
        assertEquals(Map.of(1, "spare1"), job("d3").migration().orElseThrow().placement(), "the next migration takes the other spare");
        assertEquals(2, job("d3").migration().orElseThrow().seq());
    }

    @Test
    void aMigrationThatCannotBeDoneIsRefusedWithItsReason() {
        jobOnNode1And2();
        register("restarts", RecoveryMode.RESTART, "node1", "node2");
        register("one-node", "node1");
        SchedulerCore d3 = daemons.get("d3");
        assertTrue(d3.migrationRefusal("nope", "node1").orElseThrow().contains("no job 'nope'"));
        assertTrue(d3.migrationRefusal("restarts", "node1").orElseThrow().contains("only a job in pause mode"),
                d3.migrationRefusal("restarts", "node1").toString());
        assertTrue(d3.migrationRefusal("job", "spare1").orElseThrow().contains("has no rank on node 'spare1'"));
        assertTrue(d3.migrationRefusal("one-node", "node1").orElseThrow().contains("needs a rank that stays"));
        migrateAtLeader("job", "node2", "");
        assertEquals(Map.of(1, "spare1"), job("d3").migration().orElseThrow().placement());
        assertTrue(d3.migrationRefusal("job", "node1").orElseThrow().contains("no free spare for rank 0"),
                "the one spare is the running move's: " + d3.migrationRefusal("job", "node1"));
    }

    private JobRecord job(String daemon) {
        return daemons.get(daemon).table().job("job").orElseThrow();
    }

    /** An operator's migrate request reaching the leader. */
    private void migrateAtLeader(String job, String node, String reason) {
        for (SchedulerCore daemon : List.copyOf(daemons.values())) {
            daemon.migrationRequested(job, node, reason);
        }
    }

    private Map<Integer, String> placement(String daemon) {
        return daemons.get(daemon).table().job("job").orElseThrow().recovery().orElseThrow().placement();
    }

    /** A failure report reaching the leader. */
    private void reportAtLeader(String job, FailureReport report) {
        for (SchedulerCore daemon : List.copyOf(daemons.values())) {
            daemon.failureReported(job, report);
        }
    }

    private void start(SchedulerConfig config, String... names) {
        schedule = config.checkpointInterval().map(CheckpointSchedule::every).orElse(CheckpointSchedule.AUTO);
        for (String name : names) {
            daemons.put(name, new SchedulerCore(name, config, new Placement(new LeastLoadedSpare(), config.whenNoSpare()),
                    new JobTable(), clock::get, () -> clock.get() * 1_000_000, outputsOf(name)));
        }
    }

    private SchedulerCore.Outputs outputsOf(String name) {
        return new SchedulerCore.Outputs() {
            @Override
            public void replicate(SchedulerUpdate update) {
                if (dropProposalsFrom.contains(name)) {
                    return;
                }
                if (holding) {
                    held.add(update);
                } else {
                    deliver(update);
                }
            }

            @Override
            public void transition(JobTransition transition) {
                if (transition.update() instanceof SchedulerUpdate.CheckpointOrdered) {
                    sentBy.add(name);
                }
                if (!name.equals(transition.after().launcher())) {
                    return;
                }
                String job = transition.job();
                String key = switch (transition.update()) {
                    case SchedulerUpdate.CheckpointOrdered u -> job + "/checkpoint/" + u.epoch();
                    case SchedulerUpdate.RecoveryStarted u -> job + "/pause/" + u.failureId();
                    case SchedulerUpdate.RecoveryExtended u -> job + "/pause/" + u.failureId();
                    case SchedulerUpdate.RestartStarted u -> job + "/restart/" + u.failureId();
                    case SchedulerUpdate.JobStopped u -> job + "/stop";
                    default -> null;
                };
                if (key != null && executed.add(key)) {
                    sent.add(transition);
                }
            }
        };
    }

    private Duration interval(String daemon) {
        return daemons.get(daemon).checkpointInterval("job").orElseThrow();
    }

    private static SchedulerUpdate.RecoveryCompleted completed(String job, String failureId, String... rankNodes) {
        return new SchedulerUpdate.RecoveryCompleted(SchedulerUpdate.VERSION, job, failureId, List.of(rankNodes), 1, 10, null);
    }

    private static JobRecord record(JobRecord from, JobState state, long orderedEpoch, Optional<JobRecord.Recovery> recovery) {
        return new JobRecord(from.job(), from.launcher(), from.rankNodes(), from.spares(), state, from.mode(), from.schedule(), from.maxRestarts(),
                from.attempt(), from.committedEpoch(), orderedEpoch, from.servedOrder(), from.lastOrderAtMillis(), recovery, Optional.empty(), false,
                from.flush(), from.migrations(), from.migration(), JobOwner.ROOT, from.lostNodes());
    }

    /** A daemon's request reaching the leader. */
    private void requestAtLeader(SchedulerUpdate update) {
        for (SchedulerCore daemon : List.copyOf(daemons.values())) {
            daemon.request(update);
        }
    }

    /**
     * Ordered delivery to every live daemon, like the group channel: an update proposed while
     * one is being applied is queued behind it, never delivered inside it.
     */
    private void deliver(SchedulerUpdate update) {
        inFlight.add(update);
        if (delivering) {
            return;
        }
        delivering = true;
        try {
            for (SchedulerUpdate next = inFlight.poll(); next != null; next = inFlight.poll()) {
                log.add(next);
                for (SchedulerCore daemon : List.copyOf(daemons.values())) {
                    daemon.apply(next);
                }
            }
        } finally {
            delivering = false;
        }
    }

    private void view(Member... members) {
        ClusterView view = new ClusterView(++viewId, List.of(members));
        for (SchedulerCore daemon : List.copyOf(daemons.values())) {
            daemon.onView(view);
        }
    }

    private void leave(Member leaving, Member... rest) {
        ClusterView view = new ClusterView(++viewId, List.of(rest));
        for (SchedulerCore daemon : List.copyOf(daemons.values())) {
            daemon.onMembershipEvent(new MembershipEvent.NodeLeft(leaving, view));
        }
    }

    private long recoveries() {
        return log.stream().filter(u -> u instanceof SchedulerUpdate.RecoveryStarted).count();
    }

    private void fail(Member failed, Member... survivors) {
        ClusterView view = new ClusterView(++viewId, List.of(survivors));
        for (SchedulerCore daemon : List.copyOf(daemons.values())) {
            daemon.onMembershipEvent(new MembershipEvent.NodeFailed(failed, view));
        }
    }

    private void register(String job, String... nodes) {
        register(job, RecoveryMode.PAUSE, nodes);
    }

    private void register(String job, RecoveryMode mode, String... nodes) {
        deliver(new SchedulerUpdate.JobRegistered(SchedulerUpdate.VERSION, job, "d3", List.of(nodes), List.of(), mode,
                schedule, 2, clock.get(), JobOwner.ROOT));
    }

    /** Delivers the proposals held back, in order, and stops holding. */
    private void release() {
        holding = false;
        List<SchedulerUpdate> out = List.copyOf(held);
        held.clear();
        out.forEach(this::deliver);
    }

    /** Rank 0's report that an epoch (numbered as the order) served checkpoint order {@code order}. */
    private void served(String job, long order) {
        deliver(new SchedulerUpdate.EpochCommitted(SchedulerUpdate.VERSION, job, order, order, 0));
    }

    private void advance(Duration duration) {
        clock.addAndGet(duration.toMillis());
    }

    private void tickAll() {
        for (SchedulerCore daemon : List.copyOf(daemons.values())) {
            daemon.tick();
        }
    }

    private static SchedulerConfig auto(Duration mtbf, Duration cost) {
        return new SchedulerConfig(Optional.empty(), mtbf, cost, java.nio.file.Path.of("/shared"), LeastLoadedSpare.NAME,
                NoSpareAction.STOP_JOB);
    }

    private static SchedulerConfig fixed(Duration interval) {
        return new SchedulerConfig(Optional.of(interval), Duration.ofHours(24), Duration.ofMinutes(1), java.nio.file.Path.of("/shared"),
                LeastLoadedSpare.NAME, NoSpareAction.STOP_JOB);
    }

    private static SchedulerConfig shrinking() {
        return new SchedulerConfig(Optional.of(Duration.ofMinutes(10)), Duration.ofHours(24), Duration.ofMinutes(1),
                java.nio.file.Path.of("/shared"), LeastLoadedSpare.NAME, NoSpareAction.SHRINK);
    }

    private static Member compute(String name) {
        return new Member(name + "-id", NodeMetadata.compute(name, 1, CONTROL), new NodeLoad(0.0, 0));
    }

    private static Member spare(String name, double load) {
        return new Member(name + "-id", NodeMetadata.spare(name, 1, CONTROL), new NodeLoad(load, 0));
    }
}
