package org.mpirunft.scheduler.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.mpirunft.common.CheckpointSchedule;
import org.mpirunft.common.JobOwner;
import org.mpirunft.common.rank.RankMessage;
import org.mpirunft.scheduler.FailureReport;
import org.mpirunft.scheduler.JobRecord;
import org.mpirunft.scheduler.JobState;
import org.mpirunft.scheduler.RecoveryMode;
import org.mpirunft.scheduler.SchedulerUpdate;

class SchedulerCodecTest {
    private static final JobRecord RECOVERING = new JobRecord("a", "head", List.of("n1", "n2"), List.of("spare1"), JobState.PAUSING, RecoveryMode.PAUSE,
            CheckpointSchedule.AUTO, 10, 1, 3, 4, 3, 1234,
            Optional.of(new JobRecord.Recovery("1@n2", 2, "ulfm", Map.of(1, "n2"), Map.of(1, "spare1"))), Optional.empty(), false,
            new JobRecord.Flush(3, List.of("n2"), List.of("n1"), List.of()), 0, Optional.empty(), JobOwner.ROOT, List.of("n4"));
    private static final JobRecord STOPPED = new JobRecord("b", "head", List.of("n3"), List.of(), JobState.STOPPED, RecoveryMode.RESTART,
            CheckpointSchedule.everyIterations(4), 3, 2, 0, 0, 0, 0, Optional.empty(),
            Optional.of(new JobRecord.Stop("no-spare", "no free spare for rank 0")), true, JobRecord.Flush.NONE, 0, Optional.empty(), JobOwner.ROOT, List.of());
    private static final JobRecord MIGRATING = new JobRecord("c", "head", List.of("n1", "n2"), List.of("spare1"), JobState.MIGRATING,
            RecoveryMode.PAUSE, CheckpointSchedule.AUTO, 10, 1, 3, 4, 4, 1234, Optional.empty(), Optional.empty(), false,
            JobRecord.Flush.NONE, 2, Optional.of(new JobRecord.Migration(2, "drain", "health check failed", Map.of(1, "n2"),
            Map.of(1, "spare1"))), JobOwner.ROOT, List.of());

    @Test
    void everyMessageSurvivesTheWireUnchanged() {
        int v = GroupMessage.VERSION;
        List<GroupMessage> messages = List.of(
                new GroupMessage.FailureRequest(v, "a", FailureReport.nodes("runtime", List.of("n2"), "lost daemon")),
                new GroupMessage.RestartRequest(v, "a", "runtime", "mpirun ended", null),
                new GroupMessage.RestartRequest(v, "a", "ranks", "rank 1: recovery failed", new FailureReport.Reporter(1, "n2")),
                new GroupMessage.FailureRequest(v, "a", new FailureReport("ulfm", Map.of(2, "n3"), List.of(), "rank 0 saw it",
                        new FailureReport.Reporter(0, "n1"))),
                new GroupMessage.MigrationRequest(v, "c", "n2", "fan failing"),
                new GroupMessage.Request(v, new SchedulerUpdate.JobRegistered(2, "c", "head", List.of("n1"), List.of("s1", "s2"), RecoveryMode.FULL_RESTART,
                        CheckpointSchedule.parse("x", "2s"), 5, 0, JobOwner.ROOT)),
                new GroupMessage.CheckpointRequest(v, "a", 4),
                new GroupMessage.Request(v, new SchedulerUpdate.FlushRequested(2, "a", 3, "n2")),
                new GroupMessage.Request(v, new SchedulerUpdate.FlushDone(2, "a", 3, "n2")));
        for (GroupMessage message : messages) {
            assertEquals(message, SchedulerCodec.decode(SchedulerCodec.encode(message)));
        }
    }

    @Test
    void everyLogEntryAndSnapshotSurvivesTheLogUnchanged() {
        int v = LogEntry.VERSION;
        List<LogEntry> entries = List.of(
                new LogEntry.Update(v, new SchedulerUpdate.RecoveryStarted(2, "a", "1@n2", "ulfm", Map.of(1, "n2"),
                        Map.of(1, "s1"), "rank 0 saw it")),
                new LogEntry.Update(v, new SchedulerUpdate.RecoveryCompleted(2, "a", "1@n2", List.of("n1", "s1"), 3, 40,
                        new RankMessage.RecoverySplit(1, 2, 3, 4, 1, 1, 5, 15, List.of()))),
                new LogEntry.Update(v, new SchedulerUpdate.EpochCommitted(2, "a", 5, 4, 1_500_000)),
                new LogEntry.Update(v, new SchedulerUpdate.CheckpointAbandoned(2, "a", 5, 6, "part 1 not written")),
                new LogEntry.Update(v, new SchedulerUpdate.MigrationStarted(4, "c", 2, "operator", "fan failing",
                        Map.of(1, "n2"), Map.of(1, "spare1"))),
                new LogEntry.Update(v, new SchedulerUpdate.MigrationCompleted(4, "c", 2, List.of("n1", "spare1"), 40,
                        new RankMessage.MigrationSplit(120, 300, 45, 900, 1300, 1 << 20))),
                new LogEntry.Update(v, new SchedulerUpdate.MigrationAbandoned(4, "c", 3, "spare1 was lost")),
                new LogEntry.Update(v, new SchedulerUpdate.FlushGranted(2, "a", 3, "n2")),
                new LogEntry.LeaderStarted(v, "n1", 7),
                new LogEntry.Imported(v, List.of(RECOVERING, STOPPED, MIGRATING)));
        for (LogEntry entry : entries) {
            assertEquals(entry, SchedulerCodec.decodeEntry(SchedulerCodec.encode(entry)));
        }
        LogEntry.Snapshot snapshot = new LogEntry.Snapshot(v, true, List.of(RECOVERING, STOPPED, MIGRATING));
        assertEquals(snapshot, SchedulerCodec.decodeSnapshot(SchedulerCodec.encode(snapshot)));
        assertThrows(SchedulerCodec.MalformedMessageException.class,
                () -> SchedulerCodec.decodeEntry("{\"type\":\"leader-started\",\"v\":9,\"node\":\"n1\",\"term\":1}".getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void unknownFieldsAreIgnoredAndUnknownVersionsOrTypesRefused() {
        String newer = "{\"type\":\"checkpoint-request\",\"v\":3,\"job\":\"a\",\"afterEpoch\":2,\"priority\":\"high\"}";
        assertEquals(new GroupMessage.CheckpointRequest(3, "a", 2), SchedulerCodec.decode(newer.getBytes(StandardCharsets.UTF_8)));
        SchedulerCodec.MalformedMessageException version = assertThrows(SchedulerCodec.MalformedMessageException.class,
                () -> SchedulerCodec.decode("{\"type\":\"checkpoint-request\",\"v\":1,\"job\":\"a\",\"afterEpoch\":2}"
                        .getBytes(StandardCharsets.UTF_8)));
        assertTrue(version.getMessage().contains("version 1"), version.getMessage());
        assertThrows(SchedulerCodec.MalformedMessageException.class,
                () -> SchedulerCodec.decode("{\"type\":\"vote\",\"v\":1}".getBytes(StandardCharsets.UTF_8)));
    }
}
