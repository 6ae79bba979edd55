package org.mpirunft.npb.sp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.mpirunft.npb.InProcessRanks;
import org.mpirunft.npb.KernelResult;
import org.mpirunft.npb.NpbClass;

/** SP's numerics without MPI: ranks are threads, so the slabs, ghosts and transposes are checked. */
class SpTest {
    /** Runs cls's time steps on {@code ranks} in-process ranks; returns every rank's norms. */
    static double[][] norms(NpbClass cls, int ranks) throws Exception {
        SpKernel.Problem problem = SpKernel.problem(cls);
        double[][] norms = new double[ranks][];
        InProcessRanks.run(ranks, r -> {
            SpComm comm = new InProcessSpComm(r);
            Adi adi = new Adi(new Slab(problem.n(), ranks, r.rank()), new Constants(problem.n(), problem.dt()));
            for (int step = 0; step < problem.steps(); step++) {
                adi.step(comm);
            }
            norms[r.rank()] = adi.norms(comm);
        });
        return norms;
    }

    @ParameterizedTest(name = "class {0} on {1} in-process ranks")
    @CsvSource({"S,1", "S,4"})
    void verifiesAgainstNpbsReferenceNorms(NpbClass cls, int ranks) throws Exception {
        double[][] norms = norms(cls, ranks);
        KernelResult result = SpKernel.result(cls, SpKernel.problem(cls), ranks, 1.0, norms[0]);
        assertTrue(result.verified(), result.detail());
        for (double[] rank : norms) {
            assertArrayEquals(norms[0], rank, "every rank has the same norms");
        }
    }
}
