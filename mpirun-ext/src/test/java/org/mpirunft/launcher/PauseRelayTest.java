package org.mpirunft.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpirunft.bridge.control.PauseOrder;
import org.mpirunft.daemon.protocol.ControlRequest;
import org.mpirunft.daemon.protocol.ErrorCode;

/** The relay against a fake daemon on a real Unix socket: what reaches the daemon is what would reach the ranks. */
class PauseRelayTest {
    private static final String JOB = "j1";
    /** The rank library reads pause orders with unknown fields refused; read them the same way. */
    private static final ObjectMapper STRICT = new ObjectMapper().enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    @TempDir
    Path dir;
    private FakeDaemon daemon;
    private EventLog log;
    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
    private final JobEvidence evidence = new JobEvidence();
    private final List<RestartRequest> restarts = new ArrayList<>();
    private final List<String> stops = new ArrayList<>();
    private boolean runtimeAlive = true;
    private final RankTable table = new RankTable(List.of("node1", "node2", "node3"));

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

    private PauseRelay relay(RecoveryMode mode, List<String> spareSlots) {
        return new PauseRelay(JOB, daemon.client(), log, table, spareSlots, mode, evidence, new PauseRelay.Escalation() {
            @Override
            public boolean runtimeAlive() {
                return runtimeAlive;
            }

            @Override
            public void restart(RestartRequest request) {
                restarts.add(request);
            }

            @Override
            public void stop(String reason) {
                stops.add(reason);
            }
        }, nanos::get, 100);
    }

    private static org.mpirunft.daemon.protocol.ControlReply.JobCommand pause(String key, String failureId, Map<Integer, String> placement) {
        return FakeDaemon.command(JOB, "pause", key, 0, failureId, placement, "");
    }

    private static JobSignal.Recovered recovered(Integer... ranks) {
        return new JobSignal.Recovered(List.of(ranks), 3, 30, 512.5, "[mpirun-ft] recovered ...");
    }

    private List<String> eventTypes() {
        return EventLog.read(dir.resolve("events.jsonl")).stream().map(e -> e.get("type").asText()).toList();
    }

    @Test
    void deliversAPauseOrderToTheLiveRanksNodesWithTheChosenSpare() throws Exception {
        PauseRelay relay = relay(RecoveryMode.PAUSE, List.of("spare1"));
        relay.onCommand(pause("pause/f1", "f1", Map.of(1, "spare1")));

        ControlRequest.DeliverRankControl delivered = daemon.requests(ControlRequest.DeliverRankControl.class).getFirst();
        assertEquals(JOB, delivered.job());
        assertEquals(List.of("node1", "node3"), delivered.nodes(), "not the failed node");
        assertEquals("pause.json", delivered.file());
        PauseOrder order = STRICT.readValue(delivered.content(), PauseOrder.class);
        assertEquals(new PauseOrder(PauseOrder.VERSION, 100, "failure f1", List.of("spare1"), Map.of(1, "node2")), order);
        assertEquals(List.of("f1"), relay.pendingFailureIds());
        assertEquals(List.of("failure", "decision", "pause"), eventTypes());
        assertTrue(evidence.hasUnrecoveredFailure(), "the failure is pending until the ranks recover");
    }

    @Test
    void actsOnEachCommandKeyOnceAndNumbersOrdersUpwards() throws Exception {
        PauseRelay relay = relay(RecoveryMode.PAUSE, List.of("spare1", "spare2"));
        relay.onCommand(pause("pause/f1", "f1", Map.of(1, "spare1")));
        relay.onCommand(pause("pause/f1", "f1", Map.of(1, "spare1")));
        relay.onCommand(pause("pause/f2", "f2", Map.of(2, "spare2")));
        List<ControlRequest.DeliverRankControl> orders = daemon.requests(ControlRequest.DeliverRankControl.class);
        assertEquals(2, orders.size(), "a repeated key (a new scheduler leader re-sending) is not acted on again");
        assertEquals(100, STRICT.readValue(orders.get(0).content(), PauseOrder.class).id());
        assertEquals(101, STRICT.readValue(orders.get(1).content(), PauseOrder.class).id());
    }

    @Test
    void afterTheRecoveryReportsTheNewRankTableToTheDaemonsAndTheRanks() throws Exception {
        PauseRelay relay = relay(RecoveryMode.PAUSE, List.of("spare1"));
        relay.onCommand(pause("pause/f1", "f1", Map.of(1, "spare1")));
        nanos.addAndGet(750_000_000L);
        relay.recovered(recovered(1));

        ControlRequest.RecoveryCompleted completed = daemon.requests(ControlRequest.RecoveryCompleted.class).getFirst();
        assertEquals(new ControlRequest.RecoveryCompleted(1, JOB, "f1", List.of("node1", "spare1", "node3")), completed);
        ControlRequest.DeliverRankControl rankTable = daemon.requests(ControlRequest.DeliverRankControl.class).get(1);
        assertEquals("rank-table.json", rankTable.file());
        assertEquals(List.of("node1", "spare1", "node3"), rankTable.nodes(), "every rank node, the replacement's included");
        RankControlFiles.RankTableUpdate update = RankControlFiles.fromJson(rankTable.content(), RankControlFiles.RankTableUpdate.class);
        assertEquals(RankControlFiles.RankTableUpdate.of(JOB, "f1", List.of("node1", "spare1", "node3")), update);
        assertEquals(List.of(), relay.pendingFailureIds());
        assertEquals(1, relay.recoveries());
        assertEquals(false, evidence.hasUnrecoveredFailure());
        JsonNode resume = EventLog.read(dir.resolve("events.jsonl")).getLast();
        assertEquals("resume", resume.get("type").asText());
        assertEquals(750.0, resume.get("sincePauseMs").asDouble());
        JsonNode replacement = EventLog.read(dir.resolve("events.jsonl")).get(3);
        assertEquals("replacement", replacement.get("type").asText());
        assertEquals("node2", replacement.get("fromNode").asText());
        assertEquals("spare1", replacement.get("toNode").asText());
    }

    @Test
    void aRecoveryTheRanksMadeOnTheirOwnSettlesTheLaterPauseWithoutAnOrder() {
        PauseRelay relay = relay(RecoveryMode.PAUSE, List.of("spare1"));
        relay.recovered(recovered(2));
        assertEquals(List.of("rank-table.json"), daemon.requests(ControlRequest.DeliverRankControl.class).stream()
                .map(ControlRequest.DeliverRankControl::file).toList());
        assertEquals(List.of(), daemon.requests(ControlRequest.RecoveryCompleted.class), "no failure id yet");

        relay.onCommand(pause("pause/f9", "f9", Map.of(2, "spare1")));
        assertEquals(false, daemon.requests(ControlRequest.DeliverRankControl.class).stream().anyMatch(d -> d.file().equals("pause.json")),
                "no second rollback for a failure already recovered");
        assertEquals(List.of(new ControlRequest.RecoveryCompleted(1, JOB, "f9", List.of("node1", "node2", "spare1"))),
                daemon.requests(ControlRequest.RecoveryCompleted.class));
        assertEquals(false, evidence.hasUnrecoveredFailure());
    }

    @Test
    void defersThePauseOfAFailureMpirunAlreadyReportedAndLetsTheRanksRecover() throws Exception {
        java.util.concurrent.ScheduledExecutorService thread = java.util.concurrent.Executors.newSingleThreadScheduledExecutor();
        try {
            PauseRelay relay = relay(RecoveryMode.PAUSE, List.of("spare1")).deferPausesMpirunSaw(thread, java.time.Duration.ofMillis(300));
            thread.submit(() -> {
                relay.mpirunReportedLost("node2");
                relay.onCommand(pause("pause/f1", "f1", Map.of(1, "spare1")));
            }).get();
            assertEquals(List.of(), daemon.requests(ControlRequest.DeliverRankControl.class), "no order: the ranks are recovering");
            assertEquals(List.of("f1"), relay.pendingFailureIds());
            thread.submit(() -> relay.recovered(recovered(1))).get();
            Thread.sleep(500);
            assertEquals(List.of(new ControlRequest.RecoveryCompleted(1, JOB, "f1", List.of("node1", "spare1", "node3"))),
                    daemon.requests(ControlRequest.RecoveryCompleted.class));
            assertEquals(List.of("rank-table.json"), daemon.requests(ControlRequest.DeliverRankControl.class).stream()
                    .map(ControlRequest.DeliverRankControl::file).toList(), "and no late order after the recovery");
        } finally {
            thread.shutdownNow();
        }
    }

    @Test
    void sendsADeferredPauseOrderWhenTheRanksDoNotRecoverInTime() throws Exception {
        java.util.concurrent.ScheduledExecutorService thread = java.util.concurrent.Executors.newSingleThreadScheduledExecutor();
        try {
            PauseRelay relay = relay(RecoveryMode.PAUSE, List.of("spare1")).deferPausesMpirunSaw(thread, java.time.Duration.ofMillis(100));
            thread.submit(() -> {
                relay.mpirunReportedLost("node2");
                relay.onCommand(pause("pause/f1", "f1", Map.of(1, "spare1")));
            }).get();
            ControlRequest.DeliverRankControl order = daemon.await(ControlRequest.DeliverRankControl.class, d -> true,
                    java.time.Duration.ofSeconds(5));
            assertEquals("pause.json", order.file());
            assertEquals(List.of("node1", "node3"), order.nodes());
        } finally {
            thread.shutdownNow();
        }
    }

    @Test
    void fallsBackToARestartWhenTheSchedulerFoundNoSpare() {
        PauseRelay relay = relay(RecoveryMode.PAUSE, List.of("spare1"));
        relay.onCommand(pause("pause/f1", "f1", Map.of(1, "")));
        assertEquals(1, restarts.size());
        RestartRequest request = restarts.getFirst();
        assertTrue(request.fallback());
        assertEquals(java.util.Set.of("node2"), request.failedNodes());
        assertEquals("the scheduler found no spare for ranks [1]", request.reason());
        assertEquals(List.of(), daemon.requests(ControlRequest.DeliverRankControl.class));
        assertEquals(List.of("failure", "decision", "fallback"), eventTypes());
    }

    @Test
    void fallsBackWhenTheRanksSpareListIsUsedUp() {
        PauseRelay relay = relay(RecoveryMode.PAUSE, List.of("spare1"));
        relay.recovered(recovered(0));
        relay.onCommand(pause("pause/f2", "f2", Map.of(1, "spare2")));
        assertEquals("the ranks have 0 spare slot(s) left for 1 lost rank(s)", restarts.getFirst().reason());
        assertEquals(Map.of("node2", "spare2"), restarts.getFirst().placement(), "the restart may still use the scheduler's choice");
    }

    @Test
    void fallsBackWhenTheMpiRuntimeIsGone() {
        runtimeAlive = false;
        relay(RecoveryMode.PAUSE, List.of("spare1")).onCommand(pause("pause/f1", "f1", Map.of(1, "spare1")));
        assertEquals("the MPI runtime is gone, so there are no ranks to pause", restarts.getFirst().reason());
    }

    @Test
    void fallsBackWhenThePauseOrderCannotBeDelivered() {
        daemon.override(r -> r instanceof ControlRequest.DeliverRankControl ? FakeDaemon.failed(ErrorCode.UNREACHABLE, "node3 did not answer") : null);
        relay(RecoveryMode.PAUSE, List.of("spare1")).onCommand(pause("pause/f1", "f1", Map.of(1, "spare1")));
        assertEquals("the pause order could not be delivered: node3 did not answer", restarts.getFirst().reason());
    }

    @Test
    void inRestartModeAPauseBecomesAWholeJobRestart() {
        relay(RecoveryMode.RESTART, List.of()).onCommand(pause("pause/f1", "f1", Map.of(1, "spare1")));
        RestartRequest request = restarts.getFirst();
        assertEquals(false, request.fallback());
        assertEquals("f1", request.failureId());
        assertEquals(Map.of("node2", "spare1"), request.placement());
    }

    @Test
    void aLateCommandForAFailureTheRestartRepairedRestartsNothing() throws Exception {
        PauseRelay relay = relay(RecoveryMode.RESTART, List.of());
        // mpirun's own report restarted the job with rank 1 on spare1; the scheduler's command follows.
        relay.relaunched(List.of("node1", "spare1", "node3"), List.of(), evidence);
        relay.onCommand(pause("pause/f1", "f1", Map.of(1, "spare1")));
        assertEquals(List.of(), restarts, "no second restart, and no restart of spare1");
        assertEquals(List.of("node1", "spare1", "node3"), daemon.requests(ControlRequest.RecoveryCompleted.class).getFirst().rankNodes());
    }

    @Test
    void checkpointOrdersGoToEveryRankNode() throws Exception {
        relay(RecoveryMode.PAUSE, List.of()).onCommand(FakeDaemon.command(JOB, "checkpoint", "checkpoint/7", 7, "", Map.of(), ""));
        List<ControlRequest.DeliverRankControl> delivered = daemon.requests(ControlRequest.DeliverRankControl.class);
        assertEquals(List.of("checkpoint.json"), delivered.stream().map(ControlRequest.DeliverRankControl::file).toList());
        assertEquals(List.of("node1", "node2", "node3"), delivered.getFirst().nodes());
        assertEquals(RankControlFiles.CheckpointOrder.of(7),
                RankControlFiles.fromJson(delivered.getFirst().content(), RankControlFiles.CheckpointOrder.class));
    }

    @Test
    void aStopCommandStopsTheJobWithItsReason() {
        relay(RecoveryMode.PAUSE, List.of()).onCommand(FakeDaemon.command(JOB, "stop", "stop/1", 0, "", Map.of(), "no spare left for rank 2"));
        assertEquals(List.of("no spare left for rank 2"), stops);
    }

    @Test
    void aCommandNamingAnUnknownRankIsIgnored() {
        PauseRelay relay = relay(RecoveryMode.PAUSE, List.of("spare1"));
        relay.onCommand(pause("pause/f1", "f1", Map.of(7, "spare1")));
        assertEquals(List.of(), daemon.requests(ControlRequest.DeliverRankControl.class));
        assertEquals(List.of(), restarts);
    }
}
