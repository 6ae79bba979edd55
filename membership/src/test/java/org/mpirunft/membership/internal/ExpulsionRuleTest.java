package org.mpirunft.membership.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.mpirunft.membership.MembershipEvent.Expelled.Reason;

class ExpulsionRuleTest {
    @Test
    void memberWhoseGroupMovedOnWithoutItIsExpelled() {
        // m was stopped; a, b, c removed it; m still has the old view a, b, c, m.
        assertEquals(Optional.of(Reason.REMOVED_WHILE_UNRESPONSIVE),
                ExpulsionRule.evaluate("m", List.of("a", "b", "c", "m"), List.of("a", "b", "c")));
    }

    @Test
    void smallerSideOfAPartitionIsExpelledAndTheLargerSideIsNot() {
        List<String> larger = List.of("a", "b", "c");
        List<String> smaller = List.of("d", "e");
        assertEquals(Optional.of(Reason.ON_SMALLER_SIDE_OF_PARTITION), ExpulsionRule.evaluate("d", smaller, larger));
        assertEquals(Optional.empty(), ExpulsionRule.evaluate("a", larger, smaller));
    }

    @Test
    void onATieExactlyOneSideIsExpelled() {
        List<String> left = List.of("id-1", "id-2");
        List<String> right = List.of("id-7", "id-8");
        assertEquals(Optional.empty(), ExpulsionRule.evaluate("id-1", left, right), "coordinator id-1 sorts first: stays");
        assertEquals(Optional.of(Reason.ON_SMALLER_SIDE_OF_PARTITION), ExpulsionRule.evaluate("id-7", right, left));
    }

    @Test
    void aViewThatContainsThisMemberIsNoEvidence() {
        // After a merge, the stale view of the member that was stopped contains the others: not
        // a reason for them to think they were expelled.
        assertEquals(Optional.empty(), ExpulsionRule.evaluate("a", List.of("a", "b", "c"), List.of("a", "b", "c", "m")));
        assertEquals(Optional.empty(), ExpulsionRule.evaluate("a", List.of(), List.of("b")));
    }
}
