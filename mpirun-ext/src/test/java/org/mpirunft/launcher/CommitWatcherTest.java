package org.mpirunft.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpirunft.daemon.protocol.ControlRequest;

class CommitWatcherTest {
    @TempDir
    Path dir;

    private void epoch(long epoch, boolean committed, long partMillis, long manifestMillis) throws Exception {
        Path epochDir = Files.createDirectories(dir.resolve("ck/j1").resolve(String.format("epoch-%010d", epoch)));
        Path part = Files.writeString(epochDir.resolve("rank-000000.part"), "x");
        Files.setLastModifiedTime(part, FileTime.from(Instant.ofEpochMilli(partMillis)));
        if (committed) {
            Path manifest = Files.writeString(epochDir.resolve("manifest.json"), "{}");
            Files.setLastModifiedTime(manifest, FileTime.from(Instant.ofEpochMilli(manifestMillis)));
        }
    }

    @Test
    void reportsEachNewlyCommittedEpochOnceWithItsCost() throws Exception {
        try (FakeDaemon daemon = new FakeDaemon(dir.resolve("ftd.sock"));
             EventLog log = EventLog.open(dir.resolve("events.jsonl"), "j1", Clock.systemUTC())) {
            epoch(1, true, 1_000, 1_200);
            CommitWatcher watcher = new CommitWatcher("j1", dir.resolve("ck"), daemon.client(), log);
            assertEquals(1, watcher.lastReported(), "committed before this launcher: not reported again");
            epoch(2, true, 5_000, 5_250);
            epoch(3, false, 6_000, 0);
            assertEquals(List.of(2L), watcher.scan());
            assertEquals(List.of(), watcher.scan());
            assertEquals(List.of(new ControlRequest.EpochCommitted(1, "j1", 2, 250)), daemon.requests(ControlRequest.EpochCommitted.class));
            assertEquals(250.0, EventLog.read(dir.resolve("events.jsonl")).getFirst().get("durationMs").asDouble());
        }
    }

    @Test
    void aJobWithoutCheckpointsHasNothingToReport() throws Exception {
        try (FakeDaemon daemon = new FakeDaemon(dir.resolve("ftd.sock"));
             EventLog log = EventLog.open(dir.resolve("events.jsonl"), "j1", Clock.systemUTC())) {
            assertEquals(List.of(), new CommitWatcher("j1", dir.resolve("ck"), daemon.client(), log).scan());
        }
    }
}
