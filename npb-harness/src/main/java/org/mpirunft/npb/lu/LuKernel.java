package org.mpirunft.npb.lu;

import java.nio.DoubleBuffer;
import java.util.Arrays;
import mpi.MPI;
import mpi.MPIException;
import org.mpirunft.bridge.FtRank;
import org.mpirunft.npb.Kernel;
import org.mpirunft.npb.KernelResult;
import org.mpirunft.npb.NormVerification;
import org.mpirunft.npb.NpbClass;
import org.mpirunft.npb.TimeSteps;

/**
 * LU, NPB's lower-upper Gauss-Seidel pseudo-application (NAS RNR-95-020; sizes, time steps
 * and reference values of NPB 3.x): SSOR iterations on the 3-D compressible Navier-Stokes
 * equations' implicit operator, split into block lower and upper triangular solves, towards
 * the steady state of a manufactured solution. Verified, as NPB does, by the 5 residual
 * norms, the 5 error norms and a surface integral of the pressure, each within 1e-8 relative.
 *
 * <p>Decomposition: each rank owns consecutive y rows (j) of every x line and z plane, with
 * 2 ghost rows of u on each side for the residual's fourth-order dissipation. The triangular
 * solves are pipelined over the z planes (see {@link Ssor}): a rank receives the solved row
 * below (lower solve) or above (upper solve) its slab for one plane, solves its rows of the
 * plane, and passes its edge row on. The norms and the surface integral are sums over the
 * ranks. Ranks: a power of two, as NPB's LU requires, each with at least 2 rows.
 *
 * <p>State: u alone, and the final norms. The residual is computed from u at the start of
 * each iteration (NPB computes the same at the end of the previous one); the forcing term and
 * the initial field are computed locally before {@code ft.run}, so a replacement rank builds
 * them alike. NPB's warm-up iteration before resetting u changes nothing and is left out. The
 * last iteration also computes the norms, into registered state, so a rollback keeps them.
 */
public final class LuKernel implements Kernel {
    static final double OMEGA = 1.2;

    /** One class: grid side, iterations, time step, and NPB's reference values. */
    record Problem(int n, int iterations, double dt, double[] residualReference, double[] errorReference,
                   double surfaceReference) {
    }

    static Problem problem(NpbClass cls) {
        return switch (cls) {
            case S -> new Problem(12, 50, 5.0e-1,
                    new double[] {1.6196343210976702e-02, 2.1976745164821318e-03, 1.5179927653399185e-03,
                        1.5029584435994323e-03, 3.4264073155896461e-02},
                    new double[] {6.4223319957960924e-04, 8.4144342047347926e-05, 5.8588269616485186e-05,
                        5.8474222595157350e-05, 1.3103347914111294e-03},
                    7.8418928865937083e+00);
            case W -> new Problem(33, 300, 1.5e-3,
                    new double[] {0.1236511638192e+02, 0.1317228477799e+01, 0.2550120713095e+01, 0.2326187750252e+01,
                        0.2826799444189e+02},
                    new double[] {0.4867877144216e+00, 0.5064652880982e-01, 0.9281818101960e-01, 0.8570126542733e-01,
                        0.1084277417792e+01},
                    0.1161399311023e+02);
            case A -> new Problem(64, 250, 2.0,
                    new double[] {7.7902107606689367e+02, 6.3402765259692870e+01, 1.9499249727292479e+02,
                        1.7845301160418537e+02, 1.8384760349464247e+03},
                    new double[] {2.9964085685471943e+01, 2.8194576365003349e+00, 7.3473412698774742e+00,
                        6.7139225687777051e+00, 7.0715315688392578e+01},
                    2.6030925604886277e+01);
            case B -> new Problem(102, 250, 2.0,
                    new double[] {3.5532672969982736e+03, 2.6214750795310692e+02, 8.8333721850952190e+02,
                        7.7812774739425265e+02, 7.3087969592545314e+03},
                    new double[] {1.1401176380212709e+02, 8.1098963655421574e+00, 2.8480597317698308e+01,
                        2.5905394567832939e+01, 2.6054907504857413e+02},
                    4.7887162703308227e+01);
            case C -> new Problem(162, 250, 2.0,
                    new double[] {1.03766980323537846e+04, 8.92212458801008552e+02, 2.56238814582660871e+03,
                        2.19194343857831427e+03, 1.78078057261061185e+04},
                    new double[] {2.15986399716949279e+02, 1.55789559239863600e+01, 5.41318863077207766e+01,
                        4.82262643154045421e+01, 4.55902910043250358e+02},
                    6.66404553572181300e+01);
        };
    }

    @Override
    public String name() {
        return "LU";
    }

    @Override
    public long iterations(NpbClass cls, int ranks) {
        return problem(cls).iterations();
    }

    @Override
    public String unsupported(NpbClass cls, int ranks) {
        if (ranks < 1 || Integer.bitCount(ranks) != 1) {
            return "LU needs a power-of-two number of ranks";
        }
        int n = problem(cls).n();
        if (n / ranks < Slab.MIN_ROWS) {
            int most = Integer.highestOneBit(n / Slab.MIN_ROWS);
            return "LU class " + cls + " (" + n + "^3) splits its " + n + " y rows over the ranks, at least " + Slab.MIN_ROWS
                    + " each: at most " + most + " ranks";
        }
        return null;
    }

    @Override
    public KernelResult run(FtRank ft, NpbClass cls) throws MPIException {
        Problem problem = problem(cls);
        int ranks = supportedRanks(ft, cls);
        int n = problem.n();
        Slab slab = new Slab(n, n, n, ranks, ft.rank());
        double[] u = new double[slab.size()];
        double[] norms = new double[Norms.SIZE];
        ft.state().register("lu.u", u).register("lu.norms", norms);
        Ssor ssor = new Ssor(slab, problem.dt(), OMEGA, u);
        ssor.start();

        // The sweeps' row receives go through a direct buffer (non-blocking receive), kept across iterations.
        DoubleBuffer rowIn = MPI.newDoubleBuffer(slab.rowStride);
        // The norms after the last iteration are not timed: NPB times one residual per iteration, as ssor.iterate does.
        double seconds = TimeSteps.run(ft, problem.iterations(), world -> new MpiLuComm(world, rowIn), ssor::iterate,
                comm -> Norms.of(slab, ssor, u, comm), norms);
        return result(cls, problem, ranks, seconds, norms);
    }

    /** The verification of {@code norms} (residual, error, surface integral) as NPB's verify reports it. */
    static KernelResult result(NpbClass cls, Problem problem, int ranks, double seconds, double[] norms) {
        NormVerification verification = new NormVerification(cls)
                .compare("Comparison of RMS-norms of residual", Arrays.copyOfRange(norms, 0, 5), problem.residualReference())
                .compare("Comparison of RMS-norms of solution error", Arrays.copyOfRange(norms, 5, 10), problem.errorReference())
                .compare("Comparison of surface integral", norms[10], problem.surfaceReference());

        int n = problem.n();
        double mops = operations(problem) / seconds / 1e6;
        return new KernelResult("LU", cls, n + "x" + n + "x" + n, problem.iterations(), ranks, seconds, mops, "floating point",
                verification.verified(), verification.detail());
    }

    /** NPB LU's operation count for the whole run. */
    static double operations(Problem problem) {
        double n = problem.n();
        double mean = (3 * n) / 3.0;
        return problem.iterations() * (1984.77 * n * n * n - 10923.3 * mean * mean + 27770.9 * mean - 144010.0);
    }
}
