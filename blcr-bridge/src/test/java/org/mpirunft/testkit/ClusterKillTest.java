package org.mpirunft.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import org.junit.jupiter.api.Test;

class ClusterKillTest {
    @Test
    void theFailureIsTimedWhenTheScriptSentItsFirstSignalNotWhenItStarted() {
        assertEquals(Instant.ofEpochSecond(1_795_683_129L, 445_123_000L), ClusterKill.signalledAt(
                "[cluster] node node3 killed (SIGKILL at 1795683129.445123); its local storage is gone").orElseThrow());
        assertEquals(Instant.ofEpochSecond(1_795_683_129L, 445_123_000L), ClusterKill.signalledAt(
                "node node3 killed (SIGKILL at 1795683129,445123)").orElseThrow(), "a locale's decimal comma");
        assertTrue(ClusterKill.signalledAt("node node3 killed (SIGKILL at none); its local storage is gone").isEmpty());
        assertTrue(ClusterKill.signalledAt("").isEmpty());
    }
}
