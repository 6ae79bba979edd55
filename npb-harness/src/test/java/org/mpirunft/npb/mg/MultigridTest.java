package org.mpirunft.npb.mg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.mpirunft.npb.NpbClass;

/** MG's numerics without MPI: ranks are threads, so the decomposition itself is checked. */
class MultigridTest {
    @ParameterizedTest(name = "class {0} on {1} in-process ranks")
    @CsvSource({"S,1", "S,2", "S,4", "S,16", "W,1", "W,4"})
    void reachesTheReferenceNorm(NpbClass cls, int ranks) throws Exception {
        MgKernel.Problem problem = MgKernel.problem(cls);
        double[][] norms = new double[ranks][];
        InProcessMgComm.run(ranks, comm -> {
            Levels levels = new Levels(problem.log2n(), comm.size(), comm.rank());
            Multigrid multigrid = new Multigrid(levels, new double[levels.total()], new double[levels.total()],
                    new double[Multigrid.sourceSize(levels)], problem.smoother());
            multigrid.start(comm);
            for (int it = 0; it < problem.iterations(); it++) {
                multigrid.iterate(comm);
            }
            norms[comm.rank()] = multigrid.residualNorms(comm);
        });
        double error = Math.abs(norms[0][0] - problem.reference()) / problem.reference();
        assertTrue(error <= MgKernel.TOLERANCE, "class " + cls + " on " + ranks + ": norm " + norms[0][0] + " vs reference "
                + problem.reference() + ", relative error " + error);
        for (double[] rankNorms : norms) {
            assertEquals(norms[0][0], rankNorms[0], "every rank reports the same norm");
        }
    }

    @Test
    void refusesMoreRanksThanHalfTheGridSide() {
        assertThrows(IllegalArgumentException.class, () -> new Levels(5, 32, 0), "32 ranks for 32 planes");
        assertThrows(IllegalArgumentException.class, () -> new Levels(5, 3, 0), "3 ranks");
        assertNull(new MgKernel().unsupported(NpbClass.S, 16), "16 ranks for 32 planes");
    }

    @Test
    void replicatesOnlyLevelsWithFewerThanTwoPlanesPerRank() {
        Levels levels = new Levels(5, 4, 3);
        assertTrue(levels.get(3).distributed(), "8 planes on 4 ranks is 2 each");
        assertEquals(6, levels.get(3).z0(), "rank 3's first plane");
        assertFalse(levels.get(2).distributed(), "4 planes on 4 ranks are replicated");
        assertEquals(4, levels.get(2).nz(), "a replicated level holds every plane");
    }
}
