package org.mpirunft.npb.bt;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.mpirunft.npb.InProcessRanks;
import org.mpirunft.npb.KernelResult;
import org.mpirunft.npb.NpbClass;

/** BT's numerics without MPI: ranks are threads, so the z-slabs and the transposes are checked too. */
class AdiTest {
    @ParameterizedTest(name = "class {0} on {1} in-process ranks")
    @CsvSource({"S,1", "S,4"})
    void verifiesAgainstNpbsReferenceNorms(NpbClass cls, int ranks) throws Exception {
        BtProblem problem = BtProblem.of(cls);
        double[][] norms = new double[ranks][];
        InProcessRanks.run(ranks, rank -> {
            BtComm comm = new InProcessBtComm(rank);
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
}
