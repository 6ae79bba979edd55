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
}
