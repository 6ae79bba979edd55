package org.mpirunft.npb.ft;

import mpi.MPIException;

/**
 * The 3D FFT of an nx x ny x nz complex grid spread over the ranks, complex numbers
 * interleaved (re, im) in flat double arrays. Two layouts:
 *
 * <ul>
 *   <li><b>z-slabs</b>: rank p holds planes z in [p lz, (p + 1) lz), point (x, y, z) at
 *       complex index ((z - p lz) ny + y) nx + x. The x and y transforms are local here.</li>
 *   <li><b>y-slabs</b>: rank p holds rows y in [p ly, (p + 1) ly), point (x, y, z) at
 *       ((y - p ly) nz + z) nx + x. The z transform is local here.</li>
 * </ul>
 *
 * <p>The forward transform goes from z-slabs to y-slabs, the inverse back. Between them the
 * ranks transpose by all-to-all, in rounds over the local y range so that the message buffers
 * stay small (about {@link #ROUND_BYTES}) however large the grid. In a round every rank works
 * on the same {@code chunk} local rows, and the block from the z-owner p to the y-owner q
 * holds, for each of those rows and each of p's planes, a whole x-row: complex index
 * (row lz + plane) nx + x. The z transforms run straight from or into the round buffers, so
 * only the two slabs are ever held.
 *
 * <p>Transforms along a dimension gather {@link #BATCH} neighbouring columns into scratch
 * buffers ({@link Fft}'s layout), transform them together and scatter them back.
 */
final class SlabFft {
    static final int BATCH = 16;
    static final long ROUND_BYTES = 32L << 20;

    private final int nx;
    private final int ny;
    private final int nz;
    private final int rank;
    private final int lz;
    private final int ly;
    private final int chunk;
    private final int block;
    private final Fft fftX;
    private final Fft fftY;
    private final Fft fftZ;
    private final double[] scratch;
    private final double[] work;
    private final double[] send;
    private final double[] receive;

    SlabFft(int nx, int ny, int nz, int ranks, int rank) {
        if (ny % ranks != 0 || nz % ranks != 0 || nx % BATCH != 0 || ny % BATCH != 0) {
            throw new IllegalArgumentException("cannot split a " + nx + "x" + ny + "x" + nz + " grid over " + ranks + " ranks");
        }
        this.nx = nx;
        this.ny = ny;
        this.nz = nz;
        this.rank = rank;
        this.lz = nz / ranks;
        this.ly = ny / ranks;
        long bytesPerRow = 16L * nz * nx;
        int rows = 1;
        while (rows * 2 <= ly && ly % (rows * 2) == 0 && rows * 2 * bytesPerRow <= ROUND_BYTES) {
            rows *= 2;
        }
        this.chunk = rows;
        this.block = 2 * chunk * lz * nx;
        this.fftX = new Fft(nx);
        this.fftY = new Fft(ny);
        this.fftZ = new Fft(nz);
        int longest = Math.max(nx, Math.max(ny, nz));
        this.scratch = new double[2 * longest * BATCH];
        this.work = new double[2 * longest * BATCH];
        this.send = new double[block * ranks];
        this.receive = new double[block * ranks];
    }

    /** Doubles in one rank's slab (either layout). */
    static long slabDoubles(int nx, int ny, int nz, int ranks) {
        return 2L * nx * ny * (nz / ranks);
    }

    int firstPlane() {
        return rank * lz;
    }

    int planes() {
        return lz;
    }

    /** zSlab (destroyed) to its transform in ySlab. */
    void forward(double[] zSlab, double[] ySlab, FtComm comm) throws MPIException {
        rows(zSlab, false);
        columnsY(zSlab, false);
        int rowDoubles = 2 * nx;
        for (int first = 0; first < ly; first += chunk) {
            for (int q = 0; q < comm.size(); q++) {
                for (int row = 0; row < chunk; row++) {
                    int y = q * ly + first + row;
                    for (int plane = 0; plane < lz; plane++) {
                        System.arraycopy(zSlab, (plane * ny + y) * rowDoubles, send, q * block + (row * lz + plane) * rowDoubles,
                                rowDoubles);
                    }
                }
            }
            comm.allToAll(send, receive, block);
            for (int row = 0; row < chunk; row++) {
                int yl = first + row;
                for (int x0 = 0; x0 < nx; x0 += BATCH) {
                    for (int z = 0; z < nz; z++) {
                        int from = (z / lz) * block + ((row * lz + z % lz) * nx + x0) * 2;
                        System.arraycopy(receive, from, scratch, z * BATCH * 2, BATCH * 2);
                    }
                    double[] out = fftZ.transform(scratch, work, BATCH, false);
                    for (int z = 0; z < nz; z++) {
                        System.arraycopy(out, z * BATCH * 2, ySlab, ((yl * nz + z) * nx + x0) * 2, BATCH * 2);
                    }
                }
            }
        }
    }

    /**
     * The inverse transform of ySlab multiplied point by point by ex[x] ey[y] ez[z] (global
     * indices), into zSlab; ySlab is left as it was.
     */
    void inverse(double[] ySlab, double[] ex, double[] ey, double[] ez, double[] zSlab, FtComm comm) throws MPIException {
        int rowDoubles = 2 * nx;
        for (int first = 0; first < ly; first += chunk) {
            for (int row = 0; row < chunk; row++) {
                int yl = first + row;
                double fy = ey[rank * ly + yl];
                for (int x0 = 0; x0 < nx; x0 += BATCH) {
                    for (int z = 0; z < nz; z++) {
                        double fyz = fy * ez[z];
                        int from = ((yl * nz + z) * nx + x0) * 2;
                        int to = z * BATCH * 2;
                        for (int b = 0; b < BATCH; b++) {
                            double f = fyz * ex[x0 + b];
                            scratch[to + 2 * b] = ySlab[from + 2 * b] * f;
                            scratch[to + 2 * b + 1] = ySlab[from + 2 * b + 1] * f;
                        }
                    }
                    double[] out = fftZ.transform(scratch, work, BATCH, true);
                    for (int z = 0; z < nz; z++) {
                        int to = (z / lz) * block + ((row * lz + z % lz) * nx + x0) * 2;
                        System.arraycopy(out, z * BATCH * 2, send, to, BATCH * 2);
                    }
                }
            }
            comm.allToAll(send, receive, block);
            for (int q = 0; q < comm.size(); q++) {
                for (int row = 0; row < chunk; row++) {
                    int y = q * ly + first + row;
                    for (int plane = 0; plane < lz; plane++) {
                        System.arraycopy(receive, q * block + (row * lz + plane) * rowDoubles, zSlab, (plane * ny + y) * rowDoubles,
                                rowDoubles);
                    }
                }
            }
        }
        columnsY(zSlab, true);
        rows(zSlab, true);
    }

    /** Transforms every x-row of a z-slab, {@link #BATCH} rows at a time. */
    private void rows(double[] zSlab, boolean inverse) {
        int rows = lz * ny;
        for (int r0 = 0; r0 < rows; r0 += BATCH) {
            int base = r0 * nx * 2;
            for (int b = 0; b < BATCH; b++) {
                int from = base + b * nx * 2;
                for (int x = 0; x < nx; x++) {
                    scratch[(x * BATCH + b) * 2] = zSlab[from + 2 * x];
                    scratch[(x * BATCH + b) * 2 + 1] = zSlab[from + 2 * x + 1];
                }
            }
            double[] out = fftX.transform(scratch, work, BATCH, inverse);
            for (int b = 0; b < BATCH; b++) {
                int to = base + b * nx * 2;
                for (int x = 0; x < nx; x++) {
                    zSlab[to + 2 * x] = out[(x * BATCH + b) * 2];
                    zSlab[to + 2 * x + 1] = out[(x * BATCH + b) * 2 + 1];
                }
            }
        }
    }

    /** Transforms every y-column of a z-slab, {@link #BATCH} neighbouring columns at a time. */
    private void columnsY(double[] zSlab, boolean inverse) {
        for (int plane = 0; plane < lz; plane++) {
            for (int x0 = 0; x0 < nx; x0 += BATCH) {
                for (int y = 0; y < ny; y++) {
                    System.arraycopy(zSlab, ((plane * ny + y) * nx + x0) * 2, scratch, y * BATCH * 2, BATCH * 2);
                }
                double[] out = fftY.transform(scratch, work, BATCH, inverse);
                for (int y = 0; y < ny; y++) {
                    System.arraycopy(out, y * BATCH * 2, zSlab, ((plane * ny + y) * nx + x0) * 2, BATCH * 2);
                }
            }
        }
    }
}
