package org.mpirunft.scheduler.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.mpirunft.scheduler.JobRecord;
import org.mpirunft.scheduler.SchedulerUpdate;

class SchedulerCodecTest {
    private static final JobRecord RECOVERING = new JobRecord("a", "head", List.of("n1", "n2"), 3, 4, 1234,
            Optional.of(new JobRecord.Recovery("1@n2", List.of(1), Map.of(1, "spare1"))), Optional.empty());
    private static final JobRecord STOPPED = new JobRecord("b", "head", List.of("n3"), 0, 0, 0, Optional.empty(),
            Optional.of("no free spare for rank 0"));

    @Test
    void everyMessageSurvivesTheWireUnchanged() {
        List<GroupMessage> messages = List.of(
                new GroupMessage.Replicated(1, 2, 3, new SchedulerUpdate.RecoveryStarted(1, "a", "1@n2", List.of(1), Map.of(1, "s1"))),
                new GroupMessage.Replicated(1, 2, 4, new SchedulerUpdate.EpochCommitted(1, "a", 5, 1_500_000)),
                new GroupMessage.Snapshot(1, 7, 0, List.of(RECOVERING, STOPPED)),
                new GroupMessage.StateReport(1, 12, 7, 9, true, List.of(RECOVERING)),
                new GroupMessage.Request(1, new SchedulerUpdate.JobRegistered(1, "c", "head", List.of("n1"), 0)),
                new GroupMessage.CheckpointRequest(1, "a", 4));
        for (GroupMessage message : messages) {
            assertEquals(message, SchedulerCodec.decode(SchedulerCodec.encode(message)));
        }
    }

    @Test
    void unknownFieldsAreIgnoredAndUnknownVersionsOrTypesRefused() {
        String newer = "{\"type\":\"checkpoint-request\",\"v\":1,\"job\":\"a\",\"afterEpoch\":2,\"priority\":\"high\"}";
        assertEquals(new GroupMessage.CheckpointRequest(1, "a", 2), SchedulerCodec.decode(newer.getBytes(StandardCharsets.UTF_8)));
        SchedulerCodec.MalformedMessageException version = assertThrows(SchedulerCodec.MalformedMessageException.class,
                () -> SchedulerCodec.decode("{\"type\":\"checkpoint-request\",\"v\":2,\"job\":\"a\",\"afterEpoch\":2}"
                        .getBytes(StandardCharsets.UTF_8)));
        assertTrue(version.getMessage().contains("version 2"), version.getMessage());
        assertThrows(SchedulerCodec.MalformedMessageException.class,
                () -> SchedulerCodec.decode("{\"type\":\"vote\",\"v\":1}".getBytes(StandardCharsets.UTF_8)));
    }
}
