package org.mpirunft.npb.cg;

import java.util.Arrays;
import java.util.Locale;
import mpi.MPIException;
import org.mpirunft.bridge.FtRank;
import org.mpirunft.npb.Kernel;
import org.mpirunft.npb.KernelResult;
import org.mpirunft.npb.NpbClass;
import org.mpirunft.npb.Progress;

/**
 * CG, the conjugate gradient kernel (NAS RNR-94-007): the inverse power method estimates the
 * smallest eigenvalue of a random sparse symmetric positive definite matrix ({@link CgMatrix}).
 * Each outer iteration solves A z = x with 25 CG steps ({@link ConjugateGradient}), then sets
 * zeta = shift + 1 / (x . z) and x = z / ||z||. Verification: zeta after the last iteration
 * within 1e-10 of the published value.
 *
 * <p>Rows are split in contiguous blocks, one per rank; every rank builds its own block of
 * the matrix before the loop (local and deterministic, so a replacement rebuilds the same
 * block). State: this rank's block of x, which is all an outer iteration carries, and zeta
 * with the last residual norm.
 */
public final class CgKernel implements Kernel {
    private static final double TOLERANCE = 1e-10;
    /** State layout of the small array: the last zeta and ||r||. */
    private static final int ZETA = 0;
    private static final int RNORM = 1;

    /** One class: order, nonzeros per generated vector, eigenvalue shift, outer iterations, published zeta. */
    record Problem(int n, int nonzer, double shift, int iterations, double zeta) {
        static Problem of(NpbClass cls) {
            return switch (cls) {
                case S -> new Problem(1400, 7, 10, 15, 8.5971775078648);
                case W -> new Problem(7000, 8, 12, 15, 10.362595087124);
                case A -> new Problem(14000, 11, 20, 15, 17.130235054029);
                case B -> new Problem(75000, 13, 60, 75, 22.712745482631);
                case C -> new Problem(150000, 15, 110, 75, 28.973605592845);
            };
        }

        /** NPB's operation count for the whole run. */
        double operations() {
            double perRow = nonzer * (nonzer + 1.0);
            return 2.0 * iterations * n * (3.0 + perRow + ConjugateGradient.STEPS * (5.0 + perRow) + 3.0);
        }
    }

    @Override
    public String name() {
        return "CG";
    }

    @Override
    public long iterations(NpbClass cls, int ranks) {
        return Problem.of(cls).iterations();
    }

    @Override
    public String unsupported(NpbClass cls, int ranks) {
        if (Integer.bitCount(ranks) != 1) {
            return "CG runs on a power-of-two number of ranks (1, 2, 4, 8, ...), as NPB defines it";
        }
        int n = Problem.of(cls).n();
        return ranks > n ? "CG class " + cls + " has only " + n + " rows" : null;
    }

    @Override
    public KernelResult run(FtRank ft, NpbClass cls) throws MPIException {
        Problem problem = Problem.of(cls);
        int ranks = ft.world().getSize();
        int rank = ft.rank();
        int n = problem.n();
        int[] blockRows = new int[ranks];
        int[] blockStart = new int[ranks];
        for (int r = 0; r < ranks; r++) {
            blockStart[r] = (int) ((long) n * r / ranks);
            blockRows[r] = (int) ((long) n * (r + 1) / ranks) - blockStart[r];
        }

        long setupStart = System.nanoTime();
        CgMatrix matrix = CgMatrix.rows(n, problem.nonzer(), problem.shift(), blockStart[rank],
                blockStart[rank] + blockRows[rank]);
        ConjugateGradient solver = new ConjugateGradient(matrix, n, blockRows, blockStart);
        double[] x = new double[matrix.rows];
        Arrays.fill(x, 1.0);
        double[] results = new double[2];
        ft.state().register("cg.x", x).register("cg.results", results);
        if (rank == 0 && !ft.isReplacement()) {
            System.out.printf(Locale.ROOT, " Size: %d%n Iterations: %d%n Rank 0 rows: %d, nonzeros: %d, built in %.2f s%n%n"
                            + "   iteration           ||r||                 zeta%n", n, problem.iterations(), matrix.rows,
                    matrix.nonzeros(), (System.nanoTime() - setupStart) / 1e9);
        }

        long start = System.nanoTime();
        ft.run(0, problem.iterations(), (world, it) -> {
            solver.solve(world, x);
            double zeta = problem.shift() + 1.0 / solver.xDotZ();
            double scale = 1.0 / Math.sqrt(solver.zDotZ());
            double[] z = solver.z();
            for (int i = 0; i < x.length; i++) {
                x[i] = scale * z[i];
            }
            results[ZETA] = zeta;
            results[RNORM] = Math.sqrt(solver.residualSquared());
            if (world.getRank() == 0) {
                System.out.printf(Locale.ROOT, "    %5d       %20.14e%20.13f%n", it + 1, results[RNORM], zeta);
            }
            Progress.iterationDone(world, it, problem.iterations());
        });
        double seconds = (System.nanoTime() - start) / 1e9;

        double zeta = results[ZETA];
        double error = Math.abs(zeta - problem.zeta());
        boolean verified = error <= TOLERANCE;
        String detail = String.format(Locale.ROOT, " Benchmark completed%n Zeta is    %20.13e%n Error is   %20.13e (tolerance %.0e)%n",
                zeta, error, TOLERANCE);
        return new KernelResult("CG", cls, Integer.toString(n), problem.iterations(), ranks, seconds,
                problem.operations() / seconds / 1e6, "floating point", verified, detail);
    }
}
