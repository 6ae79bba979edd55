package org.mpirunft.bridge.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CheckpointPolicyTest {
    @TempDir
    Path control;

    @Test
    void everyNIterationsSkipsTheFirstSafePointAfterAStartOrRollback() {
        CheckpointPolicy policy = new CheckpointPolicy(10, Optional.empty(), Optional.empty(), () -> 0);
        List<Long> wanted = new ArrayList<>();
        for (long it = 0; it < 35; it++) {
            if (policy.wanted(it, it)) {
                wanted.add(it);
            }
        }
        assertEquals(List.of(10L, 20L, 30L), wanted);
        assertFalse(policy.wanted(20, 0), "resuming at iteration 20 must not checkpoint it again");
    }

    @Test
    void intervalFollowsTheInjectedClock() {
        AtomicLong now = new AtomicLong();
        CheckpointPolicy policy = new CheckpointPolicy(0, Optional.of(Duration.ofSeconds(30)), Optional.empty(), now::get);
        now.set(Duration.ofSeconds(29).toNanos());
        assertFalse(policy.wanted(1, 1));
        now.set(Duration.ofSeconds(30).toNanos());
        assertTrue(policy.wanted(2, 2));
        policy.checkpointTaken();
        now.addAndGet(Duration.ofSeconds(10).toNanos());
        assertFalse(policy.wanted(3, 3));
    }

    @Test
    void aRequestFileAsksOncePerTouch() throws Exception {
        CheckpointPolicy policy = new CheckpointPolicy(0, Optional.empty(), Optional.of(control), () -> 0);
        assertFalse(policy.wanted(1, 1), "no request file, no request");
        Path request = control.resolve(CheckpointPolicy.REQUEST_FILE);
        Files.writeString(request, "");
        Files.setLastModifiedTime(request, FileTime.fromMillis(1_000_000));
        assertTrue(policy.wanted(2, 2));
        assertFalse(policy.wanted(3, 3), "the same request must not be served twice");
        Files.setLastModifiedTime(request, FileTime.fromMillis(2_000_000));
        assertTrue(policy.wanted(4, 4));
    }
}
