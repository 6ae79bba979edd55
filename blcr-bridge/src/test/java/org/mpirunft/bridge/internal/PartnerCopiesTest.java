package org.mpirunft.bridge.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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

    @Test
    void aReplacementsRoomMadeAheadTakesItsPiecesInOrderWithoutCrossingABuffer() {
        java.nio.ByteBuffer[] one = PartnerCopies.roomFor(1000, 1 << 30);
        assertEquals(1, one.length);
        java.util.List<java.nio.ByteBuffer> pieces = PartnerCopies.carve(one, new long[] {40, 900, 60});
        assertEquals(java.util.List.of(40, 900, 60), pieces.stream().map(java.nio.ByteBuffer::capacity).toList());
        pieces.get(1).put(0, (byte) 7);
        assertEquals(7, one[0].get(40), "the pieces are the room's memory, one after the other");
        assertTrue(pieces.stream().allMatch(java.nio.ByteBuffer::isDirect), "MPI receives into them");
        assertEquals(null, PartnerCopies.carve(one, new long[] {40, 961}), "a part larger than announced gets no room");

        java.nio.ByteBuffer[] several = PartnerCopies.roomFor(250, 100);
        assertEquals(3, several.length);
        assertEquals(4, PartnerCopies.carve(several, new long[] {10, 100, 100, 40}).size(),
                "pieces up to the largest size fit: each buffer has room for one more than its share");
    }
}
