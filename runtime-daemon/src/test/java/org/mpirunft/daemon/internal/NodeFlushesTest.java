package org.mpirunft.daemon.internal;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class NodeFlushesTest {
    @Test
    void theNodesTurnEndsOnceWithTheLastOfItsRanks() {
        NodeFlushes flushes = new NodeFlushes();
        assertFalse(flushes.rankDone("job", 3, 0, 2));
        assertFalse(flushes.rankDone("job", 3, 0, 2), "the same rank twice is one rank");
        assertTrue(flushes.rankDone("job", 3, 4, 2));
        assertFalse(flushes.rankDone("job", 3, 4, 2), "said once");
        assertFalse(flushes.rankDone("job", 2, 1, 1), "an older epoch is over");
        assertTrue(flushes.rankDone("job", 4, 0, 1), "a newer epoch starts afresh");
        assertTrue(flushes.rankDone("other", 4, 0, 1), "jobs apart");
        assertFalse(flushes.rankDone("gone", 1, 0, 0), "a job with no rank here has no turn to end");
    }
}
