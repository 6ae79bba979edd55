package org.mpirunft.bridge.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

class PartnerCopiesTest {
    @Test
    void aRanksPartnerIsOnTheNextNodeOfTheRing() {
        List<String> onePerNode = List.of("node1", "node2", "node3", "node4");
        assertEquals(List.of(1, 2, 3, 0), List.of(0, 1, 2, 3).stream().map(r -> PartnerCopies.holderOf(r, onePerNode)).toList());
        assertEquals(List.of(3), PartnerCopies.sourcesOf(0, onePerNode));

        // Rank 2 replaced on the spare: the ring follows the ranks' nodes as they are now.
        List<String> replaced = List.of("node1", "node2", "spare1", "node4");
        assertEquals(2, PartnerCopies.holderOf(1, replaced));
        assertEquals(3, PartnerCopies.holderOf(2, replaced));
    }

    @Test
    void ranksOfOneNodeGoToDifferentRanksOfTheNextAndNeverToTheirOwnNode() {
        List<String> two = List.of("a", "a", "b", "b", "c");
        assertEquals(2, PartnerCopies.holderOf(0, two));
        assertEquals(3, PartnerCopies.holderOf(1, two));
        assertEquals(4, PartnerCopies.holderOf(2, two));
        assertEquals(4, PartnerCopies.holderOf(3, two), "c has one rank: it holds both of b's");
        assertEquals(0, PartnerCopies.holderOf(4, two));
        assertEquals(List.of(2, 3), PartnerCopies.sourcesOf(4, two));
    }

    @Test
    void ranksOnOneNodeHaveNoPartner() {
        assertEquals(-1, PartnerCopies.holderOf(1, List.of("a", "a", "a")));
        assertEquals(List.of(), PartnerCopies.sourcesOf(0, List.of("a", "a")));
    }
}
