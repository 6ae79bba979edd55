package org.mpirunft.npb.ft;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.mpirunft.npb.InProcessRanks;
import org.mpirunft.npb.NpbClass;

/** FT's numerics without MPI: ranks are threads, so the transposes themselves are checked. */
class DiffusionTest {
    @ParameterizedTest(name = "class {0} on {1} in-process ranks")
    @CsvSource({"S,1", "S,2", "S,4", "S,64", "W,1", "W,4"})
    void matchesEveryReferenceChecksum(NpbClass cls, int ranks) throws Exception {
        FtKernel.Problem problem = FtKernel.problem(cls);
        double[][] sums = new double[ranks][];
        InProcessRanks.run(ranks, rank -> {
            FtComm comm = new InProcessFtComm(rank);
            int slab = (int) SlabFft.slabDoubles(problem.nx(), problem.ny(), problem.nz(), comm.size());
            double[] checksums = new double[2 * problem.iterations()];
            Diffusion diffusion = new Diffusion(problem.nx(), problem.ny(), problem.nz(), comm.size(), comm.rank(),
                    new double[slab], new double[slab], checksums);
            diffusion.start(comm);
            for (int t = 1; t <= problem.iterations(); t++) {
                diffusion.step(comm, t);
            }
            sums[comm.rank()] = checksums;
        });
        double[] reference = FtReference.checksums(cls);
        for (int t = 0; t < problem.iterations(); t++) {
            double error = FtReference.error(reference, t, sums[0][2 * t], sums[0][2 * t + 1]);
            assertTrue(error <= FtReference.TOLERANCE, "class " + cls + " on " + ranks + " ranks, T = " + (t + 1) + ": ("
                    + sums[0][2 * t] + ", " + sums[0][2 * t + 1] + "), relative error " + error);
        }
        for (double[] rankSums : sums) {
            assertArrayEquals(sums[0], rankSums, "every rank holds the same checksums");
        }
    }
}
