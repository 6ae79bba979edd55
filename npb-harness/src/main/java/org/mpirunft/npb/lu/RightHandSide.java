package org.mpirunft.npb.lu;

import static org.mpirunft.npb.NavierStokes.C1;
import static org.mpirunft.npb.NavierStokes.C2;
import static org.mpirunft.npb.NavierStokes.C3;
import static org.mpirunft.npb.NavierStokes.C4;
import static org.mpirunft.npb.NavierStokes.C5;
import static org.mpirunft.npb.NavierStokes.CON16;
import static org.mpirunft.npb.NavierStokes.CON43;
import static org.mpirunft.npb.NavierStokes.DSSP;
import static org.mpirunft.npb.NavierStokes.DX;
import static org.mpirunft.npb.NavierStokes.DY;
import static org.mpirunft.npb.NavierStokes.DZ;

import java.util.Arrays;

/**
 * The steady-state residual operator: inviscid flux differences, viscous fluxes with
 * second-difference dissipation, and fourth-difference dissipation, in x, then y, then z, on
 * the owned interior points. Every point receives its terms in the same order as NPB's rhs
 * and erhs do, so the sums round alike. The y pass reads two ghost rows on each side of the
 * slab; the caller makes them current.
 */
final class RightHandSide {

    private final Slab slab;
    /** Fluxes of one x line, one z plane (y pass) or one y row (z pass). */
    private final double[] flux;

    RightHandSide(Slab slab) {
        this.slab = slab;
        this.flux = new double[Math.max(slab.rows, slab.nz) * slab.nx * 5];
    }

    /**
     * {@code out = -base + R(w)} on the owned interior points ({@code base} null: zero).
     * {@code forcing} selects the operand order of the z second difference NPB's forcing
     * routine uses ({@code w(k+1) - 2 w(k) + w(k-1)}, the residual routine the reverse).
     */
    void apply(double[] w, double[] base, double[] out, boolean forcing) {
        if (base == null) {
            Arrays.fill(out, 0.0);
        } else {
            for (int p = 0; p < out.length; p++) {
                out[p] = -base[p];
            }
        }
        xDirection(w, out);
        yDirection(w, out);
        zDirection(w, out, forcing);
    }

    private void xDirection(double[] w, double[] out) {
        int nx = slab.nx;
        double tx1 = slab.tx1;
        double tx2 = slab.tx2;
        double tx3 = slab.tx3;
        double[] f = flux;
        for (int k = 1; k < slab.nz - 1; k++) {
            for (int j = slab.firstInterior; j <= slab.lastInterior; j++) {
                int line = slab.at(0, j, k);
                for (int i = 0; i < nx; i++) {
                    int p = line + i * 5;
                    int q = i * 5;
                    double u1 = w[p];
                    double u2 = w[p + 1];
                    double u3 = w[p + 2];
                    double u4 = w[p + 3];
                    double u5 = w[p + 4];
                    f[q] = u2;
                    double u21 = u2 / u1;
                    double qs = 0.50 * (u2 * u2 + u3 * u3 + u4 * u4) / u1;
                    f[q + 1] = u2 * u21 + C2 * (u5 - qs);
                    f[q + 2] = u3 * u21;
                    f[q + 3] = u4 * u21;
                    f[q + 4] = (C1 * u5 - C2 * qs) * u21;
                }
                for (int i = 1; i < nx - 1; i++) {
                    int p = line + i * 5;
                    for (int m = 0; m < 5; m++) {
                        out[p + m] = out[p + m] - tx2 * (f[(i + 1) * 5 + m] - f[(i - 1) * 5 + m]);
                    }
                }
                for (int i = 1; i < nx; i++) {
                    int p = line + i * 5;
                    viscousFlux(w, p, p - 5, tx3, 1, f, i * 5);
                }
                for (int i = 1; i < nx - 1; i++) {
                    int p = line + i * 5;
                    secondDifferences(w, out, p, p - 5, p + 5, f, i * 5, (i + 1) * 5, DX * tx1, tx3);
                }
                for (int m = 0; m < 5; m++) {
                    fourthDifferences(w, out, line + m, 5, nx);
                }
            }
        }
    }

    private void yDirection(double[] w, double[] out) {
        int nx = slab.nx;
        double ty1 = slab.ty1;
        double ty2 = slab.ty2;
        double ty3 = slab.ty3;
        int row = slab.rowStride;
        double[] f = flux;
        int j0 = slab.firstInterior;
        int j1 = slab.lastInterior;
        for (int k = 1; k < slab.nz - 1; k++) {
            int plane = k * slab.planeStride;
            for (int j = j0 - 1; j <= j1 + 1; j++) {
                for (int i = 1; i < nx - 1; i++) {
                    int q = (slab.local(j) * nx + i) * 5;
                    int p = plane + q;
                    double u1 = w[p];
                    double u2 = w[p + 1];
                    double u3 = w[p + 2];
                    double u4 = w[p + 3];
                    double u5 = w[p + 4];
                    f[q] = u3;
                    double u31 = u3 / u1;
                    double qs = 0.50 * (u2 * u2 + u3 * u3 + u4 * u4) / u1;
                    f[q + 1] = u2 * u31;
                    f[q + 2] = u3 * u31 + C2 * (u5 - qs);
                    f[q + 3] = u4 * u31;
                    f[q + 4] = (C1 * u5 - C2 * qs) * u31;
                }
            }
            for (int j = j0; j <= j1; j++) {
                for (int i = 1; i < nx - 1; i++) {
                    int q = (slab.local(j) * nx + i) * 5;
                    int p = plane + q;
                    for (int m = 0; m < 5; m++) {
                        out[p + m] = out[p + m] - ty2 * (f[q + row + m] - f[q - row + m]);
                    }
                }
            }
            for (int j = j0; j <= j1 + 1; j++) {
                for (int i = 1; i < nx - 1; i++) {
                    int q = (slab.local(j) * nx + i) * 5;
                    int p = plane + q;
                    viscousFlux(w, p, p - row, ty3, 2, f, q);
                }
            }
            for (int j = j0; j <= j1; j++) {
                for (int i = 1; i < nx - 1; i++) {
                    int q = (slab.local(j) * nx + i) * 5;
                    int p = plane + q;
                    secondDifferences(w, out, p, p - row, p + row, f, q, q + row, DY * ty1, ty3);
                }
            }
            for (int j = j0; j <= j1; j++) {
                for (int i = 1; i < nx - 1; i++) {
                    int p = slab.at(i, j, k);
                    for (int m = 0; m < 5; m++) {
                        fourthDifference(w, out, p + m, row, j, slab.ny);
                    }
                }
            }
        }
    }

    private void zDirection(double[] w, double[] out, boolean forcing) {
        int nx = slab.nx;
        int nz = slab.nz;
        double tz1 = slab.tz1;
        double tz2 = slab.tz2;
        double tz3 = slab.tz3;
        int plane = slab.planeStride;
        int fplane = nx * 5;
        double[] f = flux;
        for (int j = slab.firstInterior; j <= slab.lastInterior; j++) {
            for (int k = 0; k < nz; k++) {
                for (int i = 1; i < nx - 1; i++) {
                    int p = slab.at(i, j, k);
                    int q = (k * nx + i) * 5;
                    double u1 = w[p];
                    double u2 = w[p + 1];
                    double u3 = w[p + 2];
                    double u4 = w[p + 3];
                    double u5 = w[p + 4];
                    f[q] = u4;
                    double u41 = u4 / u1;
                    double qs = 0.50 * (u2 * u2 + u3 * u3 + u4 * u4) / u1;
                    f[q + 1] = u2 * u41;
                    f[q + 2] = u3 * u41;
                    f[q + 3] = u4 * u41 + C2 * (u5 - qs);
                    f[q + 4] = (C1 * u5 - C2 * qs) * u41;
                }
            }
            for (int k = 1; k < nz - 1; k++) {
                for (int i = 1; i < nx - 1; i++) {
                    int p = slab.at(i, j, k);
                    int q = (k * nx + i) * 5;
                    for (int m = 0; m < 5; m++) {
                        out[p + m] = out[p + m] - tz2 * (f[q + fplane + m] - f[q - fplane + m]);
                    }
                }
            }
            for (int k = 1; k < nz; k++) {
                for (int i = 1; i < nx - 1; i++) {
                    int p = slab.at(i, j, k);
                    viscousFlux(w, p, p - plane, tz3, 3, f, (k * nx + i) * 5);
                }
            }
            for (int k = 1; k < nz - 1; k++) {
                for (int i = 1; i < nx - 1; i++) {
                    int p = slab.at(i, j, k);
                    int q = (k * nx + i) * 5;
                    if (forcing) {
                        // The forcing routine's operand order: upper neighbour first.
                        secondDifferences(w, out, p, p + plane, p - plane, f, q, q + fplane, DZ * tz1, tz3);
                    } else {
                        secondDifferences(w, out, p, p - plane, p + plane, f, q, q + fplane, DZ * tz1, tz3);
                    }
                }
            }
            for (int k = 1; k < nz - 1; k++) {
                for (int i = 1; i < nx - 1; i++) {
                    int p = slab.at(i, j, k);
                    for (int m = 0; m < 5; m++) {
                        fourthDifference(w, out, p + m, plane, k, nz);
                    }
                }
            }
        }
    }

    /**
     * The viscous flux between point {@code p} and its lower neighbour {@code pm} along the
     * direction whose velocity is component {@code normal} (1 x, 2 y, 3 z), into f[q+1..q+4].
     */
    private static void viscousFlux(double[] w, int p, int pm, double t3, int normal, double[] f, int q) {
        double tmp = 1.0 / w[p];
        double u21 = tmp * w[p + 1];
        double u31 = tmp * w[p + 2];
        double u41 = tmp * w[p + 3];
        double u51 = tmp * w[p + 4];
        tmp = 1.0 / w[pm];
        double u21m = tmp * w[pm + 1];
        double u31m = tmp * w[pm + 2];
        double u41m = tmp * w[pm + 3];
        double u51m = tmp * w[pm + 4];
        f[q + 1] = normal == 1 ? CON43 * t3 * (u21 - u21m) : t3 * (u21 - u21m);
        f[q + 2] = normal == 2 ? CON43 * t3 * (u31 - u31m) : t3 * (u31 - u31m);
        f[q + 3] = normal == 3 ? CON43 * t3 * (u41 - u41m) : t3 * (u41 - u41m);
        double un = normal == 1 ? u21 : normal == 2 ? u31 : u41;
        double unm = normal == 1 ? u21m : normal == 2 ? u31m : u41m;
        f[q + 4] = 0.50 * (1.0 - C1 * C5) * t3 * ((u21 * u21 + u31 * u31 + u41 * u41) - (u21m * u21m + u31m * u31m + u41m * u41m))
                + CON16 * t3 * (un * un - unm * unm)
                + C1 * C5 * t3 * (u51 - u51m);
    }

    /**
     * Viscous flux differences plus second-difference dissipation at point p:
     * {@code (first - 2 w(p)) + second} with first and second the two neighbours in the
     * caller's order; the flux at p and at its upper neighbour are f[q], f[qu].
     */
    private static void secondDifferences(double[] w, double[] out, int p, int first, int second, double[] f, int q, int qu,
                                          double d1t1, double t3) {
        out[p] = out[p] + d1t1 * (w[first] - 2.0 * w[p] + w[second]);
        for (int m = 1; m < 5; m++) {
            out[p + m] = out[p + m] + t3 * C3 * C4 * (f[qu + m] - f[q + m]) + d1t1 * (w[first + m] - 2.0 * w[p + m] + w[second + m]);
        }
    }

    /** The fourth-difference dissipation of one quantity along an x line starting at {@code start}. */
    private static void fourthDifferences(double[] w, double[] out, int start, int stride, int n) {
        for (int i = 1; i < n - 1; i++) {
            fourthDifference(w, out, start + i * stride, stride, i, n);
        }
    }

    /**
     * The fourth-difference dissipation at point {@code p} (one quantity), the {@code at}-th of
     * {@code n} along a direction with stride {@code s}: one-sided next to the boundary.
     */
    private static void fourthDifference(double[] w, double[] out, int p, int s, int at, int n) {
        double d;
        if (at == 1) {
            d = +5.0 * w[p] - 4.0 * w[p + s] + w[p + 2 * s];
        } else if (at == 2) {
            d = -4.0 * w[p - s] + 6.0 * w[p] - 4.0 * w[p + s] + w[p + 2 * s];
        } else if (at == n - 3) {
            d = w[p - 2 * s] - 4.0 * w[p - s] + 6.0 * w[p] - 4.0 * w[p + s];
        } else if (at == n - 2) {
            d = w[p - 2 * s] - 4.0 * w[p - s] + 5.0 * w[p];
        } else {
            d = w[p - 2 * s] - 4.0 * w[p - s] + 6.0 * w[p] - 4.0 * w[p + s] + w[p + 2 * s];
        }
        out[p] = out[p] - DSSP * d;
    }
}
