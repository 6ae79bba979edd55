package org.mpirunft.npb.mg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.mpirunft.npb.InProcessRanks;
import org.mpirunft.npb.NpbClass;

/** MG's numerics without MPI: ranks are threads, so the decomposition itself is checked. */
class MultigridTest {
    @ParameterizedTest(name = "class {0} on {1} in-process ranks")
    @CsvSource({"S,1", "S,2", "S,4", "S,16", "W,1", "W,4"})
    void reachesTheReferenceNorm(NpbClass cls, int ranks) throws Exception {
        MgKernel.Problem problem = MgKernel.problem(cls);
        double[][] norms = new double[ranks][];
        InProcessRanks.run(ranks, rank -> {
            MgComm comm = new InProcessMgComm(rank);
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

    /**
     * A checkpoint holds u and v only: r must carry nothing from one iteration to the next. r
     * (every level) filled with garbage before each iteration, as a rollback leaves it on a
     * survivor (a later iteration's) or a replacement (zeros), changes no bit of the result.
     */
    @Test
    void theResidualIsScratchSoACheckpointOfUAndVIsTheWholeState() throws Exception {
        MgKernel.Problem problem = MgKernel.problem(NpbClass.S);
        double[][] clean = new double[4][];
        double[][] scrambled = new double[4][];
        for (boolean scramble : new boolean[] {false, true}) {
            InProcessRanks.run(4, rank -> {
                MgComm comm = new InProcessMgComm(rank);
                Levels levels = new Levels(problem.log2n(), comm.size(), comm.rank());
                double[] r = new double[levels.total()];
                Multigrid multigrid = new Multigrid(levels, new double[levels.total()], r, new double[Multigrid.sourceSize(levels)],
                        problem.smoother());
                multigrid.start(comm);
                java.util.Random garbage = new java.util.Random(comm.rank());
                for (int it = 0; it < problem.iterations(); it++) {
                    if (scramble) {
                        for (int i = 0; i < r.length; i++) {
                            r[i] = garbage.nextDouble() * 1e6;
                        }
                    }
                    multigrid.iterate(comm);
                }
                (scramble ? scrambled : clean)[comm.rank()] = multigrid.residualNorms(comm);
            });
        }
        for (int rank = 0; rank < 4; rank++) {
            assertEquals(Double.doubleToRawLongBits(clean[rank][0]), Double.doubleToRawLongBits(scrambled[rank][0]), "rank " + rank);
            assertEquals(Double.doubleToRawLongBits(clean[rank][1]), Double.doubleToRawLongBits(scrambled[rank][1]), "rank " + rank);
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
