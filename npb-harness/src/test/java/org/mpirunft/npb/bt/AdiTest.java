package org.mpirunft.npb.bt;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.mpirunft.npb.InProcessRanks;
import org.mpirunft.npb.InProcessSlabComm;
import org.mpirunft.npb.KernelResult;
import org.mpirunft.npb.NpbClass;
import org.mpirunft.npb.SlabComm;

/** BT's numerics without MPI: ranks are threads, so the z-slabs and the transposes are checked too. */
class AdiTest {
    /** W on 9 ranks: uneven slabs (3 planes on six ranks, 2 on three), the fewest planes a rank may have. */
    @ParameterizedTest(name = "class {0} on {1} in-process ranks")
    @CsvSource({"S,1", "S,4", "W,9"})
    void verifiesAgainstNpbsReferenceNorms(NpbClass cls, int ranks) throws Exception {
        BtProblem problem = BtProblem.of(cls);
        double[][] norms = new double[ranks][];
        InProcessRanks.run(ranks, rank -> {
            SlabComm comm = new InProcessSlabComm(rank);
            Adi adi = new Adi(problem, comm.size(), comm.rank());
            for (int step = 0; step < problem.steps(); step++) {
                adi.step(comm);
            }
            norms[comm.rank()] = adi.norms(comm);
        });
        KernelResult result = BtKernel.result(problem, ranks, 1.0, norms[0]);
        assertTrue(result.verified(), result.detail());
        for (double[] rankNorms : norms) {
            assertArrayEquals(norms[0], rankNorms, "every rank reports the same norms");
        }
    }

    /**
     * A checkpoint holds u only. Ranks that start afresh (forcing and workspaces rebuilt, as a
     * replacement rank builds them) from u as it was after step 30 end with the same bits as
     * the run that went through: nothing else carries from one step to the next.
     */
    @Test
    void uAloneCarriesTheRunFromOneStepToTheNext() throws Exception {
        BtProblem problem = BtProblem.of(NpbClass.S);
        int ranks = 4;
        int cut = 30;
        double[][] snapshots = new double[ranks][];
        double[][] through = new double[ranks][];
        double[][] resumed = new double[ranks][];
        InProcessRanks.run(ranks, rank -> {
            SlabComm comm = new InProcessSlabComm(rank);
            Adi adi = new Adi(problem, comm.size(), comm.rank());
            for (int step = 0; step < problem.steps(); step++) {
                if (step == cut) {
                    snapshots[comm.rank()] = adi.u().clone();
                }
                adi.step(comm);
            }
            through[comm.rank()] = adi.norms(comm);
        });
        InProcessRanks.run(ranks, rank -> {
            SlabComm comm = new InProcessSlabComm(rank);
            Adi adi = new Adi(problem, comm.size(), comm.rank());
            // Steps on the fresh ranks first, so that their workspaces hold a later state's values.
            for (int step = 0; step < 3; step++) {
                adi.step(comm);
            }
            System.arraycopy(snapshots[comm.rank()], 0, adi.u(), 0, adi.u().length);
            for (int step = cut; step < problem.steps(); step++) {
                adi.step(comm);
            }
            resumed[comm.rank()] = adi.norms(comm);
        });
        for (int rank = 0; rank < ranks; rank++) {
            for (int m = 0; m < 10; m++) {
                assertEquals(Double.doubleToRawLongBits(through[rank][m]), Double.doubleToRawLongBits(resumed[rank][m]),
                        "rank " + rank + " norm " + m);
            }
        }
    }

    /** The slab decomposition changes only the order of the norms' sums: 1 and 4 ranks agree to rounding. */
    @Test
    void slabsAndTransposesGiveTheSingleRankSolution() throws Exception {
        BtProblem problem = BtProblem.of(NpbClass.S);
        double[][] one = new double[1][];
        double[][] four = new double[4][];
        for (double[][] norms : new double[][][] {one, four}) {
            InProcessRanks.run(norms.length, rank -> {
                SlabComm comm = new InProcessSlabComm(rank);
                Adi adi = new Adi(problem, comm.size(), comm.rank());
                for (int step = 0; step < 5; step++) {
                    adi.step(comm);
                }
                norms[comm.rank()] = adi.norms(comm);
            });
        }
        for (int m = 0; m < 10; m++) {
            assertEquals(one[0][m], four[0][m], Math.abs(one[0][m]) * 1e-13, "norm " + m);
        }
    }
}
