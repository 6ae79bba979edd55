package org.mpirunft.npb.bt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.mpirunft.npb.Kernels;
import org.mpirunft.npb.KernelResult;
import org.mpirunft.npb.NpbClass;

/** BT's rank-count rules, NPB's classes, and the verdict on the norms. */
class BtKernelTest {
    private final BtKernel bt = new BtKernel();

    @Test
    void runsOnSquareCountsThatLeaveEveryRankTwoPlanes() {
        assertNull(bt.unsupported(NpbClass.S, 1));
        assertNull(bt.unsupported(NpbClass.S, 4));
        assertTrue(bt.unsupported(NpbClass.S, 2).contains("square"), bt.unsupported(NpbClass.S, 2));
        assertTrue(bt.unsupported(NpbClass.W, 8).contains("square"));
        assertTrue(bt.unsupported(NpbClass.S, 9).contains("at most 6 ranks"), bt.unsupported(NpbClass.S, 9));
        assertNull(bt.unsupported(NpbClass.W, 9));
        assertNull(bt.unsupported(NpbClass.A, 25));
        assertNotNull(bt.unsupported(NpbClass.A, 36), "64 planes over 36 ranks leave some one plane");
        assertNull(bt.unsupported(NpbClass.C, 16));
        assertThrows(IllegalArgumentException.class, () -> new Slab(12, 9, 0));
    }

    @Test
    void nameAndStepsAreNpbs() {
        assertEquals(BtKernel.class, Kernels.byName("bt").getClass());
        assertEquals(60, bt.iterations(NpbClass.S, 1));
        for (NpbClass cls : new NpbClass[] {NpbClass.W, NpbClass.A, NpbClass.B, NpbClass.C}) {
            assertEquals(200, bt.iterations(cls, 4));
        }
        assertEquals(162, BtProblem.of(NpbClass.C).n());
        assertEquals(1.0e-4, BtProblem.of(NpbClass.C).dt());
    }

    @Test
    void planesAreSplitAsEvenlyAsPossible() {
        Slab last = new Slab(162, 16, 15);
        assertEquals(152, last.k0);
        assertEquals(10, last.planes);
        assertEquals(11, new Slab(162, 16, 0).planes);
        assertEquals(11, last.maxPlanes);
    }

    @Test
    void everyNormMustBeWithinTheTolerance() {
        BtProblem s = BtProblem.of(NpbClass.S);
        double[] norms = new double[10];
        System.arraycopy(s.residualReference(), 0, norms, 0, 5);
        System.arraycopy(s.errorReference(), 0, norms, 5, 5);
        KernelResult exact = BtKernel.result(s, 1, 2.0, norms);
        assertTrue(exact.verified(), exact.detail());
        assertTrue(exact.detail().contains("Verification Successful"), exact.detail());
        assertEquals("12x12x12", exact.size());

        norms[8] = norms[8] * (1 + 1e-7);
        KernelResult off = BtKernel.result(s, 1, 2.0, norms);
        assertFalse(off.verified(), off.detail());
        assertTrue(off.detail().contains("FAILURE:  4"), off.detail());

        norms[8] = Double.NaN;
        assertFalse(BtKernel.result(s, 1, 2.0, norms).verified(), "a NaN norm");
    }
}
