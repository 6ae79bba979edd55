package org.mpirunft.npb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProgressTest {

    @Test
    void paceIsMillisecondsOrNothing() {
        assertEquals(0, Progress.pace(null));
        assertEquals(0, Progress.pace(" "));
        assertEquals(1500, Progress.pace("1500"));
        IllegalArgumentException bad = assertThrows(IllegalArgumentException.class, () -> Progress.pace("-1"));
        assertTrue(bad.getMessage().startsWith("NPB_PACE_MS must be"), bad.getMessage());
        assertEquals(Optional.empty(), Progress.paceUntil(""));
    }

    @Test
    void aPauseWithoutAnEndSleepsItsWholeLength() throws Exception {
        long start = System.nanoTime();
        Progress.pause(300, Optional.empty());
        assertTrue(elapsedMillis(start) >= 300, "slept " + elapsedMillis(start) + " ms");
    }

    @Test
    void aPauseEndsSoonAfterItsFileAppears(@TempDir Path dir) throws Exception {
        Path until = dir.resolve("unpaced");
        CompletableFuture.delayedExecutor(300, TimeUnit.MILLISECONDS).execute(() -> {
            try {
                Files.createFile(until);
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        long start = System.nanoTime();
        Progress.pause(60_000, Optional.of(until));
        long took = elapsedMillis(start);
        // The file is looked at every 200 ms: it appears at 300 ms, so the pause ends by about 500.
        assertTrue(took >= 300 && took < 5_000, "paused " + took + " ms");
        start = System.nanoTime();
        Progress.pause(60_000, Optional.of(until));
        assertTrue(elapsedMillis(start) < 1_000, "a pause after the file exists must not sleep");
    }

    private static long elapsedMillis(long start) {
        return (System.nanoTime() - start) / 1_000_000;
    }
}
