package org.mpirunft.launcher.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpirunft.launcher.EventLog;
import org.mpirunft.launcher.LauncherEvent;

class StatusCommandTest {
    @TempDir
    Path dir;

    @Test
    void aJobThatShrankShowsItsRankCountAndWhatItWasAtLaunch() {
        Path file = dir.resolve("events.jsonl");
        EventLog log = EventLog.open(file, "j", Clock.systemUTC());
        log.append(new LauncherEvent.Decision("2@node3", "shrink", Map.of(), ""));
        log.append(new LauncherEvent.Shrink("2@node3", List.of(2), 4, 3, List.of("node1", "node2", "node4")));
        log.append(new LauncherEvent.Shrink("1@node2", List.of(1), 3, 2, List.of("node1", "node4")));
        log.close();
        assertEquals("2 (was 4)", StatusCommand.ranks(2, file), "the count at launch, not the one before the last shrink");
        assertEquals("4", StatusCommand.ranks(4, dir.resolve("none.jsonl")), "no log: the count alone");
        assertEquals("node1: 0  node4: 1", StatusCommand.ranksOnNodes(List.of("node1", "node4")));
    }
}
