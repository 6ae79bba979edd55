package org.mpirunft.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpirunft.daemon.protocol.ControlRequest;

/** The restart half mpirun-ft carries out: kill what the job left on live nodes, relaunch on the scheduler's plan. */
class RestartControllerTest {
    private static final String JOB = "j1";

    @TempDir
    Path dir;
    private FakeDaemon daemon;
    private EventLog log;
    private final AtomicLong nanos = new AtomicLong();
    private final HostPlan plan = new HostPlan(List.of(new HostSlot("node1", 1), new HostSlot("node2", 1), new HostSlot("node3", 1)),
            List.of(new HostSlot("spare1", 1), new HostSlot("spare2", 1)), 3, HostPlan.Mapping.BY_SLOT);

    @BeforeEach
    void start() throws Exception {
        daemon = new FakeDaemon(dir.resolve("ftd.sock"));
        log = EventLog.open(dir.resolve("events.jsonl"), JOB, Clock.systemUTC());
    }

    @AfterEach
    void stop() throws Exception {
        log.close();
        daemon.close();
    }

    private void view(String... nodes) {
        daemon.status(FakeDaemon.status("head", java.util.Arrays.stream(nodes)
                .map(n -> FakeDaemon.member(n, n.startsWith("spare") ? "SPARE" : "COMPUTE", 1)).toList()));
    }

    @Test
    void relaunchesOnTheSchedulersPlanAndKillsWhatTheJobLeftOnLiveNodesOnly() {
        view("node1", "node2", "spare1", "spare2");
        HostPlan next = new RestartController(JOB, daemon.client(), log, nanos::get).relaunchPlan(plan,
                List.of("node1", "node2", "spare1"), java.util.Set.of("node3"));
        assertEquals(List.of("node1", "node2", "spare1"), next.rankNodes());
        assertEquals(List.of("spare2"), next.spareNames(), "spare1 runs a rank now; spare2 stays a spare");
        ControlRequest.KillJob kill = daemon.requests(ControlRequest.KillJob.class).getFirst();
        assertEquals(JOB, kill.job());
        assertEquals(List.of("node1", "node2", "spare1", "spare2", "head"), kill.nodes(),
                "node3 is out of the view: its daemon is not asked; the launcher's node is (a restore's mpirun runs there)");
    }

    @Test
    void aLostNodeStillInTheViewIsNotAsked() {
        // The view drops a dead node a few hundred ms after the scheduler's decision named it lost.
        view("node1", "node2", "node3", "spare1", "spare2");
        new RestartController(JOB, daemon.client(), log, nanos::get).relaunchPlan(plan, List.of("node1", "node2", "spare1"),
                java.util.Set.of("node3"));
        assertEquals(List.of("node1", "node2", "spare1", "spare2", "head"),
                daemon.requests(ControlRequest.KillJob.class).getFirst().nodes());
    }

    @Test
    void aSpareThatLeftTheViewIsNoLongerASpare() {
        view("node1", "node2", "spare1");
        HostPlan next = new RestartController(JOB, daemon.client(), log, nanos::get).relaunchPlan(plan,
                List.of("node1", "node2", "spare1"), java.util.Set.of("node3"));
        assertEquals(List.of(), next.spareNames());
    }

    @Test
    void namesTheNodesWhoseRanksMoved() {
        assertEquals(Map.of("node3", "spare1"), RestartController.replacedNodes(List.of("node1", "node2", "node3"),
                List.of("node1", "node2", "spare1")));
    }
}
