package org.mpirunft.npb.lu;

import static org.mpirunft.npb.NavierStokes.C2;

import mpi.MPIException;

/**
 * What LU verifies, from the final field: the RMS norms of the steady-state residual and of
 * the error against the exact solution (5 each, over the interior points), and the integral
 * of the pressure over the surface of an inner box. Each rank sums over its rows; one sum over
 * the ranks completes them.
 */
final class Norms {
    /** Residual norms at [0, 5), error norms at [5, 10), the surface integral at 10. */
    static final int SIZE = 11;

    private Norms() {
    }

    /** Computes the norms of u; {@code ssor}'s residual field is overwritten. Collective. */
    static double[] of(Slab slab, Ssor ssor, double[] u, LuComm comm) throws MPIException {
        ssor.residual(comm);
        double[] sums = new double[13];
        double[] rsd = ssor.residualField();
        for (int k = 1; k < slab.nz - 1; k++) {
            for (int j = slab.firstInterior; j <= slab.lastInterior; j++) {
                for (int i = 1; i < slab.nx - 1; i++) {
                    int p = slab.at(i, j, k);
                    for (int m = 0; m < 5; m++) {
                        sums[m] += rsd[p + m] * rsd[p + m];
                    }
                }
            }
        }
        new ExactSolution(slab).errorSquares(u, sums, 5);
        surfaceSums(slab, u, sums, 10);
        comm.sum(sums);

        double[] norms = new double[SIZE];
        double points = (slab.nx - 2) * (slab.ny - 2) * (slab.nz - 2);
        for (int m = 0; m < 10; m++) {
            norms[m] = Math.sqrt(sums[m] / points);
        }
        double frc1 = slab.dxi * slab.deta * sums[10];
        double frc2 = slab.dxi * slab.dzeta * sums[11];
        double frc3 = slab.deta * slab.dzeta * sums[12];
        norms[10] = 0.25 * (frc1 + frc2 + frc3);
        return norms;
    }

    /**
     * This rank's parts of the surface integral's three pairs of faces (z, y, x), before
     * scaling by the cell areas. The box spans i in [1, nx-2], j in [1, ny-3], k in [2, nz-2];
     * each cell of a face adds its 4 corners' pressures of both opposite faces. Rows j + 1 of
     * the last cells may be ghost rows (current after the residual's halo exchange).
     */
    static void surfaceSums(Slab slab, double[] u, double[] sums, int offset) {
        int iLow = 1;
        int iHigh = slab.nx - 2;
        int jLow = 1;
        int jHigh = slab.ny - 3;
        int kLow = 2;
        int kHigh = slab.nz - 2;
        int jFirst = Math.max(jLow, slab.firstRow);
        int jLast = Math.min(jHigh - 1, slab.lastRow);

        double bottomTop = 0.0;
        for (int j = jFirst; j <= jLast; j++) {
            for (int i = iLow; i < iHigh; i++) {
                bottomTop = bottomTop + (pressure(slab, u, i, j, kLow) + pressure(slab, u, i + 1, j, kLow)
                        + pressure(slab, u, i, j + 1, kLow) + pressure(slab, u, i + 1, j + 1, kLow)
                        + pressure(slab, u, i, j, kHigh) + pressure(slab, u, i + 1, j, kHigh)
                        + pressure(slab, u, i, j + 1, kHigh) + pressure(slab, u, i + 1, j + 1, kHigh));
            }
        }

        double southNorth = 0.0;
        boolean south = slab.owns(jLow);
        boolean north = slab.owns(jHigh);
        if (south || north) {
            for (int k = kLow; k < kHigh; k++) {
                for (int i = iLow; i < iHigh; i++) {
                    double s = south ? pressure(slab, u, i, jLow, k) + pressure(slab, u, i + 1, jLow, k)
                            + pressure(slab, u, i, jLow, k + 1) + pressure(slab, u, i + 1, jLow, k + 1) : 0.0;
                    double n = north ? pressure(slab, u, i, jHigh, k) + pressure(slab, u, i + 1, jHigh, k)
                            + pressure(slab, u, i, jHigh, k + 1) + pressure(slab, u, i + 1, jHigh, k + 1) : 0.0;
                    southNorth = southNorth + (s + n);
                }
            }
        }

        double westEast = 0.0;
        for (int k = kLow; k < kHigh; k++) {
            for (int j = jFirst; j <= jLast; j++) {
                westEast = westEast + (pressure(slab, u, iLow, j, k) + pressure(slab, u, iLow, j + 1, k)
                        + pressure(slab, u, iLow, j, k + 1) + pressure(slab, u, iLow, j + 1, k + 1)
                        + pressure(slab, u, iHigh, j, k) + pressure(slab, u, iHigh, j + 1, k)
                        + pressure(slab, u, iHigh, j, k + 1) + pressure(slab, u, iHigh, j + 1, k + 1));
            }
        }
        sums[offset] += bottomTop;
        sums[offset + 1] += southNorth;
        sums[offset + 2] += westEast;
    }

    private static double pressure(Slab slab, double[] u, int i, int j, int k) {
        int p = slab.at(i, j, k);
        return C2 * (u[p + 4] - 0.50 * (u[p + 1] * u[p + 1] + u[p + 2] * u[p + 2] + u[p + 3] * u[p + 3]) / u[p]);
    }
}
