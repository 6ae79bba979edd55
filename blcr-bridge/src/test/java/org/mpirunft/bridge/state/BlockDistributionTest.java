package org.mpirunft.bridge.state;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

class BlockDistributionTest {

    @Test
    void theFirstRanksTakeTheRemainder() {
        BlockDistribution d = new BlockDistribution(10, 4);
        assertEquals(List.of(3L, 3L, 2L, 2L), List.of(d.size(0), d.size(1), d.size(2), d.size(3)));
        assertEquals(List.of(0L, 3L, 6L, 8L), List.of(d.start(0), d.start(1), d.start(2), d.start(3)));
    }

    @Test
    void everyElementHasTheOwnerWhoseBlockHoldsIt() {
        for (long length = 0; length <= 40; length++) {
            for (int ranks = 1; ranks <= 9; ranks++) {
                BlockDistribution d = new BlockDistribution(length, ranks);
                long total = 0;
                for (int r = 0; r < ranks; r++) {
                    assertEquals(total, d.start(r), "start of rank " + r + " in " + d);
                    for (long i = d.start(r); i < d.start(r) + d.size(r); i++) {
                        assertEquals(r, d.owner(i), "owner of " + i + " in " + d);
                    }
                    total += d.size(r);
                }
                assertEquals(length, total, "sizes add up in " + d);
            }
        }
    }

    /** Shrink 4 to 3 and 2, grow 4 to 8, and every other pair: each new element comes from where the old distribution kept it. */
    @Test
    void thePiecesRebuildEveryNewBlockFromTheOldBlocks() {
        for (long length = 0; length <= 30; length++) {
            for (int oldRanks = 1; oldRanks <= 8; oldRanks++) {
                BlockDistribution from = new BlockDistribution(length, oldRanks);
                for (int newRanks = 1; newRanks <= 8; newRanks++) {
                    BlockDistribution to = new BlockDistribution(length, newRanks);
                    for (int r = 0; r < newRanks; r++) {
                        long filled = 0;
                        for (BlockDistribution.Piece p : to.piecesFrom(from, r)) {
                            assertEquals(filled, p.toOffset(), "pieces in order, without gaps");
                            for (long k = 0; k < p.length(); k++) {
                                long global = to.start(r) + p.toOffset() + k;
                                assertEquals(global, from.start(p.fromRank()) + p.fromOffset() + k, "element " + global);
                                assertEquals(p.fromRank(), from.owner(global));
                            }
                            filled += p.length();
                        }
                        assertEquals(to.size(r), filled, "rank " + r + "'s block of " + to + " from " + from);
                    }
                }
            }
        }
    }

    @Test
    void fourRanksShrunkToThree() {
        BlockDistribution from = new BlockDistribution(12, 4);
        BlockDistribution to = new BlockDistribution(12, 3);
        assertEquals(List.of(new BlockDistribution.Piece(1, 1, 0, 2), new BlockDistribution.Piece(2, 0, 2, 2)), to.piecesFrom(from, 1));
    }

    @Test
    void badShapesAreRefusedWithTheReason() {
        assertEquals("a block distribution needs at least 1 rank, got 0",
                assertThrows(IllegalArgumentException.class, () -> new BlockDistribution(4, 0)).getMessage());
        assertEquals("cannot redistribute 5 elements as 4",
                assertThrows(IllegalArgumentException.class, () -> new BlockDistribution(4, 2).piecesFrom(new BlockDistribution(5, 2), 0))
                        .getMessage());
    }
}
