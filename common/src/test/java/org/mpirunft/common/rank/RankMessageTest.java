package org.mpirunft.common.rank;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.mpirunft.common.JsonLines;

class RankMessageTest {
    @Test
    void everyMessageSurvivesTheWireUnchanged() {
        List<RankMessage> messages = List.of(
                new RankMessage.Hello(RankMessage.VERSION, "job1", 2, 4242, true),
                new RankMessage.EpochCommitted(RankMessage.VERSION, "job1", 3, 3, 24, 4096, 0.5, 12.25),
                new RankMessage.EpochAbandoned(RankMessage.VERSION, "job1", 4, 4, "rank 1's part could not be written"),
                new RankMessage.FailureSeen(RankMessage.VERSION, "job1", 0, Map.of(2, "node3")),
                new RankMessage.RecoveryDone(RankMessage.VERSION, "job1", "2@node3", List.of(2),
                        List.of("node1", "node2", "spare1", "node4"), 3, 24, 1_700_000_000_000L,
                        new RankMessage.RecoverySplit(10, 200, 20, 400, 250, 90, 60, 700, List.of(2))),
                new RankMessage.RecoveryFailed(RankMessage.VERSION, "job1", 1, "spawn failed", true),
                new RankMessage.RecoveryFailed(RankMessage.VERSION, "job1", 1, "cannot shrink", false, RankMessage.RecoveryFailed.NO_SPARE),
                new RankMessage.Finished(RankMessage.VERSION, "job1"),
                new RankMessage.Leaving(RankMessage.VERSION, "job1", 2, "its run completed"),
                new RankMessage.FlushWanted(RankMessage.VERSION, "job1", 2, 5),
                new RankMessage.FlushDone(RankMessage.VERSION, "job1", 2, 5),
                new RankMessage.FlushGrant(RankMessage.VERSION, "job1", 5),
                new RankMessage.Welcome(RankMessage.VERSION, "job1", "node3", true, 2, 1, 0, 0),
                new RankMessage.Refused(RankMessage.VERSION, "pid 7 is not a process of job1"),
                new RankMessage.CheckpointOrder(RankMessage.VERSION, "job1", 4),
                new RankMessage.PauseOrder(RankMessage.VERSION, "job1", "2@node3", 1, Map.of(2, "node3"), Map.of(2, "spare2")),
                new RankMessage.StopOrder(RankMessage.VERSION, "job1", "no spare left"),
                RankMessage.Hello.ofSpare("job1", 4243, 5),
                new RankMessage.SpareCall(RankMessage.VERSION, "job1", "2@node3#1#1", 77L, List.of(5, 4),
                        Map.of(5, "spare1", 4, "spare2"), 0, 1234),
                new RankMessage.JobEnding(RankMessage.VERSION, "job1"));
        for (RankMessage message : messages) {
            String line = JsonLines.encode(message);
            assertEquals(message, JsonLines.decode(line, RankMessage.class), "round trip of " + line);
        }
    }

    @Test
    void aSpareSaysWhichWorldRankItIsAndARankSaysItIsNone() {
        RankMessage.Hello spare = (RankMessage.Hello) JsonLines.decode(JsonLines.encode(RankMessage.Hello.ofSpare("job1", 4243, 5)),
                RankMessage.class);
        assertEquals(5, spare.spareOf(), "the spare's world rank");
        assertEquals(RankMessage.Hello.NO_RANK, spare.rank(), "an idle spare has no rank yet");
        assertTrue(spare.fromSpare());
        assertFalse(new RankMessage.Hello(RankMessage.VERSION, "job1", 2, 4242, false).fromSpare(), "a rank is no spare");
    }

    @Test
    void aCallNamesItsSparesInTheOrderOfTheRanksTheyTake() {
        var call = (RankMessage.SpareCall) JsonLines.decode(JsonLines.encode(new RankMessage.SpareCall(RankMessage.VERSION, "job1",
                "f#1#1", 9, List.of(6, 5), Map.of(5, "spare1", 6, "spare2"), 0, 77)), RankMessage.class);
        assertEquals(List.of(6, 5), call.group(), "the group's leader comes first");
        assertTrue(call.calls(5) && call.calls(6));
        assertFalse(call.calls(4), "a spare the call does not name");
    }

    @Test
    void aRecoveryFailureWithoutACauseIsAMissingCheckpoint() {
        RankMessage old = JsonLines.decode("{\"type\":\"recovery-failed\",\"version\":5,\"job\":\"j\",\"rank\":0,"
                + "\"reason\":\"no epoch\",\"restartable\":false}", RankMessage.class);
        assertEquals(RankMessage.RecoveryFailed.NO_CHECKPOINT, ((RankMessage.RecoveryFailed) old).cause());
    }

    @Test
    void anUnknownFieldIsRefusedWithAOneLineReason() {
        var e = assertThrows(JsonLines.MalformedMessageException.class, () -> JsonLines.decode(
                "{\"type\":\"finished\",\"version\":1,\"job\":\"j\",\"extra\":1}", RankMessage.class));
        assertEquals(1, e.getMessage().lines().count(), e.getMessage());
    }
}
