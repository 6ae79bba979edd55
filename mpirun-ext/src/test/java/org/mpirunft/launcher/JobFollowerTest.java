package org.mpirunft.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpirunft.common.rank.RankMessage;
import org.mpirunft.daemon.protocol.ControlReply;
import org.mpirunft.scheduler.SchedulerUpdate;

/** The job's transitions as mpirun-ft sees them: each to the event log in order, and what the session must carry out. */
class JobFollowerTest {
    private static final int V = SchedulerUpdate.VERSION;
    @TempDir
    Path dir;
    private final List<String> actions = new ArrayList<>();
    private final AtomicLong nanos = new AtomicLong();

    @Test
    void aPauseIsLoggedFromFailureToResumeWithWhereEachReplacedRankWent() throws Exception {
        EventLog log = EventLog.open(dir.resolve("events.jsonl"), "j", Clock.systemUTC());
        JobFollower follower = follower(log, true);
        follower.on(event(new SchedulerUpdate.CheckpointOrdered(V, "j", 1, 0)));
        follower.on(event(new SchedulerUpdate.EpochCommitted(V, "j", 1, 1, 2_500_000)));
        follower.on(event(new SchedulerUpdate.RecoveryStarted(V, "j", "2@node3", "ulfm", Map.of(2, "node3"), Map.of(2, "spare2"),
                "rank 0 saw PROC_FAILED")));
        nanos.addAndGet(1_500_000_000L);
        follower.on(event(new SchedulerUpdate.RecoveryCompleted(V, "j", "2@node3", List.of("node1", "node2", "spare2", "node4"), 1,
                40, new RankMessage.RecoverySplit(10, 200, 20, 400, 250, 90, 60, 700, List.of(2)))));
        log.close();
        List<JsonNode> events = EventLog.read(log.file());
        assertEquals(List.of("checkpoint", "checkpoint", "failure", "decision", "pause", "replacement", "resume"),
                events.stream().map(e -> e.get("type").asText()).toList());
        assertEquals("ulfm", events.get(2).get("source").asText());
        assertEquals("spare2", events.get(3).get("placement").get("2").asText(), "the decision names the spare");
        assertEquals("spare2", events.get(5).get("toNode").asText());
        assertEquals("warm", events.get(5).get("start").asText(), "how the replacement started, as the ranks reported it");
        assertEquals(700.0, events.get(6).get("recoveryMs").asDouble());
        assertEquals(1500.0, events.get(6).get("sincePauseMs").asDouble());
        JsonNode split = events.get(6).get("split");
        assertEquals(250.0, split.get("setupMillis").asDouble(), "the recovery's split is in the resume event");
        assertEquals(90.0, split.get("transferMillis").asDouble());
        assertEquals(400.0, split.get("joinMillis").asDouble());
        assertEquals(1, follower.recoveries());
        assertEquals(List.of("node1", "node2", "spare2", "node4"), follower.rankNodes());
        assertTrue(actions.isEmpty(), "a pause asks nothing of the session: " + actions);
    }

    @Test
    void aShrinkIsLoggedWithTheLostRanksAndTheNewRankCount() throws Exception {
        EventLog log = EventLog.open(dir.resolve("events.jsonl"), "j", Clock.systemUTC());
        JobFollower follower = follower(log, true);
        follower.on(event(new SchedulerUpdate.RecoveryStarted(V, "j", "2@node3", "ulfm", Map.of(2, "node3"), Map.of(),
                "rank 0 saw PROC_FAILED")));
        follower.on(event(new SchedulerUpdate.RecoveryCompleted(V, "j", "2@node3", List.of("node1", "node2", "node4"), 1, 40,
                new RankMessage.RecoverySplit(10, 0, 0, 5, 0, 0, 60, 90, List.of()))));
        log.close();
        List<JsonNode> events = EventLog.read(log.file());
        assertEquals(List.of("failure", "decision", "pause", "shrink", "resume"), events.stream().map(e -> e.get("type").asText()).toList());
        assertEquals("shrink", events.get(1).get("action").asText());
        JsonNode shrink = events.get(3);
        assertEquals(2, shrink.get("lostRanks").get(0).asInt());
        assertEquals(4, shrink.get("fromRanks").asInt());
        assertEquals(3, shrink.get("ranks").asInt());
        assertEquals(0, events.get(4).get("replacedRanks").size(), "nobody replaced, so no replacement events: " + events);
        assertEquals(List.of("node1", "node2", "node4"), follower.rankNodes());
        assertEquals(java.util.OptionalInt.of(2), follower.jobRankOf(3), "mpirun's rank 3 is the job's rank 2 now");
        assertEquals(java.util.OptionalInt.of(1), follower.jobRankOf(1));
        assertTrue(follower.jobRankOf(2).isEmpty(), "mpirun's rank 2 was lost");
    }

    @Test
    void withoutAShrinkMpirunsRanksAreTheJobsRanks() {
        JobFollower follower = follower(EventLog.open(dir.resolve("events.jsonl"), "j", Clock.systemUTC()), true);
        assertEquals(java.util.OptionalInt.of(3), follower.jobRankOf(3));
        assertTrue(follower.jobRankOf(4).isEmpty());
    }

    @Test
    void aCheckpointOrderIsLoggedAtTheSchedulersTimeOfIt() throws Exception {
        EventLog log = EventLog.open(dir.resolve("events.jsonl"), "j", Clock.systemUTC());
        JobFollower follower = follower(log, true);
        follower.on(event(new SchedulerUpdate.CheckpointOrdered(V, "j", 3, 1_795_000_000_123L)));
        log.close();
        assertEquals(java.time.Instant.ofEpochMilli(1_795_000_000_123L).toString(), EventLog.read(log.file()).getFirst().get("time").asText(),
                "the order's time, not when the launcher heard of it");
    }

    @Test
    void aRestartInPauseModeIsAFallbackTheSessionCarriesOut() throws Exception {
        EventLog log = EventLog.open(dir.resolve("events.jsonl"), "j", Clock.systemUTC());
        JobFollower follower = follower(log, true);
        follower.on(event(new SchedulerUpdate.RestartStarted(V, "j", "2@node3", "ranks", Map.of(2, "node3"), Map.of(2, "spare1"),
                List.of("node1", "node2", "spare1", "node4"), "the ranks' in-place recovery failed")));
        log.close();
        assertEquals(List.of("failure", "decision", "fallback"), EventLog.read(log.file()).stream().map(e -> e.get("type").asText())
                .toList());
        assertEquals(List.of("restart [node1, node2, spare1, node4]"), actions);
    }

    @Test
    void aStopAndTheProgramsEndAreHandedToTheSession() throws Exception {
        EventLog log = EventLog.open(dir.resolve("events.jsonl"), "j", Clock.systemUTC());
        JobFollower follower = follower(log, true);
        follower.on(event(new SchedulerUpdate.ProgramFinished(V, "j")));
        follower.on(event(new SchedulerUpdate.JobStopped(V, "j", "no-spare", "no free spare for rank 3")));
        log.close();
        assertEquals(List.of("finished", "stop no-spare"), actions);
        assertEquals("no-spare", follower.stopped().orElseThrow().cause());
    }

    private JobFollower follower(EventLog log, boolean pauseMode) {
        return new JobFollower("j", List.of("node1", "node2", "node3", "node4"),
                pauseMode ? org.mpirunft.scheduler.RecoveryMode.PAUSE : org.mpirunft.scheduler.RecoveryMode.RESTART, log, new JobFollower.Actions() {
            @Override
            public void restart(String failureId, List<String> rankNodes, java.util.Set<String> lostNodes, String reason) {
                actions.add("restart " + rankNodes);
            }

            @Override
            public void stop(String cause, String reason) {
                actions.add("stop " + cause);
            }

            @Override
            public void programFinished() {
                actions.add("finished");
            }
        }, nanos::get);
    }

    /** The daemon's event for a transition; the status is not needed by these tests. */
    private static ControlReply.JobEvent event(SchedulerUpdate update) {
        return new ControlReply.JobEvent(ControlReply.VERSION, update.job(), update, null);
    }
}
