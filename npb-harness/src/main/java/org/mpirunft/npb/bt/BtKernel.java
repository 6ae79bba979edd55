package org.mpirunft.npb.bt;

import java.util.Arrays;
import mpi.MPIException;
import org.mpirunft.bridge.FtRank;
import org.mpirunft.npb.Kernel;
import org.mpirunft.npb.KernelResult;
import org.mpirunft.npb.MpiSlabComm;
import org.mpirunft.npb.NormVerification;
import org.mpirunft.npb.NpbClass;
import org.mpirunft.npb.TimeSteps;

/**
 * BT, NPB's block-tridiagonal pseudo-application (NAS RNR-95-020; sizes, time steps and
 * reference norms of NPB 3.x): an implicit (ADI) solution of the 3-D compressible
 * Navier-Stokes equations with a manufactured exact solution, each time step a right-hand
 * side and three factors of 5x5 block-tridiagonal line solves, verified by the RMS norms of
 * the final residual and of the error against the exact solution.
 *
 * <p>Decomposition: z-slabs. Each rank holds a contiguous range of k-planes with two ghost
 * planes either side (the fourth-order dissipation reaches k +- 2; the boundary planes are
 * fixed), swapped with the neighbours before each right-hand side. The x and y line solves
 * are local to the slab. For the z solves u and the right-hand side are transposed to j-slabs
 * by an all-to-all of equal, padded blocks, solved along k, and the solution transposed back.
 * NPB's rule of square rank counts is kept; each rank needs at least two planes.
 *
 * <p>State: u (rhs, the forcing and the solver workspaces are recomputed or constant) and the
 * final norms, which the last iteration computes. FtRank iteration {@code it} is NPB time step
 * {@code it + 1}. The time excludes the verification, as NPB's.
 */
public final class BtKernel implements Kernel {
    @Override
    public String name() {
        return "BT";
    }

    @Override
    public String unsupported(NpbClass cls, int ranks) {
        return Slab.refusal(BtProblem.of(cls).n(), ranks);
    }

    /** NPB's BT runs on a square number of processes: 9 where the others run on 8. */
    @Override
    public int ranksNear(NpbClass cls, int nodes) {
        return Kernel.nextSquare(this, cls, nodes);
    }

    @Override
    public long iterations(NpbClass cls, int ranks) {
        return BtProblem.of(cls).steps();
    }

    @Override
    public KernelResult run(FtRank ft, NpbClass cls) throws MPIException {
        BtProblem problem = BtProblem.of(cls);
        int ranks = supportedRanks(ft, cls);
        Adi adi = new Adi(problem, ranks, ft.rank());
        double[] norms = new double[10];
        ft.state().register("bt.u", adi.u()).register("bt.norms", norms);
        double seconds = TimeSteps.run(ft, problem.steps(), MpiSlabComm::new, adi::step, adi::norms, norms);
        return result(problem, ranks, seconds, norms);
    }

    /** The verification of norms {xcr[0..4], xce[0..4]} as NPB's verify reports it. */
    static KernelResult result(BtProblem problem, int ranks, double seconds, double[] norms) {
        NormVerification verification = new NormVerification(problem.cls())
                .compare("Comparison of RMS-norms of residual", Arrays.copyOfRange(norms, 0, 5), problem.residualReference())
                .compare("Comparison of RMS-norms of solution error", Arrays.copyOfRange(norms, 5, 10),
                        problem.errorReference());
        boolean verified = verification.verified();
        String detail = verification.detail();
        int n = problem.n();
        return new KernelResult("BT", problem.cls(), n + "x" + n + "x" + n, problem.steps(), ranks, seconds, problem.mops(seconds),
                "floating point", verified, detail);
    }
}
