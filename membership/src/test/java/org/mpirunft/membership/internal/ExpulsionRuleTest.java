package org.mpirunft.membership.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.mpirunft.membership.MembershipEvent.Expelled.Reason;

class ExpulsionRuleTest {
    @Test
    void memberWhoseGroupMovedOnWithoutItIsExpelled() {
        // m was stopped; a, b, c removed it; m still has the old view a, b, c, m.
        assertEquals(Optional.of(Reason.REMOVED_WHILE_UNRESPONSIVE),
                ExpulsionRule.evaluate("m", 5, List.of("a", "b", "c", "m"), 6, List.of("a", "b", "c"), Set.of("a", "b", "c", "m")));
    }

    @Test
    void smallerSideOfAPartitionIsExpelledAndTheLargerSideIsNot() {
        List<String> larger = List.of("a", "b", "c");
        List<String> smaller = List.of("d", "e");
        Set<String> met = Set.of("a", "b", "c", "d", "e");
        assertEquals(Optional.of(Reason.ON_SMALLER_SIDE_OF_PARTITION), ExpulsionRule.evaluate("d", 9, smaller, 4, larger, met));
        assertEquals(Optional.empty(), ExpulsionRule.evaluate("a", 4, larger, 9, smaller, met));
    }

    @Test
    void onATieExactlyOneSideIsExpelled() {
        List<String> left = List.of("id-1", "id-2");
        List<String> right = List.of("id-7", "id-8");
        Set<String> met = Set.of("id-1", "id-2", "id-7", "id-8");
        assertEquals(Optional.empty(), ExpulsionRule.evaluate("id-1", 3, left, 3, right, met), "coordinator id-1 sorts first: stays");
        assertEquals(Optional.of(Reason.ON_SMALLER_SIDE_OF_PARTITION), ExpulsionRule.evaluate("id-7", 3, right, 3, left, met));
    }

    @Test
    void aViewThatContainsThisMemberIsNoEvidence() {
        // After a merge, the stale view of the member that was stopped contains the others: not
        // a reason for them to think they were expelled.
        assertEquals(Optional.empty(), ExpulsionRule.evaluate("a", 5, List.of("a", "b", "c"), 6, List.of("a", "b", "c", "m"),
                Set.of("a", "b", "c", "m")));
        assertEquals(Optional.empty(), ExpulsionRule.evaluate("a", 0, List.of(), 1, List.of("b"), Set.of("a", "b")));
    }

    @Test
    void aNoticeFromBeforeAMergeThisMemberInstalledIsNoEvidence() {
        // c was cut off and went on alone (view 6 of c). When the link healed, c told a that its
        // view lacks a, but the merge (view 9) reached a first: a's view holds c and is newer.
        assertEquals(Optional.empty(), ExpulsionRule.evaluate("a", 9, List.of("a", "b", "d", "c"), 6, List.of("c"),
                Set.of("a", "b", "c", "d")));
        // The same view id is not newer either.
        assertEquals(Optional.empty(), ExpulsionRule.evaluate("a", 6, List.of("a", "c"), 6, List.of("c"), Set.of("a", "c")));
    }

    @Test
    void groupsThatFormedApartAreNotAPartition() {
        // At start-up d found no one and formed a group of its own; a, b, c formed theirs. d never
        // shared a view with them, so the merge that joins the two expels nobody.
        assertEquals(Optional.empty(), ExpulsionRule.evaluate("d", 1, List.of("d"), 3, List.of("a", "b", "c"), Set.of("d")));
        assertEquals(Optional.empty(), ExpulsionRule.evaluate("a", 3, List.of("a", "b", "c"), 1, List.of("d"),
                Set.of("a", "b", "c")));
        // Once d had met one of them, the same two views are a partition and d, the smaller side, yields.
        assertEquals(Optional.of(Reason.ON_SMALLER_SIDE_OF_PARTITION),
                ExpulsionRule.evaluate("d", 1, List.of("d"), 3, List.of("a", "b", "c"), Set.of("d", "b")));
    }

    @Test
    void aMemberThatSatInTwoGroupsFormingApartIsNoEvidence() {
        // At start-up n4's join to n1 timed out; n5, still alone, took n4 in (view 1 of n5, n4);
        // then n4 took n1's late answer. n1's group never held n5: the merge expels nobody.
        List<String> mine = List.of("n5", "n4");
        List<String> theirs = List.of("n1", "n4", "n2", "n3");
        assertEquals(Optional.empty(), ExpulsionRule.evaluate("n5", 1, mine, 4, theirs, Set.of("n5", "n4")));
        // Had n5 once shared a view with n1, n1's group removed it.
        assertEquals(Optional.of(Reason.REMOVED_WHILE_UNRESPONSIVE),
                ExpulsionRule.evaluate("n5", 1, mine, 4, theirs, Set.of("n5", "n4", "n1")));
    }
}
