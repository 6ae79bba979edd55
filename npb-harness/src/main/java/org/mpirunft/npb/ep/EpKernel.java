package org.mpirunft.npb.ep;

import mpi.MPI;
import mpi.MPIException;
import org.mpirunft.bridge.FtRank;
import org.mpirunft.npb.Kernel;
import org.mpirunft.npb.KernelResult;
import org.mpirunft.npb.NpbClass;
import org.mpirunft.npb.Progress;
import org.mpirunft.npb.Randlc;

/**
 * EP, the embarrassingly parallel kernel (NAS RNR-94-007): 2^(M+1) uniform numbers in pairs,
 * Gaussian deviates by the Marsaglia polar method, their sums and a tally of deviates by
 * annulus. Work is split into batches of 2^16 pairs; batch k starts from the seed advanced by
 * 2^17 * k steps, so any rank can generate any batch on its own.
 *
 * <p>State: the running sums and tallies. Each FtRank iteration does a fixed share of this
 * rank's batches, so a rollback replays whole batches.
 */
public final class EpKernel implements Kernel {
    private static final int MK = 16;
    private static final int PAIRS_PER_BATCH = 1 << MK;
    private static final long SEED = 271828183L;
    private static final int TALLIES = 10;
    private static final int MAX_ITERATIONS = 64;
    /** Accumulator layout: sx, sy, then the tallies. */
    private static final int SX = 0;
    private static final int SY = 1;
    private static final int Q = 2;

    private static int m(NpbClass cls) {
        return switch (cls) {
            case S -> 24;
            case W -> 25;
            case A -> 28;
            case B -> 30;
            case C -> 32;
        };
    }

    private static double[] reference(NpbClass cls) {
        return switch (cls) {
            case S -> new double[] {-3.247834652034740e3, -6.958407078382297e3};
            case W -> new double[] {-2.863319731645753e3, -6.320053679109499e3};
            case A -> new double[] {-4.295875165629892e3, -1.580732573678431e4};
            case B -> new double[] {4.033815542441498e4, -2.660669192809235e4};
            case C -> new double[] {4.764367927995374e4, -8.084072988043731e4};
        };
    }

    @Override
    public String name() {
        return "EP";
    }

    @Override
    public long iterations(NpbClass cls, int ranks) {
        long batches = 1L << (m(cls) - MK);
        return Math.min(MAX_ITERATIONS, (batches + ranks - 1) / ranks);
    }

    @Override
    public String unsupported(NpbClass cls, int ranks) {
        long batches = 1L << (m(cls) - MK);
        return ranks > batches ? "EP class " + cls + " has only " + batches + " batches of work" : null;
    }

    @Override
    public KernelResult run(FtRank ft, NpbClass cls) throws MPIException {
        int ranks = ft.world().getSize();
        int rank = ft.rank();
        long batches = 1L << (m(cls) - MK);
        // Rank r owns batches r, r + ranks, r + 2 ranks, ...; every rank runs the same number
        // of iterations, the last ones possibly with fewer batches.
        long myBatches = (batches - rank + ranks - 1) / ranks;
        long maxBatches = (batches + ranks - 1) / ranks;
        long iterations = iterations(cls, ranks);
        long batchesPerIteration = (maxBatches + iterations - 1) / iterations;

        double[] sums = new double[Q + TALLIES];
        double[] pairs = new double[2 * PAIRS_PER_BATCH];
        ft.state().register("ep.sums", sums);

        long start = System.nanoTime();
        ft.run(0, iterations, (world, it) -> {
            long first = it * batchesPerIteration;
            long last = Math.min(myBatches, first + batchesPerIteration);
            for (long local = first; local < last; local++) {
                batch(rank + local * ranks, pairs, sums);
            }
            Progress.iterationDone(world, it, iterations);
        });
        double[] total = new double[Q + TALLIES];
        ft.world().allReduce(sums, total, Q + TALLIES, MPI.DOUBLE, MPI.SUM);
        double seconds = (System.nanoTime() - start) / 1e9;

        double[] expected = reference(cls);
        double errorX = Math.abs((total[SX] - expected[0]) / expected[0]);
        double errorY = Math.abs((total[SY] - expected[1]) / expected[1]);
        boolean verified = errorX <= 1e-8 && errorY <= 1e-8;
        long accepted = 0;
        StringBuilder detail = new StringBuilder();
        detail.append(String.format(" EP Benchmark Results:%n%n CPU Time = %10.4f%n N = 2^%5d%n", seconds, m(cls)));
        detail.append(String.format(" Sums = %25.15e %25.15e%n Counts:%n", total[SX], total[SY]));
        for (int l = 0; l < TALLIES; l++) {
            accepted += (long) total[Q + l];
            detail.append(String.format("%3d%15d%n", l, (long) total[Q + l]));
        }
        detail.append(String.format(" No. Gaussian Pairs = %15d%n", accepted));
        detail.append(String.format(" sx error %.3e, sy error %.3e (tolerance 1e-8)%n", errorX, errorY));
        long numbers = 1L << (m(cls) + 1);
        return new KernelResult("EP", cls, Long.toString(numbers), iterations, ranks, seconds, numbers / seconds / 1e6,
                "Random numbers generated", verified, detail.toString());
    }

    /** One batch: 2^17 uniforms as 2^16 pairs, accepted pairs become Gaussian deviates. */
    private static void batch(long index, double[] pairs, double[] sums) {
        Randlc generator = new Randlc(Randlc.skip(SEED, Randlc.A, 2L * PAIRS_PER_BATCH * index), Randlc.A);
        generator.fill(pairs, 0, pairs.length);
        double sx = 0;
        double sy = 0;
        for (int i = 0; i < PAIRS_PER_BATCH; i++) {
            double x = 2.0 * pairs[2 * i] - 1.0;
            double y = 2.0 * pairs[2 * i + 1] - 1.0;
            double t = x * x + y * y;
            if (t <= 1.0) {
                double f = Math.sqrt(-2.0 * Math.log(t) / t);
                double gx = x * f;
                double gy = y * f;
                int annulus = (int) Math.max(Math.abs(gx), Math.abs(gy));
                sums[Q + annulus] += 1;
                sx += gx;
                sy += gy;
            }
        }
        sums[SX] += sx;
        sums[SY] += sy;
    }
}
