package org.mpirunft.npb.lu;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.mpirunft.npb.InProcessRanks;
import org.mpirunft.npb.KernelResult;
import org.mpirunft.npb.NpbClass;

/** LU's numerics and decomposition without MPI: ranks are threads, verified against NPB's reference values. */
class LuSolverTest {
    /** Runs the class on in-process ranks; returns every rank's norms. */
    static double[][] run(NpbClass cls, int ranks) throws Exception {
        LuKernel.Problem problem = LuKernel.problem(cls);
        double[][] norms = new double[ranks][];
        InProcessRanks.run(ranks, rank -> {
            LuComm comm = new InProcessLuComm(rank);
            int n = problem.n();
            Slab slab = new Slab(n, n, n, ranks, rank.rank());
            double[] u = new double[slab.size()];
            Ssor ssor = new Ssor(slab, problem.dt(), LuKernel.OMEGA, u);
            ssor.start();
            for (int it = 0; it < problem.iterations(); it++) {
                ssor.iterate(comm);
            }
            norms[rank.rank()] = Norms.of(slab, ssor, u, comm);
        });
        return norms;
    }

    @ParameterizedTest(name = "class {0} on {1} in-process ranks")
    @CsvSource({"S,1", "S,2", "S,4"})
    void verifiesAgainstNpbsReferenceValues(NpbClass cls, int ranks) throws Exception {
        double[][] norms = run(cls, ranks);
        KernelResult result = LuKernel.result(cls, LuKernel.problem(cls), ranks, 1.0, norms[0]);
        assertTrue(result.verified(), "class " + cls + " on " + ranks + " ranks:\n" + result.detail());
        for (double[] rankNorms : norms) {
            assertArrayEquals(norms[0], rankNorms, "every rank reports the same norms");
        }
        assertEquals(17, result.detail().lines().count(), "NPB's verification block: 2 header lines, 6 + 6 + 2 lines of comparisons, the verdict");
    }

    /**
     * A checkpoint holds u only: rsd must carry nothing from one iteration to the next. rsd
     * filled with garbage before every iteration, as a rollback leaves it on a survivor (a later
     * iteration's) or a replacement (the forcing's scratch), changes no bit of the result.
     */
    @org.junit.jupiter.api.Test
    void theResidualIsScratchSoACheckpointOfUIsTheWholeState() throws Exception {
        LuKernel.Problem problem = LuKernel.problem(NpbClass.S);
        double[][][] results = new double[2][][];
        for (int scramble = 0; scramble < 2; scramble++) {
            boolean garbage = scramble == 1;
            double[][] norms = new double[2][];
            InProcessRanks.run(2, rank -> {
                LuComm comm = new InProcessLuComm(rank);
                Slab slab = new Slab(12, 12, 12, 2, rank.rank());
                double[] u = new double[slab.size()];
                Ssor ssor = new Ssor(slab, problem.dt(), LuKernel.OMEGA, u);
                ssor.start();
                java.util.Random random = new java.util.Random(rank.rank());
                for (int it = 0; it < 10; it++) {
                    if (garbage) {
                        double[] rsd = ssor.residualField();
                        for (int p = 0; p < rsd.length; p++) {
                            rsd[p] = random.nextDouble() * 1e6;
                        }
                    }
                    ssor.iterate(comm);
                }
                norms[rank.rank()] = Norms.of(slab, ssor, u, comm);
            });
            results[scramble] = norms;
        }
        for (int rank = 0; rank < 2; rank++) {
            assertArrayEquals(results[0][rank], results[1][rank], "rank " + rank);
        }
    }
}
