package org.mpirunft.npb.sp;

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
 * SP, the scalar pentadiagonal pseudo-application of NPB 3.x: the compressible Navier-Stokes
 * equations on the unit cube with a manufactured solution, advanced by approximate
 * factorisation (ADI) into scalar pentadiagonal systems along x, y and z lines. Verified as
 * NPB verifies it: the RMS norms of the solution error and of the residual (rhs / dt) after
 * the last step, each within 1e-8 (relative) of the class's reference.
 *
 * <p>Decomposition: ranks (a square number, as NPB's SP requires) hold z-slabs of whole
 * k-planes, at least two each, with two ghost planes on each side for compute_rhs; the x and
 * y solves are local; for the z solve, rhs, w, 1/rho and the speed of sound go to j-slabs with
 * one all-to-all of equal (padded) blocks, and rhs comes back the same way (see {@link Adi}).
 * State: u (everything else is recomputed from it in each step, or constant) and the
 * verification norms, which the last iteration computes.
 */
public final class SpKernel implements Kernel {

    /** One class: grid side, time steps, dt, the residual and error norms' references. */
    record Problem(int n, int steps, double dt, double[] residualReference, double[] errorReference) {
    }

    static Problem problem(NpbClass cls) {
        return switch (cls) {
            case S -> new Problem(12, 100, 0.015,
                    new double[] {2.7470315451339479e-02, 1.0360746705285417e-02, 1.6235745065095532e-02,
                        1.5840557224455615e-02, 3.4849040609362460e-02},
                    new double[] {2.7289258557377227e-05, 1.0364446640837285e-05, 1.6154798287166471e-05,
                        1.5750704994480102e-05, 3.4177666183390531e-05});
            case W -> new Problem(36, 400, 0.0015,
                    new double[] {0.1893253733584e-02, 0.1717075447775e-03, 0.2778153350936e-03,
                        0.2887475409984e-03, 0.3143611161242e-02},
                    new double[] {0.7542088599534e-04, 0.6512852253086e-05, 0.1049092285688e-04,
                        0.1128838671535e-04, 0.1212845639773e-03});
            case A -> new Problem(64, 400, 0.0015,
                    new double[] {2.4799822399300195e0, 1.1276337964368832e0, 1.5028977888770491e0,
                        1.4217816211695179e0, 2.1292113035138280e0},
                    new double[] {1.0900140297820550e-04, 3.7343951769282091e-05, 5.0092785406541633e-05,
                        4.7671093939528255e-05, 1.3621613399213001e-04});
            case B -> new Problem(102, 400, 0.001,
                    new double[] {0.6903293579998e+02, 0.3095134488084e+02, 0.4103336647017e+02,
                        0.3864769009604e+02, 0.5643482272596e+02},
                    new double[] {0.9810006190188e-02, 0.1022827905670e-02, 0.1720597911692e-02,
                        0.1694479428231e-02, 0.1847456263981e-01});
            case C -> new Problem(162, 400, 0.00067,
                    new double[] {0.5881691581829e+03, 0.2454417603569e+03, 0.3293829191851e+03,
                        0.3081924971891e+03, 0.4597223799176e+03},
                    new double[] {0.2598120500183e+00, 0.2590888922315e-01, 0.5132886416320e-01,
                        0.4806073419454e-01, 0.5483377491301e+00});
        };
    }

    @Override
    public String name() {
        return "SP";
    }

    /** NPB's SP runs on a square number of processes: 9 where the others run on 8. */
    @Override
    public int ranksNear(NpbClass cls, int nodes) {
        return Kernel.nextSquare(this, cls, nodes);
    }

    @Override
    public long iterations(NpbClass cls, int ranks) {
        return problem(cls).steps();
    }

    @Override
    public String unsupported(NpbClass cls, int ranks) {
        int root = (int) Math.round(Math.sqrt(ranks));
        if (ranks < 1 || root * root != ranks) {
            return "SP needs a square number of ranks (1, 4, 9, 16, ...)";
        }
        int n = problem(cls).n();
        if (n / ranks < Slab.GHOSTS) {
            return "SP class " + cls + " (" + n + "^3) runs on at most " + n / Slab.GHOSTS
                    + " ranks: each rank needs at least " + Slab.GHOSTS + " of the " + n + " z-planes for its ghost planes";
        }
        return null;
    }

    @Override
    public KernelResult run(FtRank ft, NpbClass cls) throws MPIException {
        Problem problem = problem(cls);
        int ranks = supportedRanks(ft, cls);
        Adi adi = new Adi(new Slab(problem.n(), ranks, ft.rank()), new Constants(problem.n(), problem.dt()));
        // The error norms, then the residual norms, computed in the last step.
        double[] norms = new double[10];
        ft.state().register("sp.u", adi.u).register("sp.norms", norms);
        double seconds = TimeSteps.run(ft, problem.steps(), MpiSlabComm::new, adi::step, adi::norms, norms);
        return result(cls, problem, ranks, seconds, norms);
    }

    /** NPB's verification of {@code norms} (errors 0-4, residuals 5-9) and its report. */
    static KernelResult result(NpbClass cls, Problem problem, int ranks, double seconds, double[] norms) {
        NormVerification verification = new NormVerification(cls)
                .compare("Comparison of RMS-norms of residual", Arrays.copyOfRange(norms, 5, 10), problem.residualReference())
                .compare("Comparison of RMS-norms of solution error", Arrays.copyOfRange(norms, 0, 5), problem.errorReference());
        int n = problem.n();
        double n3 = (double) n * n * n;
        double t = (n + n + n) / 3.0;
        double mops = seconds > 0
                ? (881.174 * n3 - 4683.91 * (t * t) + 11484.5 * t - 19272.4) * problem.steps() / (seconds * 1e6)
                : 0.0;
        return new KernelResult("SP", cls, n + "x" + n + "x" + n, problem.steps(), ranks, seconds, mops, "floating point",
                verification.verified(), verification.detail());
    }
}
