package org.mpirunft.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EventLogTest {
    private static final Clock CLOCK = Clock.fixed(Instant.parse("2025-03-01T12:00:00.250Z"), ZoneOffset.UTC);

    @Test
    void writesOneVersionedJsonObjectPerEventWithTimeAndJob(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("sub/events.jsonl");
        try (EventLog log = EventLog.open(file, "j1", CLOCK)) {
            log.append(new LauncherEvent.Pause("f1", 17, List.of("node1", "node2"), List.of("spare1"), 1.25));
            log.append(new LauncherEvent.Restart("f2", 2, Map.of("node3", "spare1"), 812.5, "failure f2"));
        }
        List<String> lines = Files.readAllLines(file);
        assertEquals("{\"version\":1,\"time\":\"2025-03-01T12:00:00.250Z\",\"job\":\"j1\",\"type\":\"pause\",\"failureId\":\"f1\","
                + "\"orderId\":17,\"nodes\":[\"node1\",\"node2\"],\"spares\":[\"spare1\"],\"deliveryMs\":1.25}", lines.get(0));
        JsonNode restart = EventLog.read(file).get(1);
        assertEquals("restart", restart.get("type").asText());
        assertEquals("spare1", restart.get("replacedNodes").get("node3").asText());
        assertEquals(812.5, restart.get("stopMs").asDouble());
    }

    @Test
    void appendsToAnExistingLog(@TempDir Path dir) {
        Path file = dir.resolve("events.jsonl");
        try (EventLog log = EventLog.open(file, "j1", CLOCK)) {
            log.append(new LauncherEvent.Fallback("f1", "no spare"));
        }
        try (EventLog log = EventLog.open(file, "j1", CLOCK)) {
            log.append(new LauncherEvent.Checkpoint(3, "committed", 12));
        }
        assertEquals(List.of("fallback", "checkpoint"), EventLog.read(file).stream().map(e -> e.get("type").asText()).toList());
    }

    @Test
    void anUnwritableLogIsABadSetting(@TempDir Path dir) throws Exception {
        Path notADirectory = Files.writeString(dir.resolve("file"), "x");
        assertThrows(BadSettingException.class, () -> EventLog.open(notADirectory.resolve("events.jsonl"), "j", CLOCK));
    }

    /**
     * A full disk loses the events written while it is full, not the rest of the job's: the log
     * is opened again with the next event, and a line the failed write left torn is ended first
     * and skipped when read. /dev/full fails every write with ENOSPC; the log's path is a link
     * that is pointed at a real file once "space comes back".
     */
    @Test
    void aFullDiskLosesOnlyTheEventsWrittenWhileItIsFull(@TempDir Path dir) throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isWritable(Path.of("/dev/full")), "/dev/full is here");
        Path link = dir.resolve("events.jsonl");
        Path real = dir.resolve("real.jsonl");
        Files.writeString(real, "{\"version\":1,\"job\":\"j1\",\"type\":\"launch\"}\n{\"version\":1,\"ti");
        Files.createSymbolicLink(link, Path.of("/dev/full"));
        try (EventLog log = EventLog.open(link, "j1", CLOCK)) {
            log.append(new LauncherEvent.Checkpoint(3, "committed", 12));
            log.append(new LauncherEvent.Checkpoint(4, "committed", 12));
            Files.delete(link);
            Files.createSymbolicLink(link, real);
            log.append(new LauncherEvent.Checkpoint(5, "committed", 12));
            log.append(new LauncherEvent.Checkpoint(6, "committed", 12));
        }
        List<JsonNode> events = EventLog.read(real);
        assertEquals(List.of("launch", "checkpoint", "checkpoint"), events.stream().map(e -> e.get("type").asText()).toList(),
                "the torn line skipped, the events while the disk was full lost, the later ones logged: " + Files.readString(real));
        assertEquals(List.of(5L, 6L), events.stream().skip(1).map(e -> e.get("epoch").asLong()).toList());
    }
}
