package org.mpirunft.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
import org.mpirunft.membership.ClusterView;
import org.mpirunft.membership.Member;
import org.mpirunft.membership.MembershipEvent;
import org.mpirunft.membership.NodeLoad;
import org.mpirunft.membership.NodeMetadata;
import org.mpirunft.scheduler.config.SchedulerConfig;
import org.mpirunft.scheduler.policy.LeastLoadedSpare;
import org.mpirunft.scheduler.policy.NoSpareAction;
import org.mpirunft.scheduler.policy.Placement;

/**
 * Three scheduler replicas (the daemons d1, d2, d3) over an in-memory ordered bus, with a
 * deterministic clock and a launcher that acts on each command key once, as mpirun-ft does.
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
    private final List<SchedulerCommand> sent = new ArrayList<>();
    private final Set<String> dropProposalsFrom = new java.util.HashSet<>();
    private long viewId;

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
        advance(Duration.ofMinutes(5));
        tickAll();
        assertEquals(1, executed.size(), "not due again before another interval");
        advance(Duration.ofMinutes(5));
        tickAll();
        assertEquals(Set.of("job/checkpoint/1", "job/checkpoint/2"), executed);
        assertEquals(2, sent.size(), "only the leader sends commands");
    }

    @Test
    void aNewLeaderKeepsTheCheckpointRhythm() {
        start(fixed(Duration.ofMinutes(10)), "d1", "d2", "d3");
        view(D1, D2, D3, NODE1, NODE2, SPARE1);
        register("job", "node1", "node2");
        advance(Duration.ofMinutes(10));
        tickAll();
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
        long pauses = sent.stream().filter(c -> c instanceof SchedulerCommand.Pause).count();
        assertEquals(2, pauses, "the new leader re-sends the open recovery's pause");
        assertEquals(Set.of("job/pause/1@node2"), executed, "with the same key, so the launcher acts once");
        deliver(new SchedulerUpdate.RecoveryCompleted(SchedulerUpdate.VERSION, "job", "1@node2"));
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
        start(fixed(Duration.ofMinutes(10)), "d1");
        Member node3 = compute("node3");
        view(D1, NODE1, NODE2, node3, SPARE1);
        register("a", "node1", "node2");
        register("b", "node3");
        fail(NODE2, D1, NODE1, node3, SPARE1);
        deliver(new SchedulerUpdate.RecoveryCompleted(SchedulerUpdate.VERSION, "a", "1@node2"));
        fail(node3, D1, NODE1, SPARE1);
        JobRecord b = daemons.get("d1").table().job("b").orElseThrow();
        assertTrue(b.stopped(), "spare1 now runs a's rank: b has no spare");
        assertTrue(b.stopReason().orElseThrow().contains("no free spare for rank 0"), b.stopReason().orElseThrow());
        assertTrue(executed.contains("b/stop"));
        assertEquals(List.of("node1", "spare1"), daemons.get("d1").table().job("a").orElseThrow().rankNodes());
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
                    public void send(SchedulerCommand command) {
                    }
                });
        daemons.put("d1", core);
        core.onView(new ClusterView(1, List.of(D1, NODE1, NODE2, SPARE1)));
        core.apply(new SchedulerUpdate.JobRegistered(SchedulerUpdate.VERSION, "job", "head:9000", List.of("node1", "node2"), 0));
        core.onMembershipEvent(new MembershipEvent.NodeFailed(NODE2, new ClusterView(2, List.of(D1, NODE1, SPARE1))));
        assertEquals(List.of(250_000L), core.decisionNanos());
    }

    private void start(SchedulerConfig config, String... names) {
        for (String name : names) {
            daemons.put(name, new SchedulerCore(name, config, new Placement(new LeastLoadedSpare(), config.whenNoSpare()),
                    new JobTable(), clock::get, System::nanoTime, outputsOf(name)));
        }
    }

    private SchedulerCore.Outputs outputsOf(String name) {
        return new SchedulerCore.Outputs() {
            @Override
            public void replicate(SchedulerUpdate update) {
                if (!dropProposalsFrom.contains(name)) {
                    deliver(update);
                }
            }

            @Override
            public void send(SchedulerCommand command) {
                sent.add(command);
                executed.add(command.key());
            }
        };
    }

    /** Ordered delivery to every live daemon, like the group channel. */
    private void deliver(SchedulerUpdate update) {
        log.add(update);
        for (SchedulerCore daemon : List.copyOf(daemons.values())) {
            daemon.apply(update);
        }
    }

    private void view(Member... members) {
        ClusterView view = new ClusterView(++viewId, List.of(members));
        for (SchedulerCore daemon : List.copyOf(daemons.values())) {
            daemon.onView(view);
        }
    }

    private void fail(Member failed, Member... survivors) {
        ClusterView view = new ClusterView(++viewId, List.of(survivors));
        for (SchedulerCore daemon : List.copyOf(daemons.values())) {
            daemon.onMembershipEvent(new MembershipEvent.NodeFailed(failed, view));
        }
    }

    private void register(String job, String... nodes) {
        deliver(new SchedulerUpdate.JobRegistered(SchedulerUpdate.VERSION, job, "head:9000", List.of(nodes), clock.get()));
    }

    private void advance(Duration duration) {
        clock.addAndGet(duration.toMillis());
    }

    private void tickAll() {
        for (SchedulerCore daemon : List.copyOf(daemons.values())) {
            daemon.tick();
        }
    }

    private static SchedulerConfig fixed(Duration interval) {
        return new SchedulerConfig(Optional.of(interval), Duration.ofHours(24), Duration.ofMinutes(1), java.nio.file.Path.of("/local"),
                java.nio.file.Path.of("/shared"), List.of(), LeastLoadedSpare.NAME, NoSpareAction.STOP_JOB, Duration.ofSeconds(60));
    }

    private static Member compute(String name) {
        return new Member(name + "-id", NodeMetadata.compute(name, 1, CONTROL), new NodeLoad(0.0, 0));
    }

    private static Member spare(String name, double load) {
        return new Member(name + "-id", NodeMetadata.spare(name, 1, CONTROL), new NodeLoad(load, 0));
    }
}
