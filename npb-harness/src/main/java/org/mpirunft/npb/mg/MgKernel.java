package org.mpirunft.npb.mg;

import java.util.Locale;
import mpi.MPIException;
import org.mpirunft.bridge.FtRank;
import org.mpirunft.npb.KernelResult;
import org.mpirunft.npb.NpbClass;
import org.mpirunft.npb.Progress;
import org.mpirunft.npb.RepeatableKernel;

/**
 * MG, the multigrid kernel (NAS RNR-94-007; sizes and reference norms of NPB 3.3 and later):
 * V-cycles on the periodic Poisson problem A u = v on an n^3 grid, verified by the L2 norm of
 * the final residual.
 *
 * <p>Ranks (a power of two, at most n / 2) hold z-slabs of the fine levels; coarse levels are
 * replicated, see {@link Levels}. State: u (the coarse levels are scratch) and v; r is computed
 * from them at the start of each iteration. FtRank iteration
 * {@code it} is NPB iteration {@code it + 1}; iteration 0 first builds v (the only setup that
 * communicates), so a rollback to the start rebuilds it. The time excludes building v, as NPB
 * times it.
 */
public final class MgKernel implements RepeatableKernel {
    /** NPB 3.x verifies the relative error of the norm against this tolerance. */
    static final double TOLERANCE = 1e-8;
    /** NPB's operation count per grid point and iteration. */
    private static final double FLOPS_PER_POINT = 58.0;

    /** One class: log2 of the grid side, iterations, the reference norm, the smoother S. */
    record Problem(int log2n, int iterations, double reference, double[] smoother) {
        int n() {
            return 1 << log2n;
        }
    }

    private static final double[] SMOOTHER_SWA = {-3.0 / 8.0, 1.0 / 32.0, -1.0 / 64.0, 0.0};
    private static final double[] SMOOTHER_BC = {-3.0 / 17.0, 1.0 / 33.0, -1.0 / 61.0, 0.0};

    static Problem problem(NpbClass cls) {
        return switch (cls) {
            case S -> new Problem(5, 4, 0.5307707005734e-04, SMOOTHER_SWA);
            case W -> new Problem(7, 4, 0.6467329375339e-05, SMOOTHER_SWA);
            case A -> new Problem(8, 4, 0.2433365309069e-05, SMOOTHER_SWA);
            case B -> new Problem(8, 20, 0.1800564401355e-05, SMOOTHER_BC);
            case C -> new Problem(9, 20, 0.5706732285740e-06, SMOOTHER_BC);
        };
    }

    @Override
    public String name() {
        return "MG";
    }

    @Override
    public long iterations(NpbClass cls, int ranks) {
        return problem(cls).iterations();
    }

    @Override
    public String unsupported(NpbClass cls, int ranks) {
        int n = problem(cls).n();
        if (Integer.bitCount(ranks) != 1) {
            return "MG needs a power-of-two number of ranks";
        }
        return ranks > n / 2 ? "MG class " + cls + " (" + n + "^3) runs on at most " + n / 2 + " ranks" : null;
    }

    /**
     * Repetition r (0-based) is FtRank iterations r nit to r nit + nit - 1: its first one builds
     * v and sets u = 0 again (not timed), its last one takes the residual's norms into the state,
     * so that a rollback keeps every finished repetition's norms.
     */
    @Override
    public KernelResult run(FtRank ft, NpbClass cls, int repeats) throws MPIException {
        Problem problem = problem(cls);
        int ranks = ft.world().getSize();
        Levels levels = new Levels(problem.log2n(), ranks, ft.rank());
        double[] u = new double[levels.total()];
        double[] r = new double[levels.total()];
        double[] v = new double[Multigrid.sourceSize(levels)];
        // Each repetition's L2 norm and max |r|.
        double[] norms = new double[2 * repeats];
        // r is recomputed from u and v at the start of each iteration (Multigrid.iterate): not state.
        ft.state().register("mg.u", u).register("mg.v", v).register("mg.norms", norms);
        Multigrid multigrid = new Multigrid(levels, u, r, v, problem.smoother());
        int nit = problem.iterations();
        long iterations = (long) nit * repeats;

        long[] setupNanos = {0};
        long start = System.nanoTime();
        ft.run(0, iterations, (world, it) -> {
            MgComm comm = new MpiMgComm(world);
            if (it % nit == 0) {
                long setup = System.nanoTime();
                multigrid.start(comm);
                setupNanos[0] += System.nanoTime() - setup;
            }
            multigrid.iterate(comm);
            if (it % nit == nit - 1) {
                int repetition = (int) (it / nit);
                double[] last = multigrid.residualNorms(comm);
                norms[2 * repetition] = last[0];
                norms[2 * repetition + 1] = last[1];
            }
            Progress.iterationDone(world, it, iterations);
        });
        double seconds = (System.nanoTime() - start - setupNanos[0]) / 1e9;
        return result(cls, problem, ranks, seconds, norms, repeats);
    }

    /** The result of {@code repeats} repetitions whose norms are {@code norms} (L2, max |r|, per repetition). */
    static KernelResult result(NpbClass cls, Problem problem, int ranks, double seconds, double[] norms, int repeats) {
        KernelResult last = result(cls, problem, ranks, seconds, new double[] {norms[2 * repeats - 2], norms[2 * repeats - 1]});
        if (repeats == 1) {
            return last;
        }
        int failed = 0;
        for (int i = 0; i < repeats; i++) {
            failed += relativeError(problem, norms[2 * i]) <= TOLERANCE ? 0 : 1;
        }
        String detail = last.detail() + String.format(Locale.ROOT, " Repetitions: %d, %d within the tolerance%n", repeats, repeats - failed);
        return new KernelResult(last.kernel(), cls, last.size(), last.iterations() * repeats, ranks, seconds, last.mops() * repeats,
                last.operation(), failed == 0, detail);
    }

    /** The L2 norm's error relative to the class's reference, as NPB verifies it. */
    private static double relativeError(Problem problem, double norm) {
        return Math.abs(norm - problem.reference()) / problem.reference();
    }

    static KernelResult result(NpbClass cls, Problem problem, int ranks, double seconds, double[] norms) {
        double error = relativeError(problem, norms[0]);
        boolean verified = error <= TOLERANCE;
        String detail = String.format(Locale.ROOT, " L2 Norm is  %20.13e%n Reference   %20.13e%n Error is    %20.13e"
                        + " (relative; tolerance %.0e)%n Max |r| is  %20.13e%n",
                norms[0], problem.reference(), error, TOLERANCE, norms[1]);
        int n = problem.n();
        double mops = FLOPS_PER_POINT * problem.iterations() * ((double) n * n * n) / seconds / 1e6;
        return new KernelResult("MG", cls, n + "x" + n + "x" + n, problem.iterations(), ranks, seconds, mops,
                "floating point", verified, detail);
    }
}
