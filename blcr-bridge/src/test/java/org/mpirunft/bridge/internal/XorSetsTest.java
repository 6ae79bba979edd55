package org.mpirunft.bridge.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class XorSetsTest {
    @Test
    void aSetTakesTheRanksAtOnePositionOnDifferentNodes() {
        assertEquals(List.of(List.of(0, 1, 2, 3)), XorSets.setsOf(List.of("n1", "n2", "n3", "n4"), 8));
        // Two ranks per node: the first ranks of the nodes form one set, the second ranks another.
        assertEquals(List.of(List.of(0, 2, 4), List.of(1, 3, 5)), XorSets.setsOf(List.of("a", "a", "b", "b", "c", "c"), 8));
        // Ten nodes in sets of about 4: two sets of five, never one of two.
        List<String> ten = List.of("n0", "n1", "n2", "n3", "n4", "n5", "n6", "n7", "n8", "n9");
        assertEquals(List.of(List.of(0, 1, 2, 3, 4), List.of(5, 6, 7, 8, 9)), XorSets.setsOf(ten, 4));
        assertTrue(XorSets.coversAll(ten, 4));
    }

    @Test
    void ranksOnFewerThanThreeNodesHaveNoSet() {
        assertEquals(List.of(), XorSets.setsOf(List.of("a", "b"), 8));
        assertFalse(XorSets.coversAll(List.of("a", "b"), 8));
        // A node with one more rank than the others: that rank's position is on one node only.
        assertFalse(XorSets.coversAll(List.of("a", "a", "b", "c"), 8));
        assertThrows(IllegalArgumentException.class, () -> new XorSets(0, 2, org.mpirunft.bridge.RankListener.NONE));
    }

    @Test
    void everyMembersSegmentsGoToEveryOtherMemberInTurn() {
        int k = 4;
        for (int i = 0; i < k; i++) {
            List<Long> segments = new ArrayList<>();
            for (int j = 0; j < k; j++) {
                if (j != i) {
                    segments.add(XorSets.segmentFor(i, j, 1, k));
                }
            }
            assertEquals(List.of(3L, 4L, 5L), segments.stream().sorted().toList(), "stripe 1 of member " + i);
        }
    }

    @Test
    void segmentsSpanPiecesAndArePaddedWithZerosPastThePartsEnd() {
        List<ByteBuffer> pieces = List.of(direct(new byte[] {1, 2, 3}), direct(new byte[] {4, 5, 6, 7, 8}));
        XorSets.Segments segments = new XorSets.Segments(pieces, 8, 4);
        ByteBuffer zeros = ByteBuffer.allocateDirect(4);
        assertArrayEquals(new byte[] {1, 2, 3, 4}, bytes(segments.segment(0, zeros)), "across the pieces' end: a copy");
        assertArrayEquals(new byte[] {5, 6, 7, 8}, bytes(segments.segment(1, zeros)), "inside one piece");
        assertEquals(zeros, segments.segment(2, zeros), "past the end: zeros");
        XorSets.Segments ragged = new XorSets.Segments(pieces, 8, 3);
        assertArrayEquals(new byte[] {7, 8, 0}, bytes(ragged.segment(2, zeros)), "the last one padded");
    }

    /**
     * The layout without MPI: every member's parity as the reduces at a checkpoint leave it, then
     * each member's part rebuilt as the reduces of a rebuild leave it, from the others' parts and
     * parity only. Parts of different lengths, cut into pieces differently, over several stripes.
     */
    @Test
    void anyOneMembersPartIsRebuiltFromTheOthersPartsAndParity() {
        Random random = new Random(18);
        int k = 4;
        long[] lengths = {1000, 37, 2500, 1};
        List<byte[]> parts = new ArrayList<>();
        List<XorSets.Segments> segments = new ArrayList<>();
        long longest = 2500;
        int unit = 64;
        int stripes = XorSets.stripesFor(longest, unit, k);
        assertEquals(14, stripes, "2500 bytes in segments of 64 over 3 others");
        for (long length : lengths) {
            byte[] part = new byte[(int) length];
            random.nextBytes(part);
            parts.add(part);
            segments.add(new XorSets.Segments(cut(part, random), length, unit));
        }
        ByteBuffer zeros = ByteBuffer.allocateDirect(unit);
        byte[][][] parity = new byte[k][stripes][];
        for (int q = 0; q < stripes; q++) {
            for (int j = 0; j < k; j++) {
                byte[] sum = new byte[unit];
                for (int i = 0; i < k; i++) {
                    if (i != j) {
                        xorInto(sum, segments.get(i).segment(XorSets.segmentFor(i, j, q, k), zeros));
                    }
                }
                parity[j][q] = sum;
            }
        }
        for (int m = 0; m < k; m++) {
            long lostSegments = Math.ceilDiv(lengths[m], unit);
            byte[] rebuilt = new byte[(int) (lostSegments * unit)];
            for (int q = 0; q < stripes; q++) {
                for (int j = 0; j < k; j++) {
                    long segment = XorSets.segmentFor(m, j, q, k);
                    if (j == m || segment >= lostSegments) {
                        continue;
                    }
                    byte[] sum = parity[j][q].clone();
                    for (int i = 0; i < k; i++) {
                        if (i != j && i != m) {
                            xorInto(sum, segments.get(i).segment(XorSets.segmentFor(i, j, q, k), zeros));
                        }
                    }
                    System.arraycopy(sum, 0, rebuilt, (int) (segment * unit), unit);
                }
            }
            assertArrayEquals(parts.get(m), java.util.Arrays.copyOf(rebuilt, (int) lengths[m]), "member " + m + " rebuilt");
        }
    }

    @Test
    void aSegmentIsWholeLongsAndAtMostTheLargestUnit() {
        assertEquals(8, XorSets.unitFor(1, 4));
        assertEquals(336, XorSets.unitFor(1000, 4), "1000 bytes over 3 others, rounded up to whole longs");
        assertEquals(XorSets.MAX_UNIT, XorSets.unitFor(905L << 20, 4));
        assertEquals(76, XorSets.stripesFor(905L << 20, XorSets.MAX_UNIT, 4));
    }

    private static List<ByteBuffer> cut(byte[] part, Random random) {
        List<ByteBuffer> pieces = new ArrayList<>();
        int at = 0;
        while (at < part.length) {
            int n = Math.min(part.length - at, 1 + random.nextInt(300));
            pieces.add(direct(java.util.Arrays.copyOfRange(part, at, at + n)));
            at += n;
        }
        return pieces;
    }

    private static ByteBuffer direct(byte[] bytes) {
        return ByteBuffer.allocateDirect(bytes.length).put(bytes).clear();
    }

    private static byte[] bytes(ByteBuffer buffer) {
        byte[] out = new byte[buffer.remaining()];
        buffer.duplicate().get(out);
        return out;
    }

    private static void xorInto(byte[] sum, ByteBuffer segment) {
        for (int b = 0; b < sum.length; b++) {
            sum[b] ^= segment.get(segment.position() + b);
        }
    }
}
