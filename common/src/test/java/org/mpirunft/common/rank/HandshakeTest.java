package org.mpirunft.common.rank;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.mpirunft.common.JsonLines;

/** The handshake's streaming codec writes and reads exactly the lines of {@link JsonLines}, which the daemon uses. */
class HandshakeTest {
    @Test
    void helloIsTheLineJsonLinesWritesAndTheDaemonReadsBack() {
        for (RankMessage.Hello hello : List.of(new RankMessage.Hello(RankMessage.VERSION, "job1", 2, 4242, true),
                new RankMessage.Hello(RankMessage.VERSION, "npb-ep.A_4", 0, Long.MAX_VALUE, false),
                RankMessage.Hello.ofSpare("job1", 4243, 5))) {
            String line = Handshake.encode(hello);
            assertEquals(JsonLines.encode(hello), line);
            assertEquals(hello, JsonLines.decode(line, RankMessage.class));
        }
    }

    @Test
    void answersWrittenByTheDaemonAreReadBackUnchanged() {
        for (RankMessage answer : List.<RankMessage>of(
                new RankMessage.Welcome(RankMessage.VERSION, "job1", "node3", true, 2, 1, 0, 0),
                new RankMessage.Welcome(RankMessage.VERSION, "job1", "spare-2", false, Long.MAX_VALUE, 0, 50, 2),
                new RankMessage.Refused(RankMessage.VERSION, "pid 7 is not a process of \"job1\" \u00e9 \\ on this node"))) {
            assertEquals(answer, Handshake.decodeAnswer(JsonLines.encode(answer)));
        }
    }

    @Test
    void anythingButAWholeWelcomeOrRefusalIsRefusedWithAOneLineReason() {
        String welcome = JsonLines.encode(new RankMessage.Welcome(RankMessage.VERSION, "job1", "node3", true, 2, 1, 0, 0));
        for (String line : List.of(
                welcome.replace("}", ",\"extra\":1}"),
                welcome.replace(",\"everyIterations\":0", ""),
                welcome.replace("\"scheduled\":true", "\"scheduled\":null"),
                welcome.replace("\"scheduled\":true", "\"scheduled\":\"yes\""),
                welcome.replace("\"orderedEpoch\":2", "\"orderedEpoch\":2.5"),
                welcome.replace("\"everyIterations\":0", "\"everyIterations\":4294967296"),
                welcome.replace("\"node\":\"node3\"", "\"node\":[\"node3\"]"),
                welcome.replace("\"job\":\"job1\"", "\"job\":\"job1\",\"job\":\"job2\""),
                welcome + "{}",
                welcome.substring(0, welcome.length() - 1),
                "[]",
                "",
                JsonLines.encode(new RankMessage.CheckpointOrder(RankMessage.VERSION, "job1", 4)),
                "{\"version\":2,\"reason\":\"no type\"}",
                "{\"type\":\"refused\",\"version\":2,\"reason\":\"" + "x".repeat(JsonLines.MAX_LINE) + "\"}")) {
            var e = assertThrows(JsonLines.MalformedMessageException.class, () -> Handshake.decodeAnswer(line),
                    "accepted " + (line.length() > 200 ? line.substring(0, 200) + "..." : line));
            assertEquals(1, e.getMessage().lines().count(), e.getMessage());
            assertTrue(!e.getMessage().isBlank());
        }
    }
}
