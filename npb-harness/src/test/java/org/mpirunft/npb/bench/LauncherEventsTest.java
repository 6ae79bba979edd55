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
}
