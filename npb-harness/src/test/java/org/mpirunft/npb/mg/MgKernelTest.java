package org.mpirunft.npb.mg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.mpirunft.npb.KernelResult;
import org.mpirunft.npb.NpbClass;

/** A repeated MG run verifies only if every repetition's norm is NPB's reference. */
class MgKernelTest {
    private static final MgKernel.Problem A = MgKernel.problem(NpbClass.A);

    @Test
    void everyRepetitionsNormMustMatchTheReference() {
        double ref = A.reference();
        KernelResult all = MgKernel.result(NpbClass.A, A, 4, 2.0, new double[] {ref, 1e-3, ref, 1e-3, ref, 1e-3}, 3);
        assertTrue(all.verified(), all.detail());
        assertEquals(12, all.iterations(), "3 repetitions of 4 iterations");
        assertTrue(all.detail().contains("Repetitions: 3, 3 within the tolerance"), all.detail());
        KernelResult one = MgKernel.result(NpbClass.A, A, 4, 2.0, new double[] {ref, 1e-3}, 1);
        assertEquals(3 * one.mops(), all.mops(), 1e-6, "three times the operations in the same time");

        KernelResult secondOff = MgKernel.result(NpbClass.A, A, 4, 2.0, new double[] {ref, 1e-3, ref * 1.001, 1e-3, ref, 1e-3}, 3);
        assertFalse(secondOff.verified(), "the last repetition alone would verify");
        assertTrue(secondOff.detail().contains("Repetitions: 3, 2 within the tolerance"), secondOff.detail());
    }
}
