package org.mpirunft.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpirunft.daemon.protocol.ControlRequest;

class RestartControllerTest {
    private static final String JOB = "j1";
    private static final JobOutcome LOST = new JobOutcome(JobOutcome.Status.RANKS_LOST, 80, 0, "ranks lost");
    private static final JobOutcome KILLED = new JobOutcome(JobOutcome.Status.FAILED, 143, 143, "mpirun exited with status 143");

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
        view("node1", "node2", "node3", "spare1", "spare2");
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

    private RestartController controller(int maxRestarts) {
        return new RestartController(JOB, daemon.client(), log, maxRestarts, nanos::get);
    }

    private RestartRequest request(String failureId, Set<String> failed, Map<String, String> placement) {
        return new RestartRequest(failureId, failed, placement, "failure " + failureId, false, nanos.get());
    }

    @Test
    void replacesTheFailedNodeInPlaceByTheNextSpareAndKillsTheRestOfTheJob() {
        view("node1", "node3", "spare1", "spare2");
        nanos.set(0);
        RestartController controller = controller(3);
        RestartRequest request = request("f1", Set.of("node2"), Map.of());
        nanos.set(1_500_000_000L);
        HostPlan next = controller.planRelaunch(Optional.of(request), KILLED, plan, plan.rankNodes(), RecoveryMode.RESTART).orElseThrow();

        assertEquals(List.of("node1", "spare1", "node3"), next.rankNodes(), "rank 1 takes the spare, the others keep their nodes");
        assertEquals(List.of("spare2"), next.spareNames());
        assertEquals(new ControlRequest.KillJob(1, JOB, List.of("node1", "node3", "spare1", "spare2")),
                daemon.requests(ControlRequest.KillJob.class).getFirst(),
                "what mpirun left is killed by the daemons of every node but the failed one, whose daemon is gone or fences itself");
        assertEquals(new ControlRequest.RecoveryCompleted(1, JOB, "f1", List.of("node1", "spare1", "node3")),
                daemon.requests(ControlRequest.RecoveryCompleted.class).getFirst());
        JsonNode restart = EventLog.read(dir.resolve("events.jsonl")).getLast();
        assertEquals("restart", restart.get("type").asText());
        assertEquals(2, restart.get("attempt").asInt());
        assertEquals("spare1", restart.get("replacedNodes").get("node2").asText());
        assertEquals(1500.0, restart.get("stopMs").asDouble());
        assertEquals(1, controller.restarts());
    }

    @Test
    void prefersTheSchedulersPlacement() {
        HostPlan next = controller(3).planRelaunch(Optional.of(request("f1", Set.of("node2"), Map.of("node2", "spare2"))), KILLED,
                plan, plan.rankNodes(), RecoveryMode.RESTART).orElseThrow();
        assertEquals(List.of("node1", "spare2", "node3"), next.rankNodes());
        assertEquals(List.of("spare1"), next.spareNames());
    }

    @Test
    void alsoReplacesNodesMissingFromTheDaemonsView() {
        view("node1", "spare1", "spare2");
        HostPlan next = controller(3).planRelaunch(Optional.of(request("f1", Set.of("node2"), Map.of())), KILLED,
                plan, plan.rankNodes(), RecoveryMode.RESTART).orElseThrow();
        assertEquals(List.of("node1", "spare1", "spare2"), next.rankNodes());
        assertEquals(List.of("node1", "spare1", "spare2"), daemon.requests(ControlRequest.KillJob.class).getFirst().nodes(),
                "nodes out of the daemons' view are not asked");
    }

    @Test
    void relaunchesOnTheNodesTheRanksRanOnAfterInPlaceRecoveries() {
        List<String> moved = List.of("node1", "spare1", "node3");
        view("node1", "spare1", "spare2");
        HostPlan next = controller(3).planRelaunch(Optional.of(request("f2", Set.of("node3"), Map.of())), KILLED,
                plan, moved, RecoveryMode.PAUSE).orElseThrow();
        assertEquals(List.of("node1", "spare1", "spare2"), next.rankNodes());
        assertEquals(List.of(), next.spareNames());
    }

    @Test
    void withoutASpareTheRestartIsImpossible() {
        HostPlan noSpares = new HostPlan(plan.compute(), List.of(), 3, HostPlan.Mapping.BY_SLOT);
        view("node1", "node3");
        NoSpareLeftException e = assertThrows(NoSpareLeftException.class, () -> controller(3).planRelaunch(
                Optional.of(request("f1", Set.of("node2"), Map.of())), KILLED, noSpares, noSpares.rankNodes(), RecoveryMode.RESTART));
        assertTrue(e.getMessage().startsWith("no spare left to replace node2 in a restart"), e.getMessage());
    }

    @Test
    void aJobThatEndedBadlyOnHealthyNodesIsNotRestarted() {
        assertEquals(Optional.empty(), controller(3).planRelaunch(Optional.empty(), LOST, plan, plan.rankNodes(), RecoveryMode.PAUSE));
        assertEquals(List.of(), daemon.requests(ControlRequest.KillJob.class));
    }

    @Test
    void aJobThatLostANodeWithoutARequestFallsBackToARestartInPauseMode() {
        view("node1", "node2", "spare1", "spare2");
        HostPlan next = controller(3).planRelaunch(Optional.empty(), LOST, plan, plan.rankNodes(), RecoveryMode.PAUSE).orElseThrow();
        assertEquals(List.of("node1", "node2", "spare1"), next.rankNodes());
        List<String> types = EventLog.read(dir.resolve("events.jsonl")).stream().map(e -> e.get("type").asText()).toList();
        assertEquals(List.of("decision", "fallback", "restart"), types);
        assertEquals(List.of(new ControlRequest.RegisterJob(1, JOB, List.of("node1", "node2", "spare1"))),
                daemon.requests(ControlRequest.RegisterJob.class), "no failure id: the new table is registered");
    }

    @Test
    void stopsRestartingAtTheLimit() {
        RestartController controller = controller(1);
        view("node1", "node3", "spare1", "spare2");
        HostPlan next = controller.planRelaunch(Optional.of(request("f1", Set.of("node2"), Map.of())), KILLED,
                plan, plan.rankNodes(), RecoveryMode.RESTART).orElseThrow();
        assertEquals(Optional.empty(), controller.planRelaunch(Optional.of(request("f2", Set.of("node3"), Map.of())), KILLED,
                next, next.rankNodes(), RecoveryMode.RESTART));
    }

    @Test
    void aSuccessfulOrStoppedJobIsNeverRestarted() {
        view("node1");
        JobOutcome ok = new JobOutcome(JobOutcome.Status.SUCCEEDED, 0, 0, "");
        JobOutcome stopped = new JobOutcome(JobOutcome.Status.STOPPED, 81, 143, "stopped");
        assertEquals(Optional.empty(), controller(3).planRelaunch(Optional.empty(), ok, plan, plan.rankNodes(), RecoveryMode.PAUSE));
        assertEquals(Optional.empty(), controller(3).planRelaunch(Optional.empty(), stopped, plan, plan.rankNodes(), RecoveryMode.PAUSE));
    }
}
