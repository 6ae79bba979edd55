package org.mpirunft.npb;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;
import org.mpirunft.bridge.FtRank;

class KernelTest {
    /** Takes square counts of ranks, and at most 16 for class S, as BT and SP do. */
    private static final Kernel SQUARES = new Kernel() {
        @Override
        public String name() {
            return "SQ";
        }

        @Override
        public String unsupported(NpbClass cls, int ranks) {
            int side = (int) Math.round(Math.sqrt(ranks));
            if (side * side != ranks) {
                return "needs a square";
            }
            return cls == NpbClass.S && ranks > 16 ? "too many" : null;
        }

        @Override
        public int ranksNear(NpbClass cls, int nodes) {
            return Kernel.nextSquare(this, cls, nodes);
        }

        @Override
        public long iterations(NpbClass cls, int ranks) {
            return 1;
        }

        @Override
        public KernelResult run(FtRank ft, NpbClass cls) {
            throw new UnsupportedOperationException();
        }
    };

    @Test
    void aSquareKernelRunsOnTheNextSquareTheOthersOnTheNodeCountAsked() {
        assertEquals(4, SQUARES.ranksNear(NpbClass.A, 4));
        assertEquals(9, SQUARES.ranksNear(NpbClass.A, 8), "NPB's BT and SP run on 9 where the others run on 8");
        assertEquals(16, SQUARES.ranksNear(NpbClass.A, 10));
        assertEquals(-1, SQUARES.ranksNear(NpbClass.S, 17), "25 is too many for class S");
        assertEquals(8, Kernels.byName("cg").ranksNear(NpbClass.A, 8), "a power of two as it is");
        assertEquals(-1, Kernels.byName("cg").ranksNear(NpbClass.A, 3), "the other kernels run on the count asked for, or not at all");
        assertEquals(-1, Kernels.byName("mg").ranksNear(NpbClass.S, 32), "MG class S runs on at most 16 ranks");
    }
}
