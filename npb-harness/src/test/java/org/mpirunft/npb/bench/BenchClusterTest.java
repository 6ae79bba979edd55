package org.mpirunft.npb.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import org.junit.jupiter.api.Test;

class BenchClusterTest {
    @Test
    void theFailureIsTimedWhenTheScriptSentItsFirstSignalNotWhenItStarted() {
        assertEquals(Instant.ofEpochSecond(1_795_683_129L, 445_123_000L), BenchCluster.signalledAt(
                "[cluster] node node3 killed (SIGKILL at 1795683129.445123); its local storage is gone").orElseThrow());
        assertEquals(Instant.ofEpochSecond(1_795_683_129L, 445_123_000L), BenchCluster.signalledAt(
                "node node3 killed (SIGKILL at 1795683129,445123)").orElseThrow(), "a locale's decimal comma");
        assertTrue(BenchCluster.signalledAt("node node3 killed (SIGKILL at none); its local storage is gone").isEmpty());
        assertTrue(BenchCluster.signalledAt("").isEmpty());
    }
}
