package org.mpirunft.npb.sp;

import org.mpirunft.npb.ManufacturedSolution;
import org.mpirunft.npb.NavierStokes;

/**
 * SP's manufactured solution: a polynomial in (xi, eta, zeta) per component on the unit
 * cube. It gives the boundary values and the initial field (by transfinite interpolation of
 * the faces), the forcing term that makes it a steady solution of the discrete equations, and
 * the reference the solution error is measured against. All of it is local arithmetic, so a
 * replacement rank recomputes it without communication.
 */
final class ExactSolution {
    private ExactSolution() {
    }

    /** The five components at (xi, eta, zeta) into {@code out[offset..offset+4]}. */
    static void at(double xi, double eta, double zeta, double[] out, int offset) {
        ManufacturedSolution.at(xi, eta, zeta, out, offset);
    }

    /**
     * The initial u on the slab's own planes (ghosted layout): the faces' exact values
     * interpolated inside, the exact values on the faces. Where faces meet, the face written
     * last in the order west, east, south, north, bottom, top wins, as in the reference: the
     * coordinate across a face is exactly 0 or 1 there, which (n - 1) / (n - 1) need not be.
     */
    static void initialize(Slab slab, Constants c, double[] u) {
        int n = slab.n;
        int stride = slab.ghostedStride();
        double[] face = new double[30];
        double[] temp = new double[5];
        for (int k = slab.first; k < slab.end(); k++) {
            double zeta = (double) k * c.dnm1;
            for (int j = 0; j < n; j++) {
                double eta = (double) j * c.dnm1;
                for (int i = 0; i < n; i++) {
                    double xi = (double) i * c.dnm1;
                    int p = slab.ghosted(k) + j * n + i;
                    // face[(side * 3 + direction) * 5 + m]
                    for (int side = 0; side < 2; side++) {
                        at(side, eta, zeta, face, (side * 3) * 5);
                        at(xi, side, zeta, face, (side * 3 + 1) * 5);
                        at(xi, eta, side, face, (side * 3 + 2) * 5);
                    }
                    for (int m = 0; m < 5; m++) {
                        double pxi = xi * face[15 + m] + (1.0 - xi) * face[m];
                        double peta = eta * face[20 + m] + (1.0 - eta) * face[5 + m];
                        double pzeta = zeta * face[25 + m] + (1.0 - zeta) * face[10 + m];
                        u[m * stride + p] = pxi + peta + pzeta - pxi * peta - pxi * pzeta - peta * pzeta + pxi * peta * pzeta;
                    }
                    boolean onFace = false;
                    if (i == 0) {
                        at(0.0, eta, zeta, temp, 0);
                        onFace = true;
                    }
                    if (i == n - 1) {
                        at(1.0, eta, zeta, temp, 0);
                        onFace = true;
                    }
                    if (j == 0) {
                        at(xi, 0.0, zeta, temp, 0);
                        onFace = true;
                    }
                    if (j == n - 1) {
                        at(xi, 1.0, zeta, temp, 0);
                        onFace = true;
                    }
                    if (k == 0) {
                        at(xi, eta, 0.0, temp, 0);
                        onFace = true;
                    }
                    if (k == n - 1) {
                        at(xi, eta, 1.0, temp, 0);
                        onFace = true;
                    }
                    if (onFace) {
                        for (int m = 0; m < 5; m++) {
                            u[m * stride + p] = temp[m];
                        }
                    }
                }
            }
        }
    }

    /**
     * The forcing term on the slab's own planes (owned layout): minus the discrete operator
     * (fluxes, viscous terms and fourth-order dissipation, x then y then z) applied to the
     * exact solution, zero on the boundary. A z line needs the exact solution at every k, which
     * each rank evaluates itself.
     */
    static void forcing(Slab slab, Constants c, double[] forcing) {
        int n = slab.n;
        int plane = slab.plane;
        int stride = slab.ownedStride();
        java.util.Arrays.fill(forcing, 0.0);
        Line line = new Line(n);
        int kFrom = Math.max(1, slab.first);
        int kTo = Math.min(n - 2, slab.end() - 1);
        for (int k = kFrom; k <= kTo; k++) {
            double zeta = (double) k * c.dnm1;
            for (int j = 1; j <= n - 2; j++) {
                double eta = (double) j * c.dnm1;
                for (int i = 0; i < n; i++) {
                    at((double) i * c.dnm1, eta, zeta, line.ue, i * 5);
                }
                line.apply(1, c.t2, c.dxt1, c.xxcon, forcing, slab.owned(k) + j * n, 1, stride, 1, n - 2);
            }
        }
        for (int k = kFrom; k <= kTo; k++) {
            double zeta = (double) k * c.dnm1;
            for (int i = 1; i <= n - 2; i++) {
                double xi = (double) i * c.dnm1;
                for (int j = 0; j < n; j++) {
                    at(xi, (double) j * c.dnm1, zeta, line.ue, j * 5);
                }
                line.apply(2, c.t2, c.dyt1, c.yycon, forcing, slab.owned(k) + i, n, stride, 1, n - 2);
            }
        }
        if (kFrom <= kTo) {
            for (int j = 1; j <= n - 2; j++) {
                double eta = (double) j * c.dnm1;
                for (int i = 1; i <= n - 2; i++) {
                    double xi = (double) i * c.dnm1;
                    for (int k = 0; k < n; k++) {
                        at(xi, eta, (double) k * c.dnm1, line.ue, k * 5);
                    }
                    // Line point k is at owned(k) + j n + i; only the owned ones are written.
                    line.apply(3, c.t2, c.dzt1, c.zzcon, forcing, slab.owned(0) + j * n + i, plane, stride, kFrom, kTo);
                }
            }
        }
        for (int m = 0; m < 5; m++) {
            for (int k = kFrom; k <= kTo; k++) {
                for (int j = 1; j <= n - 2; j++) {
                    int p = m * stride + slab.owned(k) + j * n;
                    for (int i = 1; i <= n - 2; i++) {
                        forcing[p + i] = -1.0 * forcing[p + i];
                    }
                }
            }
        }
    }

    /** The exact solution along one grid line and the forcing contributions it makes. */
    private static final class Line {
        final int n;
        /** ue[i * 5 + m]: the exact solution at line point i. */
        final double[] ue;
        /** buf[i * 5 + m]: velocities (m = 1..3), energy per density (m = 4), twice the kinetic energy per density squared (m = 0). */
        final double[] buf;
        /** The squared velocity along the line. */
        final double[] cuf;
        /** The kinetic energy. */
        final double[] q;

        Line(int n) {
            this.n = n;
            ue = new double[5 * n];
            buf = new double[5 * n];
            cuf = new double[n];
            q = new double[n];
        }

        /**
         * Adds this line's flux differences and dissipation to {@code f} at line points
         * {@code from..to} (within 1..n-2): point i, component m is {@code f[base + i step + m stride]}.
         * {@code v} is the velocity component along the line (1 x, 2 y, 3 z).
         */
        void apply(int v, double t2, double dt1, double[] con, double[] f, int base, int step, int stride, int from, int to) {
            for (int i = 0; i < n; i++) {
                int e = i * 5;
                double dtpp = 1.0 / ue[e];
                for (int m = 1; m < 5; m++) {
                    buf[e + m] = dtpp * ue[e + m];
                }
                cuf[i] = buf[e + v] * buf[e + v];
                // The two velocities across the line, in component order.
                int a = v == 1 ? 2 : 1;
                int b = v == 3 ? 2 : 3;
                buf[e] = cuf[i] + buf[e + a] * buf[e + a] + buf[e + b] * buf[e + b];
                q[i] = 0.5 * (buf[e + 1] * ue[e + 1] + buf[e + 2] * ue[e + 2] + buf[e + 3] * ue[e + 3]);
            }
            for (int i = Math.max(1, from); i <= Math.min(n - 2, to); i++) {
                int im = (i - 1) * 5;
                int ic = i * 5;
                int ip = (i + 1) * 5;
                int p = base + i * step;
                f[p] = f[p] - t2 * (ue[ip + v] - ue[im + v]) + dt1 * (ue[ip] - 2.0 * ue[ic] + ue[im]);
                for (int m = 1; m <= 3; m++) {
                    int pm = p + m * stride;
                    if (m == v) {
                        f[pm] = f[pm] - t2 * ((ue[ip + m] * buf[ip + v] + NavierStokes.C2 * (ue[ip + 4] - q[i + 1]))
                                - (ue[im + m] * buf[im + v] + NavierStokes.C2 * (ue[im + 4] - q[i - 1])))
                                + con[1] * (buf[ip + m] - 2.0 * buf[ic + m] + buf[im + m])
                                + dt1 * (ue[ip + m] - 2.0 * ue[ic + m] + ue[im + m]);
                    } else {
                        f[pm] = f[pm] - t2 * (ue[ip + m] * buf[ip + v] - ue[im + m] * buf[im + v])
                                + con[2] * (buf[ip + m] - 2.0 * buf[ic + m] + buf[im + m])
                                + dt1 * (ue[ip + m] - 2.0 * ue[ic + m] + ue[im + m]);
                    }
                }
                int p4 = p + 4 * stride;
                f[p4] = f[p4] - t2 * (buf[ip + v] * (NavierStokes.C1 * ue[ip + 4] - NavierStokes.C2 * q[i + 1])
                        - buf[im + v] * (NavierStokes.C1 * ue[im + 4] - NavierStokes.C2 * q[i - 1]))
                        + 0.5 * con[3] * (buf[ip] - 2.0 * buf[ic] + buf[im])
                        + con[4] * (cuf[i + 1] - 2.0 * cuf[i] + cuf[i - 1])
                        + con[5] * (buf[ip + 4] - 2.0 * buf[ic + 4] + buf[im + 4])
                        + dt1 * (ue[ip + 4] - 2.0 * ue[ic + 4] + ue[im + 4]);
            }
            // Fourth-order dissipation, one-sided next to the boundary.
            double dssp = NavierStokes.DSSP;
            for (int i = Math.max(1, from); i <= Math.min(n - 2, to); i++) {
                for (int m = 0; m < 5; m++) {
                    int p = base + i * step + m * stride;
                    double d;
                    if (i == 1) {
                        d = 5.0 * u(i, m) - 4.0 * u(i + 1, m) + u(i + 2, m);
                    } else if (i == 2) {
                        d = -4.0 * u(i - 1, m) + 6.0 * u(i, m) - 4.0 * u(i + 1, m) + u(i + 2, m);
                    } else if (i == n - 3) {
                        d = u(i - 2, m) - 4.0 * u(i - 1, m) + 6.0 * u(i, m) - 4.0 * u(i + 1, m);
                    } else if (i == n - 2) {
                        d = u(i - 2, m) - 4.0 * u(i - 1, m) + 5.0 * u(i, m);
                    } else {
                        d = u(i - 2, m) - 4.0 * u(i - 1, m) + 6.0 * u(i, m) - 4.0 * u(i + 1, m) + u(i + 2, m);
                    }
                    f[p] = f[p] - dssp * d;
                }
            }
        }

        private double u(int i, int m) {
            return ue[i * 5 + m];
        }
    }

    /** Sum over the slab's own points of (u - exact)^2 per component (ghosted layout of u). */
    static double[] errorSums(Slab slab, Constants c, double[] u) {
        int n = slab.n;
        int stride = slab.ghostedStride();
        double[] sums = new double[5];
        double[] exact = new double[5];
        for (int k = slab.first; k < slab.end(); k++) {
            double zeta = (double) k * c.dnm1;
            for (int j = 0; j < n; j++) {
                double eta = (double) j * c.dnm1;
                for (int i = 0; i < n; i++) {
                    at((double) i * c.dnm1, eta, zeta, exact, 0);
                    int p = slab.ghosted(k) + j * n + i;
                    for (int m = 0; m < 5; m++) {
                        double add = u[m * stride + p] - exact[m];
                        sums[m] = sums[m] + add * add;
                    }
                }
            }
        }
        return sums;
    }
}
