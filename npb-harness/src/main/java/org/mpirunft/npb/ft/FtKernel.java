package org.mpirunft.npb.ft;

import java.util.Locale;
import mpi.MPIException;
import org.mpirunft.bridge.FtRank;
import org.mpirunft.npb.Kernel;
import org.mpirunft.npb.KernelResult;
import org.mpirunft.npb.NpbClass;
import org.mpirunft.npb.Progress;

/**
 * FT, the 3D FFT kernel (NAS RNR-94-007, NPB 3.x sizes and checksums): see {@link Diffusion}.
 *
 * <p>Ranks (a power of two dividing ny and nz) hold z-slabs of the field and y-slabs of the
 * spectrum, see {@link SlabFft}. State: the spectrum and the checksums. FtRank iteration
 * {@code it} is time step {@code it + 1}; iteration 0 first computes the spectrum (a forward
 * FFT, which communicates), so a rollback to the start recomputes it. The time covers
 * everything from the initial field on.
 */
public final class FtKernel implements Kernel {
    /** One class: the grid and the number of time steps. */
    record Problem(int nx, int ny, int nz, int iterations) {
        double points() {
            return (double) nx * ny * nz;
        }
    }

    static Problem problem(NpbClass cls) {
        return switch (cls) {
            case S -> new Problem(64, 64, 64, 6);
            case W -> new Problem(128, 128, 32, 6);
            case A -> new Problem(256, 256, 128, 6);
            case B -> new Problem(512, 256, 256, 20);
            case C -> new Problem(512, 512, 512, 20);
        };
    }

    @Override
    public String name() {
        return "FT";
    }

    @Override
    public long iterations(NpbClass cls, int ranks) {
        return problem(cls).iterations();
    }

    @Override
    public String unsupported(NpbClass cls, int ranks) {
        Problem problem = problem(cls);
        if (Integer.bitCount(ranks) != 1) {
            return "FT needs a power-of-two number of ranks";
        }
        int most = Math.min(problem.ny(), problem.nz());
        if (ranks > most) {
            return "FT class " + cls + " runs on at most " + most + " ranks";
        }
        long doubles = SlabFft.slabDoubles(problem.nx(), problem.ny(), problem.nz(), ranks);
        return doubles > Integer.MAX_VALUE - 8 ? "FT class " + cls + " needs more ranks: a slab would not fit one array" : null;
    }

    @Override
    public KernelResult run(FtRank ft, NpbClass cls) throws MPIException {
        Problem problem = problem(cls);
        int ranks = ft.world().getSize();
        int slab = (int) SlabFft.slabDoubles(problem.nx(), problem.ny(), problem.nz(), ranks);
        double[] spectrum = new double[slab];
        double[] field = new double[slab];
        double[] checksums = new double[2 * problem.iterations()];
        ft.state().register("ft.spectrum", spectrum).register("ft.checksums", checksums);
        Diffusion diffusion = new Diffusion(problem.nx(), problem.ny(), problem.nz(), ranks, ft.rank(), spectrum, field,
                checksums);

        long start = System.nanoTime();
        ft.run(0, problem.iterations(), (world, it) -> {
            FtComm comm = new MpiFtComm(world);
            if (it == 0) {
                diffusion.start(comm);
            }
            diffusion.step(comm, (int) it + 1);
            Progress.iterationDone(world, it, problem.iterations());
        });
        double seconds = (System.nanoTime() - start) / 1e9;
        return result(cls, problem, ranks, seconds, checksums);
    }

    static KernelResult result(NpbClass cls, Problem problem, int ranks, double seconds, double[] checksums) {
        double[] reference = FtReference.checksums(cls);
        boolean verified = true;
        double worst = 0;
        StringBuilder detail = new StringBuilder();
        for (int t = 0; t < problem.iterations(); t++) {
            double error = FtReference.error(reference, t, checksums[2 * t], checksums[2 * t + 1]);
            verified &= error <= FtReference.TOLERANCE;
            worst = Math.max(worst, Double.isNaN(error) ? Double.POSITIVE_INFINITY : error);
            detail.append(String.format(Locale.ROOT, " T = %4d     Checksum = %22.12e %22.12e   error %.1e%n", t + 1,
                    checksums[2 * t], checksums[2 * t + 1], error));
        }
        detail.append(String.format(Locale.ROOT, " Largest relative error %.3e (tolerance %.0e)%n", worst, FtReference.TOLERANCE));
        double n = problem.points();
        double operations = n * (14.8157 + 7.19641 * Math.log(n) + (5.23518 + 7.21113 * Math.log(n)) * problem.iterations());
        String size = problem.nx() + "x" + problem.ny() + "x" + problem.nz();
        return new KernelResult("FT", cls, size, problem.iterations(), ranks, seconds, operations / seconds / 1e6,
                "floating point", verified, detail.toString());
    }
}
