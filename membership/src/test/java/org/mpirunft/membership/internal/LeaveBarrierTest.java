package org.mpirunft.membership.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class LeaveBarrierTest {
    @Test
    void opensWhenEveryOtherMemberAcknowledged() throws Exception {
        LeaveBarrier barrier = new LeaveBarrier(List.of("a", "b"));
        barrier.acked("a");
        assertFalse(barrier.await(Duration.ofMillis(1)), "b has not acknowledged yet");
        assertEquals(Set.of("b"), barrier.missing());
        barrier.acked("b");
        assertTrue(barrier.await(Duration.ZERO));
    }

    @Test
    void membersThatJoinMustAcknowledgeAndMembersThatGoNeedNot() throws Exception {
        LeaveBarrier barrier = new LeaveBarrier(List.of("a", "b"));
        barrier.acked("a");
        barrier.expect(List.of("a", "c")); // b failed, c joined
        assertEquals(Set.of("c"), barrier.missing());
        barrier.acked("c");
        assertTrue(barrier.await(Duration.ZERO));
    }

    @Test
    void aLoneMemberLeavesAtOnce() throws Exception {
        assertTrue(new LeaveBarrier(List.of()).await(Duration.ZERO));
    }
}
