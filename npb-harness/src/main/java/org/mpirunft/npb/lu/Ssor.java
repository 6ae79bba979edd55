package org.mpirunft.npb.lu;

import mpi.MPIException;

/**
 * The SSOR pseudo-time iteration on one rank's slab. Each iteration computes the residual
 * rsd = R(u) from u alone (so that u is the whole state), scales it by dt, solves the block
 * lower triangular system (sweep up through the z planes) and the block upper triangular one
 * (sweep down), and adds the scaled correction to u.
 *
 * <p>The triangular solves are wavefronts: point (i, j, k) of the lower solve needs
 * (i-1, j, k), (i, j-1, k) and (i, j, k-1) solved first. Planes go in order on every rank; in
 * each plane a rank waits for the row below its slab from the rank below, solves its own rows,
 * and passes its top row on, so that rank r works on plane k while rank r+1 works on plane
 * k-1 (a pipeline). The upper solve runs the same pipeline downwards. The blocks of the
 * implicit operator are computed point by point, just before the point is solved.
 */
final class Ssor {
    static final int TAG_LOWER = 53;
    static final int TAG_UPPER = 54;

    private final Slab slab;
    private final double dt;
    private final double omega;
    private final double[] u;
    private final double[] rsd;
    private final double[] frct;
    private final RightHandSide rhs;
    private final Jacobians jacobians;
    private final Halo halo;

    // Scratch: the diagonal block, the three neighbour blocks, a point's right-hand side,
    // and the row passed to or from a neighbour rank.
    private final double[] diagonal = new double[25];
    private final double[] xBlock = new double[25];
    private final double[] yBlock = new double[25];
    private final double[] zBlock = new double[25];
    private final double[] vector = new double[5];
    private final double[] row;

    Ssor(Slab slab, double dt, double omega, double[] u) {
        this.slab = slab;
        this.dt = dt;
        this.omega = omega;
        this.u = u;
        this.rsd = new double[slab.size()];
        this.frct = new double[slab.size()];
        this.rhs = new RightHandSide(slab);
        this.jacobians = new Jacobians(slab, dt);
        this.halo = new Halo(slab);
        this.row = new double[slab.rowStride];
    }

    /** The initial field and the forcing term: local, so a replacement rank rebuilds them alike. */
    void start() {
        ExactSolution exact = new ExactSolution(slab);
        exact.initialField(u);
        exact.forcing(rhs, rsd, frct);
    }

    /** One SSOR iteration. */
    void iterate(LuComm comm) throws MPIException {
        residual(comm);
        for (int k = 1; k < slab.nz - 1; k++) {
            for (int j = slab.firstInterior; j <= slab.lastInterior; j++) {
                int p0 = slab.at(1, j, k);
                int p1 = slab.at(slab.nx - 1, j, k);
                for (int p = p0; p < p1; p++) {
                    rsd[p] = dt * rsd[p];
                }
            }
        }
        lowerSweep(comm);
        upperSweep(comm);
        double tmp = 1.0 / (omega * (2.0 - omega));
        for (int k = 1; k < slab.nz - 1; k++) {
            for (int j = slab.firstInterior; j <= slab.lastInterior; j++) {
                int p0 = slab.at(1, j, k);
                int p1 = slab.at(slab.nx - 1, j, k);
                for (int p = p0; p < p1; p++) {
                    u[p] = u[p] + tmp * rsd[p];
                }
            }
        }
    }

    /** rsd = R(u), with u's ghost rows brought up to date first. */
    void residual(LuComm comm) throws MPIException {
        halo.exchange(comm, u);
        rhs.apply(u, frct, rsd, false);
    }

    double[] residualField() {
        return rsd;
    }

    private void lowerSweep(LuComm comm) throws MPIException {
        int nx = slab.nx;
        int count = slab.rowStride;
        boolean below = comm.rank() > 0;
        boolean above = comm.rank() < comm.size() - 1;
        for (int k = 1; k < slab.nz - 1; k++) {
            if (below) {
                comm.receiveRow(row, count, comm.rank() - 1, TAG_LOWER);
                System.arraycopy(row, 0, rsd, slab.at(0, slab.firstRow - 1, k), count);
            }
            for (int j = slab.firstInterior; j <= slab.lastInterior; j++) {
                for (int i = 1; i < nx - 1; i++) {
                    lowerPoint(slab.at(i, j, k));
                }
            }
            if (above) {
                System.arraycopy(rsd, slab.at(0, slab.lastRow, k), row, 0, count);
                comm.sendRow(row, count, comm.rank() + 1, TAG_LOWER);
            }
        }
    }

    private void upperSweep(LuComm comm) throws MPIException {
        int nx = slab.nx;
        int count = slab.rowStride;
        boolean below = comm.rank() > 0;
        boolean above = comm.rank() < comm.size() - 1;
        for (int k = slab.nz - 2; k >= 1; k--) {
            if (above) {
                comm.receiveRow(row, count, comm.rank() + 1, TAG_UPPER);
                System.arraycopy(row, 0, rsd, slab.at(0, slab.lastRow + 1, k), count);
            }
            for (int j = slab.lastInterior; j >= slab.firstInterior; j--) {
                for (int i = nx - 2; i >= 1; i--) {
                    upperPoint(slab.at(i, j, k));
                }
            }
            if (below) {
                System.arraycopy(rsd, slab.at(0, slab.firstRow, k), row, 0, count);
                comm.sendRow(row, count, comm.rank() - 1, TAG_UPPER);
            }
        }
    }

    /** Solves point p of the lower system in place in rsd, its lower neighbours already solved. */
    private void lowerPoint(int p) {
        int pk = p - slab.planeStride;
        int pj = p - slab.rowStride;
        int pi = p - 5;
        jacobians.diagonal(u, p, diagonal);
        jacobians.zNeighbour(u, pk, -1.0, zBlock);
        jacobians.yNeighbour(u, pj, -1.0, yBlock);
        jacobians.xNeighbour(u, pi, -1.0, xBlock);
        double[] v = rsd;
        double[] a = zBlock;
        for (int m = 0; m < 5; m++) {
            int r = m * 5;
            v[p + m] = v[p + m] - omega * (a[r] * v[pk] + a[r + 1] * v[pk + 1] + a[r + 2] * v[pk + 2] + a[r + 3] * v[pk + 3]
                    + a[r + 4] * v[pk + 4]);
        }
        double[] b = yBlock;
        double[] c = xBlock;
        for (int m = 0; m < 5; m++) {
            int r = m * 5;
            v[p + m] = v[p + m] - omega * (b[r] * v[pj] + c[r] * v[pi]
                    + b[r + 1] * v[pj + 1] + c[r + 1] * v[pi + 1]
                    + b[r + 2] * v[pj + 2] + c[r + 2] * v[pi + 2]
                    + b[r + 3] * v[pj + 3] + c[r + 3] * v[pi + 3]
                    + b[r + 4] * v[pj + 4] + c[r + 4] * v[pi + 4]);
        }
        double[] x = vector;
        System.arraycopy(v, p, x, 0, 5);
        solve(diagonal, x);
        System.arraycopy(x, 0, v, p, 5);
    }

    /** Solves point p of the upper system in place in rsd, its upper neighbours already solved. */
    private void upperPoint(int p) {
        int pk = p + slab.planeStride;
        int pj = p + slab.rowStride;
        int pi = p + 5;
        jacobians.diagonal(u, p, diagonal);
        jacobians.xNeighbour(u, pi, 1.0, xBlock);
        jacobians.yNeighbour(u, pj, 1.0, yBlock);
        jacobians.zNeighbour(u, pk, 1.0, zBlock);
        double[] v = rsd;
        double[] x = vector;
        double[] c = zBlock;
        for (int m = 0; m < 5; m++) {
            int r = m * 5;
            x[m] = omega * (c[r] * v[pk] + c[r + 1] * v[pk + 1] + c[r + 2] * v[pk + 2] + c[r + 3] * v[pk + 3] + c[r + 4] * v[pk + 4]);
        }
        double[] b = yBlock;
        double[] a = xBlock;
        for (int m = 0; m < 5; m++) {
            int r = m * 5;
            x[m] = x[m] + omega * (b[r] * v[pj] + a[r] * v[pi]
                    + b[r + 1] * v[pj + 1] + a[r + 1] * v[pi + 1]
                    + b[r + 2] * v[pj + 2] + a[r + 2] * v[pi + 2]
                    + b[r + 3] * v[pj + 3] + a[r + 3] * v[pi + 3]
                    + b[r + 4] * v[pj + 4] + a[r + 4] * v[pi + 4]);
        }
        solve(diagonal, x);
        for (int m = 0; m < 5; m++) {
            v[p + m] = v[p + m] - x[m];
        }
    }

    /**
     * Solves {@code t x = x} in place by Gaussian elimination without pivoting (the diagonal
     * block is diagonally dominant); {@code t} is overwritten. NPB's operation order.
     */
    static void solve(double[] t, double[] x) {
        for (int c = 0; c < 4; c++) {
            double tmp1 = 1.0 / t[c * 5 + c];
            for (int r = c + 1; r < 5; r++) {
                double tmp = tmp1 * t[r * 5 + c];
                for (int n = c + 1; n < 5; n++) {
                    t[r * 5 + n] = t[r * 5 + n] - tmp * t[c * 5 + n];
                }
                x[r] = x[r] - x[c] * tmp;
            }
        }
        for (int r = 4; r >= 0; r--) {
            double sum = x[r];
            for (int n = r + 1; n < 5; n++) {
                sum = sum - t[r * 5 + n] * x[n];
            }
            x[r] = sum / t[r * 5 + r];
        }
    }
}
