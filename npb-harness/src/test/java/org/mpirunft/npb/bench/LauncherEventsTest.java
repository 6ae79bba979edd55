package org.mpirunft.npb.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LauncherEventsTest {
    @TempDir
    Path dir;

    @Test
    void readsTypesTimesCommitsAndTheRankNodesOfTheFirstLaunch() {
        LauncherEvents events = Fixtures.restartEvents();
        assertEquals(List.of("launch", "checkpoint", "failure", "decision", "restart", "launch"),
                events.all().stream().map(LauncherEvents.Event::type).toList());
        assertEquals(1, events.commits().size());
        assertEquals(50.0, events.commits().getFirst().number("durationMs"));
        assertEquals(List.of("node4", "node3", "node2", "node1"), events.rankNodes(), "the first launch, not the relaunch");
        assertEquals("restart", events.first("decision", Fixtures.INJECTED).orElseThrow().text("action"));
        assertTrue(events.first("failure", Fixtures.INJECTED.plusSeconds(5)).isEmpty());
    }

    @Test
    void aHalfWrittenLastLineIsIgnoredButABadLineInTheMiddleIsAnError() {
        String good = Fixtures.event(0, "launch", "\"rankNodes\":[\"node1\"]");
        assertEquals(1, LauncherEvents.parse(List.of(good, "{\"version\":1,\"ti"), "x").all().size());
        BenchException e = assertThrows(BenchException.class, () -> LauncherEvents.parse(List.of("{oops", good), "events.jsonl"));
        assertTrue(e.getMessage().startsWith("events.jsonl:1: "), e.getMessage());
    }

    @Test
    void aMissingLogIsEmpty() throws Exception {
        assertTrue(LauncherEvents.read(dir.resolve("none.jsonl")).all().isEmpty());
        Path file = dir.resolve("events.jsonl");
        Files.writeString(file, Fixtures.event(0, "exit", "\"status\":\"succeeded\"") + "\n");
        assertEquals("succeeded", LauncherEvents.read(file).ofType("exit").getFirst().text("status"));
    }

    @Test
    void currentRankNodesFollowEachReplacementOntoItsSpare() {
        LauncherEvents events = LauncherEvents.parse(List.of(
                Fixtures.event(-5000, "launch", "\"attempt\":1,\"rankNodes\":[\"node1\",\"node2\",\"node3\",\"node4\"]"),
                Fixtures.event(-4000, "checkpoint", "\"epoch\":1,\"phase\":\"ordered\",\"durationMs\":0"),
                Fixtures.event(-3000, "checkpoint", "\"epoch\":1,\"phase\":\"committed\",\"durationMs\":40"),
                Fixtures.event(-1000, "checkpoint", "\"epoch\":2,\"phase\":\"ordered\",\"durationMs\":0"),
                Fixtures.event(200, "replacement", "\"rank\":2,\"fromNode\":\"node3\",\"toNode\":\"spare1\",\"start\":\"warm\""),
                Fixtures.event(900, "resume", "\"replacedRanks\":[2],\"recoveryMs\":700"),
                Fixtures.event(2000, "checkpoint", "\"epoch\":3,\"phase\":\"ordered\",\"durationMs\":0"),
                Fixtures.event(3000, "replacement", "\"rank\":2,\"fromNode\":\"spare1\",\"toNode\":\"spare2\",\"start\":\"warm\"")),
                "events.jsonl");
        assertEquals(List.of("node1", "node2", "node3", "node4"), events.rankNodes(), "the launch's placement");
        assertEquals(List.of("node1", "node2", "spare2", "node4"), events.currentRankNodes(), "rank 2 moved twice");
        assertEquals(Fixtures.INJECTED.plusMillis(900), events.recoveredAfter(Fixtures.INJECTED).orElseThrow());
        assertTrue(events.recoveredAfter(Fixtures.INJECTED.plusSeconds(1)).isEmpty(), "no resume after the second failure yet");
        assertEquals(List.of(3.0, 3.0), events.orderSpacingSeconds());
    }
}
