package org.mpirunft.bridge.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class PartnerCopiesTest {
    @Test
    void aRanksPartnerIsOnTheNextNodeOfTheRing() {
        List<String> onePerNode = List.of("node1", "node2", "node3", "node4");
        assertEquals(List.of(1, 2, 3, 0), List.of(0, 1, 2, 3).stream().map(r -> PartnerRing.holderOf(r, onePerNode)).toList());
        assertEquals(List.of(3), PartnerRing.sourcesOf(0, onePerNode));

        // Rank 2 replaced on the spare: the ring follows the ranks' nodes as they are now.
        List<String> replaced = List.of("node1", "node2", "spare1", "node4");
        assertEquals(2, PartnerRing.holderOf(1, replaced));
        assertEquals(3, PartnerRing.holderOf(2, replaced));
    }

    @Test
    void ranksOfOneNodeGoToDifferentRanksOfTheNextAndNeverToTheirOwnNode() {
        List<String> two = List.of("a", "a", "b", "b", "c");
        assertEquals(2, PartnerRing.holderOf(0, two));
        assertEquals(3, PartnerRing.holderOf(1, two));
        assertEquals(4, PartnerRing.holderOf(2, two));
        assertEquals(4, PartnerRing.holderOf(3, two), "c has one rank: it holds both of b's");
        assertEquals(0, PartnerRing.holderOf(4, two));
        assertEquals(List.of(2, 3), PartnerRing.sourcesOf(4, two));
    }

    @Test
    void ranksOnOneNodeHaveNoPartner() {
        assertEquals(-1, PartnerRing.holderOf(1, List.of("a", "a", "a")));
        assertEquals(List.of(), PartnerRing.sourcesOf(0, List.of("a", "a")));
    }

    @Test
    void aReplacementsRoomMadeAheadTakesItsPiecesInOrderWithoutCrossingABuffer() {
        java.nio.ByteBuffer[] one = PartnerRoom.roomFor(1000, 1 << 30);
        assertEquals(1, one.length);
        java.util.List<java.nio.ByteBuffer> pieces = PartnerRoom.carve(one, new long[] {40, 900, 60});
        assertEquals(java.util.List.of(40, 900, 60), pieces.stream().map(java.nio.ByteBuffer::capacity).toList());
        pieces.get(1).put(0, (byte) 7);
        assertEquals(7, one[0].get(40), "the pieces are the room's memory, one after the other");
        assertTrue(pieces.stream().allMatch(java.nio.ByteBuffer::isDirect), "MPI receives into them");
        assertEquals(null, PartnerRoom.carve(one, new long[] {40, 961}), "a part larger than announced gets no room");

        java.nio.ByteBuffer[] several = PartnerRoom.roomFor(250, 100);
        assertEquals(3, several.length);
        assertEquals(4, PartnerRoom.carve(several, new long[] {10, 100, 100, 40}).size(),
                "pieces up to the largest size fit: each buffer has room for one more than its share");
    }

    private static final int BLOCK = org.mpirunft.bridge.state.DeltaPart.BLOCK_BYTES;

    private static List<java.nio.ByteBuffer> pieces(int... sizes) {
        List<java.nio.ByteBuffer> pieces = new java.util.ArrayList<>();
        for (int size : sizes) {
            java.nio.ByteBuffer piece = java.nio.ByteBuffer.allocateDirect(size);
            for (int i = 0; i < size; i++) {
                piece.put(i, (byte) (i * 31 + pieces.size()));
            }
            pieces.add(piece);
        }
        return pieces;
    }

    @Test
    void anIncrementalCopySendsTheRunsOfChangedBlocksAndTheHolderComposesTheRest() {
        List<java.nio.ByteBuffer> base = pieces(100, 3 * BLOCK + 500, BLOCK + 10);
        List<java.nio.ByteBuffer> next = pieces(100, 3 * BLOCK + 500, BLOCK + 10);
        assertEquals(0, ChangedRuns.changedRuns(next, base).length, "nothing changed, nothing goes (the header always does)");
        next.get(1).put(5, (byte) 1).put(BLOCK + 7, (byte) 1).put(3 * BLOCK + 499, (byte) 1);
        next.get(2).put(BLOCK + 9, (byte) 1);
        long[] runs = ChangedRuns.changedRuns(next, base);
        // Blocks 0 and 1 of piece 1 changed (one run), block 2 not, its short last block did; piece 2's short last block.
        assertEquals(List.of(1L, 0L, 2L * BLOCK, 1L, 3L * BLOCK, 500L, 2L, (long) BLOCK, 10L),
                java.util.Arrays.stream(runs).boxed().toList());
        assertEquals(null, ChangedRuns.changedRuns(pieces(100, 200), pieces(100, 300)), "another layout goes whole");

        PartnerCopies.Announcement announced = new PartnerCopies.Announcement(7, 6, new long[] {100, 3 * BLOCK + 500, BLOCK + 10}, runs);
        java.nio.LongBuffer wire = announced.encode();
        PartnerCopies.Announcement read = PartnerCopies.Announcement.decode(wire, wire.capacity());
        assertEquals(List.of(7L, 6L), List.of(read.epoch(), read.base()));
        assertEquals(java.util.Arrays.toString(announced.sizes()), java.util.Arrays.toString(read.sizes()));
        assertEquals(java.util.Arrays.toString(runs), java.util.Arrays.toString(read.runs()));
        List<java.nio.ByteBuffer> regions = read.regions(next);
        assertEquals(List.of(100, 2 * BLOCK, 500, 10), regions.stream().map(java.nio.ByteBuffer::capacity).toList(),
                "the header and the changed regions move, 2 MiB and 510 bytes of 4 MiB");

        // The holder: the regions arrive into a fresh copy, the rest is copied from its copy of the base.
        List<java.nio.ByteBuffer> composed = List.of(java.nio.ByteBuffer.allocateDirect(100),
                java.nio.ByteBuffer.allocateDirect(3 * BLOCK + 500), java.nio.ByteBuffer.allocateDirect(BLOCK + 10));
        ChangedRuns.copyUnchanged(base, composed, runs);
        List<java.nio.ByteBuffer> landing = read.regions(composed);
        for (int i = 0; i < regions.size(); i++) {
            landing.get(i).put(0, regions.get(i), 0, regions.get(i).capacity());
        }
        for (int piece = 0; piece < next.size(); piece++) {
            assertEquals(-1, composed.get(piece).mismatch(next.get(piece)), "piece " + piece + " is the sender's");
        }
    }

    @Test
    void runsLessOtherRunsKeepOnlyTheBytesTheOthersDoNotCover() {
        long[] runs = {1, 0, 300, 1, 500, 100, 2, 0, 50};
        long[] less = {1, 100, 100, 1, 250, 300, 2, 0, 50};
        assertEquals(List.of(1L, 0L, 100L, 1L, 200L, 50L, 1L, 550L, 50L),
                java.util.Arrays.stream(ChangedRuns.minus(runs, less)).boxed().toList());
        assertEquals(9, ChangedRuns.minus(runs, new long[0]).length, "nothing taken away");
        assertEquals(0, ChangedRuns.minus(runs, runs).length, "everything taken away");
    }

    /**
     * Three epochs at the holder: epoch 2 composed from its copy of epoch 1, then epoch 3 into the
     * buffers that held epoch 1: only what changed from 1 to 2 (less what arrives for 3) is copied
     * from epoch 2's copy, and the result is the sender's epoch 3 all the same.
     */
    @Test
    void aCopyComposedIntoTheBuffersOfTheEpochBeforeItsBaseCopiesOnlyTheBasesChanges() {
        List<java.nio.ByteBuffer> one = pieces(100, 3 * BLOCK + 500, BLOCK + 10);
        List<java.nio.ByteBuffer> two = pieces(100, 3 * BLOCK + 500, BLOCK + 10);
        two.get(1).put(BLOCK + 3, (byte) 7);
        two.get(2).put(2, (byte) 7);
        List<java.nio.ByteBuffer> three = pieces(100, 3 * BLOCK + 500, BLOCK + 10);
        three.get(1).put(BLOCK + 3, (byte) 7).put(2 * BLOCK + 1, (byte) 9);
        three.get(2).put(2, (byte) 8);
        long[] oneToTwo = ChangedRuns.changedRuns(two, one);
        long[] twoToThree = ChangedRuns.changedRuns(three, two);

        // The holder's copies: epoch 1 whole, epoch 2 composed from it.
        List<java.nio.ByteBuffer> heldOne = copies(one);
        List<java.nio.ByteBuffer> heldTwo = copies(one);
        ChangedRuns.copyUnchanged(heldOne, heldTwo, oneToTwo);
        receive(two, heldTwo, oneToTwo);
        // Epoch 3 into epoch 1's buffers: epoch 2's changes from its copy, epoch 3's from the wire.
        long[] copied = ChangedRuns.minus(oneToTwo, twoToThree);
        assertEquals(List.of(1L, (long) BLOCK, (long) BLOCK), java.util.Arrays.stream(copied).boxed().toList(),
                "block 1 of piece 1 changed from 1 to 2 only; piece 2's block changed again and arrives");
        ChangedRuns.copyRuns(heldTwo, heldOne, copied);
        receive(three, heldOne, twoToThree);
        for (int piece = 0; piece < three.size(); piece++) {
            assertEquals(-1, heldOne.get(piece).mismatch(three.get(piece)), "piece " + piece + " is the sender's epoch 3");
        }
    }

    private static List<java.nio.ByteBuffer> copies(List<java.nio.ByteBuffer> pieces) {
        return pieces.stream().map(p -> java.nio.ByteBuffer.allocateDirect(p.capacity()).put(p.duplicate().clear()).clear()).toList();
    }

    /** What the wire brings: the header whole, and the runs. */
    private static void receive(List<java.nio.ByteBuffer> sender, List<java.nio.ByteBuffer> holder, long[] runs) {
        holder.getFirst().put(0, sender.getFirst(), 0, sender.getFirst().capacity());
        ChangedRuns.copyRuns(sender, holder, runs);
    }
}
