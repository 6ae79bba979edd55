package org.mpirunft.npb.lu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.mpirunft.npb.Kernels;
import org.mpirunft.npb.KernelResult;
import org.mpirunft.npb.NpbClass;

/** LU's rank-count rules, its verification verdict and NPB's report format, without running it. */
class LuKernelTest {
    private final LuKernel kernel = new LuKernel();

    @Test
    void takesPowersOfTwoThatLeaveEveryRankTwoRows() {
        assertTrue(Kernels.byName("lu") instanceof LuKernel);
        assertNull(kernel.unsupported(NpbClass.S, 1));
        assertNull(kernel.unsupported(NpbClass.S, 4), "12 rows: 3 per rank");
        assertNull(kernel.unsupported(NpbClass.W, 16), "33 rows: 2 or 3 per rank");
        assertNull(kernel.unsupported(NpbClass.C, 16));
        assertTrue(kernel.unsupported(NpbClass.S, 3).contains("power-of-two"), kernel.unsupported(NpbClass.S, 3));
        assertTrue(kernel.unsupported(NpbClass.W, 9).contains("power-of-two"));
        String eight = kernel.unsupported(NpbClass.S, 8);
        assertTrue(eight != null && eight.contains("at most 4 ranks"), "12 rows on 8 ranks: " + eight);
        assertThrows(IllegalArgumentException.class, () -> new Slab(12, 12, 12, 8, 0));
        assertEquals(250, kernel.iterations(NpbClass.C, 16));
    }

    @Test
    void slabsCoverEveryRowOnce() {
        int next = 0;
        for (int rank = 0; rank < 16; rank++) {
            Slab slab = new Slab(33, 33, 33, 16, rank);
            assertEquals(next, slab.firstRow, "rank " + rank);
            assertTrue(slab.lastRow - slab.firstRow + 1 >= Slab.MIN_ROWS);
            next = slab.lastRow + 1;
        }
        assertEquals(33, next);
    }

    @Test
    void oneNormOutsideTheToleranceFailsTheVerification() {
        LuKernel.Problem s = LuKernel.problem(NpbClass.S);
        double[] norms = new double[Norms.SIZE];
        System.arraycopy(s.residualReference(), 0, norms, 0, 5);
        System.arraycopy(s.errorReference(), 0, norms, 5, 5);
        norms[10] = s.surfaceReference();
        KernelResult exact = LuKernel.result(NpbClass.S, s, 4, 2.0, norms);
        assertTrue(exact.verified(), exact.detail());
        assertEquals("12x12x12", exact.size());

        norms[10] *= 1 + 2e-8;
        KernelResult off = LuKernel.result(NpbClass.S, s, 4, 2.0, norms);
        assertFalse(off.verified(), "surface integral 2e-8 off");
        assertTrue(off.detail().contains(" FAILURE: ") && off.detail().endsWith(" Verification failed\n"), off.detail());
    }

    @Test
    void countsOperationsAsNpb() {
        LuKernel.Problem a = LuKernel.problem(NpbClass.A);
        double perIteration = 1984.77 * 64 * 64 * 64 - 10923.3 * 64 * 64 + 27770.9 * 64 - 144010.0;
        assertEquals(250 * perIteration, LuKernel.operations(a), 1.0);
    }
}
