package org.mpirunft.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class OutputWatcherTest {

    @Test
    void awaitReturnsTheLineWrittenAfterTheWaitBegan() throws Exception {
        PipedOutputStream writer = new PipedOutputStream();
        OutputWatcher watcher = OutputWatcher.watch(new PipedInputStream(writer), "t");
        Thread late = new Thread(() -> {
            try {
                Thread.sleep(50);
                writer.write("noise\nRESULT sum=5\n".getBytes(StandardCharsets.UTF_8));
                writer.flush();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        late.start();
        var match = watcher.await(Pattern.compile("RESULT sum=(\\d+)"), Duration.ofSeconds(10));
        assertEquals("5", match.orElseThrow().group(1));
        writer.close();
    }

    @Test
    void awaitGivesUpAsSoonAsTheOutputEndsWithoutAMatch() throws Exception {
        OutputWatcher watcher = OutputWatcher.watch(new ByteArrayInputStream("a\nb\n".getBytes(StandardCharsets.UTF_8)), "t");
        long start = System.nanoTime();
        assertFalse(watcher.await(Pattern.compile("never"), Duration.ofSeconds(30)).isPresent());
        assertTrue(System.nanoTime() - start < Duration.ofSeconds(5).toNanos(), "must not wait out the timeout on a closed stream");
        assertEquals(2, watcher.all(Pattern.compile("^[ab]$")).size());
    }
}
