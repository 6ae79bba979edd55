package org.mpirunft.bridge.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class CheckpointPolicyTest {
    private final AtomicLong nanos = new AtomicLong();

    @Test
    void withoutADaemonTheRanksOwnSettingsRule() {
        CheckpointPolicy every = CheckpointPolicy.own(5, Optional.empty(), nanos::get);
        assertFalse(every.wantedAt(0, 0), "never before the first iteration");
        assertTrue(every.wantedAt(5, 5));
        assertFalse(every.wantedAt(6, 6));
        CheckpointPolicy timed = CheckpointPolicy.own(0, Optional.of(Duration.ofSeconds(2)), nanos::get);
        nanos.addAndGet(Duration.ofMillis(1999).toNanos());
        assertFalse(timed.wantedAt(3, 3));
        nanos.addAndGet(Duration.ofMillis(1).toNanos());
        assertTrue(timed.wantedAt(4, 4));
    }

    @Test
    void oneOrderGivesExactlyOneCheckpointWhicheverSafePointEachRankSeesItAt() {
        CheckpointPolicy early = CheckpointPolicy.scheduled(0, 0, 0, nanos::get);
        CheckpointPolicy late = CheckpointPolicy.scheduled(0, 0, 0, nanos::get);
        early.ordered(1);
        // Safe point 1: only one rank has the order; the agreement (max seen, min served) decides for both.
        assertEquals(List.of(1L, 1L), agree(early, late), "both checkpoint for order 1");
        late.ordered(1);
        // Safe point 2: the late rank receives order 1 now; it was served already.
        assertEquals(List.of(0L, 0L), agree(early, late), "order 1 does not commit a second epoch");
        late.ordered(2);
        assertEquals(List.of(2L, 2L), agree(early, late));
        assertEquals(List.of(0L, 0L), agree(early, late));
    }

    @Test
    void aReplacementThatKnowsNewerOrdersDecidesLikeTheSurvivors() {
        CheckpointPolicy survivor = CheckpointPolicy.scheduled(0, 0, 0, nanos::get);
        survivor.ordered(3);
        // The replacement connected after order 3 was given and served: its welcome says so.
        CheckpointPolicy replacement = CheckpointPolicy.scheduled(3, 3, 0, nanos::get);
        assertEquals(List.of(3L, 3L), agree(survivor, replacement), "the survivor had not served 3: everyone checkpoints");
        assertEquals(List.of(0L, 0L), agree(survivor, replacement));
    }

    @Test
    void ranksThatConnectAfterAnOrderWasGivenServeItIfNoEpochDid() {
        // The job's first ranks: the scheduler ordered epoch 1 while they were still starting.
        CheckpointPolicy rank0 = CheckpointPolicy.scheduled(0, 1, 0, nanos::get);
        CheckpointPolicy rank1 = CheckpointPolicy.scheduled(0, 1, 0, nanos::get);
        assertEquals(List.of(1L, 1L), agree(rank0, rank1), "order 1 is served at the first safe point");
        assertEquals(List.of(0L, 0L), agree(rank0, rank1));
        // A survivor took order 4's snapshot, then a failure rolled it back before the epoch committed.
        CheckpointPolicy survivor = CheckpointPolicy.scheduled(3, 3, 0, nanos::get);
        survivor.ordered(4);
        assertEquals(List.of(4L), agree(survivor));
        CheckpointPolicy replacement = CheckpointPolicy.scheduled(3, 4, 0, nanos::get);
        assertEquals(List.of(4L, 4L), agree(survivor, replacement), "no epoch answered order 4: it is served again");
    }

    @Test
    void aScheduledRankIgnoresTimeButKeepsTheStandingIterationOrder() {
        CheckpointPolicy standing = CheckpointPolicy.scheduled(0, 0, 4, nanos::get);
        nanos.addAndGet(Duration.ofHours(1).toNanos());
        assertFalse(standing.wantedAt(3, 3), "time alone orders nothing: the scheduler does");
        assertTrue(standing.wantedAt(8, 8), "every 4 iterations, as the job's schedule says");
    }

    /** One safe point's agreement between ranks: the order each one's checkpoint serves (0: none). */
    private static List<Long> agree(CheckpointPolicy... ranks) {
        long seen = 0;
        long served = Long.MAX_VALUE;
        for (CheckpointPolicy rank : ranks) {
            seen = Math.max(seen, rank.highestOrderSeen());
            served = Math.min(served, rank.lastOrderServed());
        }
        long highest = seen;
        long lowest = served;
        return java.util.Arrays.stream(ranks).map(r -> r.served(highest, lowest)).toList();
    }
}
