package org.mpirunft.npb.lu;

/**
 * LU's manufactured solution: each of the 5 quantities is a quartic polynomial in each
 * coordinate (xi, eta, zeta in [0, 1]). It gives the boundary values, the initial field
 * (blended from the boundary faces) and, through the residual operator, the forcing term
 * that makes it the steady state; the final error norms measure the distance to it.
 */
final class ExactSolution {
    /** Per quantity: constant, linear (xi, eta, zeta), quadratic, cubic, quartic terms. */
    private static final double[][] COEFFICIENTS = {
        {2.0, 0.0, 0.0, 4.0, 5.0, 3.0, 5.0e-01, 2.0e-02, 1.0e-02, 3.0e-02, 5.0e-01, 4.0e-01, 3.0e-01},
        {1.0, 0.0, 0.0, 0.0, 1.0, 2.0, 3.0, 1.0e-02, 3.0e-02, 2.0e-02, 4.0e-01, 3.0e-01, 5.0e-01},
        {2.0, 2.0, 0.0, 0.0, 0.0, 2.0, 3.0, 4.0e-02, 3.0e-02, 5.0e-02, 3.0e-01, 5.0e-01, 4.0e-01},
        {2.0, 2.0, 0.0, 0.0, 0.0, 2.0, 3.0, 3.0e-02, 5.0e-02, 4.0e-02, 2.0e-01, 1.0e-01, 3.0e-01},
        {5.0, 4.0, 3.0, 2.0, 1.0e-01, 4.0e-01, 3.0e-01, 5.0e-02, 4.0e-02, 3.0e-02, 1.0e-01, 3.0e-01, 2.0e-01},
    };

    private final Slab slab;

    ExactSolution(Slab slab) {
        this.slab = slab;
    }

    /** The solution at grid point (i, j, k) into {@code out[offset..offset+4]}. */
    void at(int i, int j, int k, double[] out, int offset) {
        double xi = (double) i / (slab.nx - 1);
        double eta = (double) j / (slab.ny - 1);
        double zeta = (double) k / (slab.nz - 1);
        for (int m = 0; m < 5; m++) {
            double[] c = COEFFICIENTS[m];
            out[offset + m] = c[0]
                    + c[1] * xi
                    + c[2] * eta
                    + c[3] * zeta
                    + c[4] * xi * xi
                    + c[5] * eta * eta
                    + c[6] * zeta * zeta
                    + c[7] * xi * xi * xi
                    + c[8] * eta * eta * eta
                    + c[9] * zeta * zeta * zeta
                    + c[10] * xi * xi * xi * xi
                    + c[11] * eta * eta * eta * eta
                    + c[12] * zeta * zeta * zeta * zeta;
        }
    }

    /**
     * The starting field on the owned rows: the exact solution on the boundary faces, and
     * inside the transfinite (trilinear) blend of the six faces' values.
     */
    void initialField(double[] u) {
        int nx = slab.nx;
        int ny = slab.ny;
        int nz = slab.nz;
        for (int j = slab.firstRow; j <= slab.lastRow; j++) {
            for (int i = 0; i < nx; i++) {
                at(i, j, 0, u, slab.at(i, j, 0));
                at(i, j, nz - 1, u, slab.at(i, j, nz - 1));
            }
        }
        for (int j : new int[] {0, ny - 1}) {
            if (slab.owns(j)) {
                for (int k = 0; k < nz; k++) {
                    for (int i = 0; i < nx; i++) {
                        at(i, j, k, u, slab.at(i, j, k));
                    }
                }
            }
        }
        for (int k = 0; k < nz; k++) {
            for (int j = slab.firstRow; j <= slab.lastRow; j++) {
                at(0, j, k, u, slab.at(0, j, k));
                at(nx - 1, j, k, u, slab.at(nx - 1, j, k));
            }
        }

        double[] west = new double[5];
        double[] east = new double[5];
        double[] south = new double[5];
        double[] north = new double[5];
        double[] bottom = new double[5];
        double[] top = new double[5];
        for (int k = 1; k < nz - 1; k++) {
            double zeta = (double) k / (nz - 1);
            for (int j = slab.firstInterior; j <= slab.lastInterior; j++) {
                double eta = (double) j / (ny - 1);
                for (int i = 1; i < nx - 1; i++) {
                    double xi = (double) i / (nx - 1);
                    at(0, j, k, west, 0);
                    at(nx - 1, j, k, east, 0);
                    at(i, 0, k, south, 0);
                    at(i, ny - 1, k, north, 0);
                    at(i, j, 0, bottom, 0);
                    at(i, j, nz - 1, top, 0);
                    int p = slab.at(i, j, k);
                    for (int m = 0; m < 5; m++) {
                        double pxi = (1.0 - xi) * west[m] + xi * east[m];
                        double peta = (1.0 - eta) * south[m] + eta * north[m];
                        double pzeta = (1.0 - zeta) * bottom[m] + zeta * top[m];
                        u[p + m] = pxi + peta + pzeta - pxi * peta - peta * pzeta - pzeta * pxi + pxi * peta * pzeta;
                    }
                }
            }
        }
    }

    /**
     * The forcing term: the residual operator applied to the exact solution (on every row this
     * rank holds, so no communication), into {@code frct}; {@code scratch} is overwritten.
     */
    void forcing(RightHandSide operator, double[] scratch, double[] frct) {
        for (int k = 0; k < slab.nz; k++) {
            for (int j = slab.firstHeld(); j <= slab.lastHeld(); j++) {
                for (int i = 0; i < slab.nx; i++) {
                    at(i, j, k, scratch, slab.at(i, j, k));
                }
            }
        }
        operator.apply(scratch, null, frct, true);
    }

    /** Sums of squared differences between {@code u} and the solution over the owned interior points, per quantity. */
    void errorSquares(double[] u, double[] sums, int offset) {
        double[] exact = new double[5];
        for (int k = 1; k < slab.nz - 1; k++) {
            for (int j = slab.firstInterior; j <= slab.lastInterior; j++) {
                for (int i = 1; i < slab.nx - 1; i++) {
                    at(i, j, k, exact, 0);
                    int p = slab.at(i, j, k);
                    for (int m = 0; m < 5; m++) {
                        double difference = exact[m] - u[p + m];
                        sums[offset + m] += difference * difference;
                    }
                }
            }
        }
    }
}
