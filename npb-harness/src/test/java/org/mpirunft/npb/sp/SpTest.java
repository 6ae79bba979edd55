package org.mpirunft.npb.sp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.mpirunft.npb.InProcessRanks;
import org.mpirunft.npb.InProcessSlabComm;
import org.mpirunft.npb.KernelResult;
import org.mpirunft.npb.NpbClass;
import org.mpirunft.npb.SlabComm;

/** SP's numerics without MPI: ranks are threads, so the slabs, ghosts and transposes are checked. */
class SpTest {
    /** Runs cls's time steps on {@code ranks} in-process ranks; returns every rank's norms. */
    static double[][] norms(NpbClass cls, int ranks) throws Exception {
        SpKernel.Problem problem = SpKernel.problem(cls);
        double[][] norms = new double[ranks][];
        InProcessRanks.run(ranks, r -> {
            SlabComm comm = new InProcessSlabComm(r);
            Adi adi = new Adi(new Slab(problem.n(), ranks, r.rank()), new Constants(problem.n(), problem.dt()));
            for (int step = 0; step < problem.steps(); step++) {
                adi.step(comm);
            }
            norms[r.rank()] = adi.norms(comm);
        });
        return norms;
    }

    /** Class S and W as NPB verifies them; 5 ranks (3, 3, 2, 2, 2 planes) also check the padded transposes. */
    @ParameterizedTest(name = "class {0} on {1} in-process ranks")
    @CsvSource({"S,1", "S,4", "S,5", "W,4"})
    void verifiesAgainstNpbsReferenceNorms(NpbClass cls, int ranks) throws Exception {
        double[][] norms = norms(cls, ranks);
        KernelResult result = SpKernel.result(cls, SpKernel.problem(cls), ranks, 1.0, norms[0]);
        assertTrue(result.verified(), result.detail());
        for (double[] rank : norms) {
            assertArrayEquals(norms[0], rank, "every rank has the same norms");
        }
    }

    /**
     * A checkpoint holds u alone: rhs, the derived fields and u's ghost planes must carry
     * nothing from one step to the next. Filled with garbage before every step, as a rollback
     * leaves them on a survivor or a replacement, they change no bit of the norms.
     */
    @Test
    void uIsTheWholeStateSoScratchFieldsMayHoldAnything() throws Exception {
        SpKernel.Problem problem = SpKernel.problem(NpbClass.S);
        double[][] clean = norms(NpbClass.S, 4);
        double[][] scrambled = new double[4][];
        InProcessRanks.run(4, r -> {
            SlabComm comm = new InProcessSlabComm(r);
            Slab slab = new Slab(problem.n(), 4, r.rank());
            Adi adi = new Adi(slab, new Constants(problem.n(), problem.dt()));
            Random garbage = new Random(r.rank());
            for (int step = 0; step < problem.steps(); step++) {
                RightHandSide f = adi.rhs;
                for (double[] scratch : new double[][] {f.rhs, f.rhoI, f.us, f.vs, f.ws, f.qs, f.square, f.speed}) {
                    for (int i = 0; i < scratch.length; i++) {
                        scratch[i] = 1 + garbage.nextDouble();
                    }
                }
                int stride = slab.ghostedStride();
                for (int m = 0; m < 5; m++) {
                    for (int side : new int[] {slab.first - Slab.GHOSTS, slab.end()}) {
                        int from = m * stride + slab.ghosted(side);
                        for (int i = from; i < from + Slab.GHOSTS * slab.plane; i++) {
                            adi.u[i] = 1 + garbage.nextDouble();
                        }
                    }
                }
                adi.step(comm);
            }
            scrambled[r.rank()] = adi.norms(comm);
        });
        for (int rank = 0; rank < 4; rank++) {
            for (int m = 0; m < 10; m++) {
                assertEquals(Double.doubleToRawLongBits(clean[rank][m]), Double.doubleToRawLongBits(scrambled[rank][m]),
                        "rank " + rank + " norm " + m);
            }
        }
    }

    @Test
    void refusesNonSquareCountsAndSlabsThinnerThanTheGhosts() {
        SpKernel sp = new SpKernel();
        assertNull(sp.unsupported(NpbClass.S, 1));
        assertNull(sp.unsupported(NpbClass.S, 4));
        assertTrue(sp.unsupported(NpbClass.S, 2).contains("square"), "2 ranks");
        assertTrue(sp.unsupported(NpbClass.S, 9).contains("at most 6"), "9 ranks for 12 planes: " + sp.unsupported(NpbClass.S, 9));
        assertNull(sp.unsupported(NpbClass.W, 16), "16 ranks for 36 planes");
        assertTrue(sp.unsupported(NpbClass.W, 25).contains("at most 18"), "25 ranks for 36 planes");
        assertNull(sp.unsupported(NpbClass.C, 16));
        assertThrows(IllegalArgumentException.class, () -> new Slab(12, 9, 0));
    }

    @Test
    void slabsCoverTheGridInOrder() {
        int next = 0;
        for (int rank = 0; rank < 5; rank++) {
            Slab slab = new Slab(12, 5, rank);
            assertEquals(next, slab.first, "rank " + rank);
            assertEquals(rank < 2 ? 3 : 2, slab.count, "rank " + rank);
            assertEquals(3, slab.maxCount);
            next = slab.end();
        }
        assertEquals(12, next);
    }

    @Test
    void mopsFollowNpbsOperationCount() {
        SpKernel.Problem a = SpKernel.problem(NpbClass.A);
        KernelResult result = SpKernel.result(NpbClass.A, a, 4, 10.0, new double[10]);
        double n3 = 64.0 * 64 * 64;
        assertEquals((881.174 * n3 - 4683.91 * 64 * 64 + 11484.5 * 64 - 19272.4) * 400 / 10.0 / 1e6, result.mops(), 1e-9);
        assertFalse(result.verified(), "zero norms are not NPB's");
        assertTrue(result.detail().contains("FAILURE"), result.detail());
    }
}
