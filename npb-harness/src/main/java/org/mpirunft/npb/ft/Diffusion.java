package org.mpirunft.npb.ft;

import mpi.MPIException;
import org.mpirunft.npb.Randlc;

/**
 * FT's problem (NAS RNR-94-007): the diffusion equation du/dt = alpha laplace(u) on a periodic
 * nx x ny x nz grid, solved spectrally. The initial field U0 is complex, real and imaginary
 * parts being successive numbers of the NPB generator (seed 314159265, a = 5^13) in
 * x-fastest, then y, then z order. With V = FFT(U0), the field at time t is
 * X_t = IFFT(exp(-4 alpha pi^2 |k|^2 t) V), where each component of k is its index or, in the
 * upper half, the index minus the dimension. Each t is checked by the sum of X_t at the 1024
 * points (j mod nx, 3j mod ny, 5j mod nz), j = 1..1024, divided by the number of points.
 *
 * <p>The spectrum V (y-slabs) is computed once and kept; each time step evolves it afresh from
 * V into the field (z-slabs), so V and the checksums so far are all the state there is. The
 * exponential factors by dimension, so three short tables per step replace a 3D one.
 */
final class Diffusion {
    static final long SEED = 314159265L;
    static final double ALPHA = 1e-6;
    static final int SAMPLES = 1024;

    private final int nx;
    private final int ny;
    private final int nz;
    private final SlabFft fft;
    private final double[] spectrum;
    private final double[] field;
    private final double[] checksums;
    private final double[] ex;
    private final double[] ey;
    private final double[] ez;

    /**
     * {@code spectrum} and {@code field} hold a slab each, {@code checksums} two doubles per
     * time step; the caller owns (and checkpoints) them.
     */
    Diffusion(int nx, int ny, int nz, int ranks, int rank, double[] spectrum, double[] field, double[] checksums) {
        this.nx = nx;
        this.ny = ny;
        this.nz = nz;
        this.fft = new SlabFft(nx, ny, nz, ranks, rank);
        this.spectrum = spectrum;
        this.field = field;
        this.checksums = checksums;
        this.ex = new double[nx];
        this.ey = new double[ny];
        this.ez = new double[nz];
    }

    /** V = FFT(U0). */
    void start(FtComm comm) throws MPIException {
        initialField();
        fft.forward(field, spectrum, comm);
    }

    /** Evolves V to time {@code t} (from 1) into the field and records its checksum. */
    void step(FtComm comm, int t) throws MPIException {
        double rate = -4.0 * ALPHA * Math.PI * Math.PI * t;
        decay(ex, rate);
        decay(ey, rate);
        decay(ez, rate);
        fft.inverse(spectrum, ex, ey, ez, field, comm);
        double[] sum = checksum();
        comm.sum(sum);
        double points = (double) nx * ny * nz;
        checksums[2 * (t - 1)] = sum[0] / points;
        checksums[2 * (t - 1) + 1] = sum[1] / points;
    }

    /** This rank's planes of U0: plane z starts 2 nx ny z numbers into the sequence. */
    private void initialField() {
        int planeDoubles = 2 * nx * ny;
        Randlc generator = new Randlc(SEED, Randlc.A);
        for (int plane = 0; plane < fft.planes(); plane++) {
            long z = fft.firstPlane() + plane;
            generator.seed(Randlc.skip(SEED, Randlc.A, (long) planeDoubles * z));
            generator.fill(field, plane * planeDoubles, planeDoubles);
        }
    }

    /** table[i] = exp(rate kbar(i)^2), kbar(i) = i below n / 2, i - n from there. */
    private static void decay(double[] table, double rate) {
        int n = table.length;
        for (int i = 0; i < n; i++) {
            int k = i < n / 2 ? i : i - n;
            table[i] = Math.exp(rate * k * k);
        }
    }

    /** This rank's part of the sample sum, {re, im}. */
    private double[] checksum() {
        double re = 0;
        double im = 0;
        int first = fft.firstPlane();
        for (int j = 1; j <= SAMPLES; j++) {
            int x = j % nx;
            int y = 3 * j % ny;
            int z = 5 * j % nz;
            if (z >= first && z < first + fft.planes()) {
                int at = (((z - first) * ny + y) * nx + x) * 2;
                re += field[at];
                im += field[at + 1];
            }
        }
        return new double[] {re, im};
    }
}
