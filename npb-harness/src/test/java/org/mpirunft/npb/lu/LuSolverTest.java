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
        assertEquals(17, result.detail().lines().count(), "NPB's verification block: 2 header lines, 3 sections of 6, 2 and 2 lines, and the verdict");
    }
}
