package org.mpirunft.npb.bt;

import static org.mpirunft.npb.NavierStokes.C1;
import static org.mpirunft.npb.NavierStokes.C2;
import static org.mpirunft.npb.NavierStokes.DSSP;

import org.mpirunft.npb.ManufacturedSolution;

/**
 * BT's manufactured solution: each of the five components is a polynomial of degree four in
 * each coordinate (NPB's coefficient table ce). It gives the boundary values, the initial field
 * (interpolated inward from the six faces), the forcing term that makes it a steady solution
 * of the discrete equations, and the error the verification measures.
 */
final class ExactSolution {
    private ExactSolution() {
    }

    /** The five components at (xi, eta, zeta) into {@code out[offset..offset+4]}. */
    static void at(double xi, double eta, double zeta, double[] out, int offset) {
        ManufacturedSolution.at(xi, eta, zeta, out, offset);
    }

    /**
     * The initial field on this rank's planes: transfinite (tri-linear) interpolation of the
     * face values everywhere, then the exact values on the faces, set face by face in NPB's
     * order so that edges take the last face's value as NPB's do. Ghost planes are set to 1
     * so that nothing divides by zero before the first exchange.
     */
    static void initialize(Slab slab, Coefficients co, double[] u) {
        java.util.Arrays.fill(u, 1.0);
        int n = slab.n;
        double[] face = new double[30];
        for (int k = slab.k0; k < slab.k1; k++) {
            double zeta = k * co.dnzm1;
            for (int j = 0; j < n; j++) {
                double eta = j * co.dnym1;
                for (int i = 0; i < n; i++) {
                    double xi = i * co.dnxm1;
                    at(0.0, eta, zeta, face, 0);
                    at(1.0, eta, zeta, face, 5);
                    at(xi, 0.0, zeta, face, 10);
                    at(xi, 1.0, zeta, face, 15);
                    at(xi, eta, 0.0, face, 20);
                    at(xi, eta, 1.0, face, 25);
                    int p = slab.u(i, j, k);
                    for (int m = 0; m < 5; m++) {
                        double pxi = xi * face[5 + m] + (1.0 - xi) * face[m];
                        double peta = eta * face[15 + m] + (1.0 - eta) * face[10 + m];
                        double pzeta = zeta * face[25 + m] + (1.0 - zeta) * face[20 + m];
                        u[p + m] = pxi + peta + pzeta - pxi * peta - pxi * pzeta - peta * pzeta + pxi * peta * pzeta;
                    }
                }
            }
        }
        // West and east (i = 0, n - 1), south and north (j), bottom and top (k), in this order.
        for (int k = slab.k0; k < slab.k1; k++) {
            double zeta = k * co.dnzm1;
            for (int j = 0; j < n; j++) {
                at(0.0, j * co.dnym1, zeta, u, slab.u(0, j, k));
            }
        }
        for (int k = slab.k0; k < slab.k1; k++) {
            double zeta = k * co.dnzm1;
            for (int j = 0; j < n; j++) {
                at(1.0, j * co.dnym1, zeta, u, slab.u(n - 1, j, k));
            }
        }
        for (int k = slab.k0; k < slab.k1; k++) {
            double zeta = k * co.dnzm1;
            for (int i = 0; i < n; i++) {
                at(i * co.dnxm1, 0.0, zeta, u, slab.u(i, 0, k));
            }
        }
        for (int k = slab.k0; k < slab.k1; k++) {
            double zeta = k * co.dnzm1;
            for (int i = 0; i < n; i++) {
                at(i * co.dnxm1, 1.0, zeta, u, slab.u(i, n - 1, k));
            }
        }
        if (slab.k0 == 0) {
            for (int j = 0; j < n; j++) {
                for (int i = 0; i < n; i++) {
                    at(i * co.dnxm1, j * co.dnym1, 0.0, u, slab.u(i, j, 0));
                }
            }
        }
        if (slab.k1 == n) {
            for (int j = 0; j < n; j++) {
                for (int i = 0; i < n; i++) {
                    at(i * co.dnxm1, j * co.dnym1, 1.0, u, slab.u(i, j, n - 1));
                }
            }
        }
    }

    /**
     * The forcing term on this rank's planes (zero on the boundary): minus the discrete
     * operator of the right-hand side applied to the exact solution, direction by direction
     * (flux differences, viscous terms, fourth-order dissipation), as NPB's exact_rhs.
     */
    static void forcing(Slab slab, Coefficients co, double[] forcing) {
        java.util.Arrays.fill(forcing, 0.0);
        int n = slab.n;
        Line line = new Line(n);
        for (int axis = 0; axis < 2; axis++) {
            Coefficients.Direction d = co.direction(axis);
            int stride = axis == 0 ? 5 : 5 * n;
            for (int k = slab.interiorLow(); k < slab.interiorHigh(); k++) {
                for (int a = 1; a < n - 1; a++) {
                    // x lines run over i at (j = a, k); y lines over j at (i = a, k).
                    int i = axis == 0 ? 0 : a;
                    int j = axis == 0 ? a : 0;
                    line.fill(co, axis, i, j, k);
                    int start = slab.own(i, j, k);
                    for (int q = 1; q < n - 1; q++) {
                        line.force(co, d, q, forcing, start + q * stride);
                    }
                }
            }
        }
        // z lines cross the slabs: each rank evaluates the whole line and keeps its planes.
        Coefficients.Direction dz = co.direction(2);
        for (int j = 1; j < n - 1; j++) {
            for (int i = 1; i < n - 1; i++) {
                line.fill(co, 2, i, j, 0);
                for (int k = slab.interiorLow(); k < slab.interiorHigh(); k++) {
                    line.force(co, dz, k, forcing, slab.own(i, j, k));
                }
            }
        }
        for (int k = slab.interiorLow(); k < slab.interiorHigh(); k++) {
            for (int j = 1; j < n - 1; j++) {
                for (int i = 1; i < n - 1; i++) {
                    int p = slab.own(i, j, k);
                    for (int m = 0; m < 5; m++) {
                        forcing[p + m] = -1.0 * forcing[p + m];
                    }
                }
            }
        }
    }

    /**
     * The exact solution along one grid line and the quantities the forcing needs of it:
     * ue, the velocities and kinetic terms (buf), the square of the line's own velocity (cuf)
     * and half the momentum times velocity (q).
     */
    private static final class Line {
        final double[] ue;
        final double[] buf;
        final double[] cuf;
        final double[] q;

        Line(int n) {
            ue = new double[5 * n];
            buf = new double[5 * n];
            cuf = new double[n];
            q = new double[n];
        }

        /** The line along {@code axis} through (i, j, k); the coordinate along the axis is ignored. */
        void fill(Coefficients co, int axis, int i, int j, int k) {
            int n = cuf.length;
            int o1 = axis == 0 ? 2 : 1;
            int o2 = axis == 2 ? 2 : 3;
            for (int p = 0; p < n; p++) {
                double xi = (axis == 0 ? p : i) * co.dnxm1;
                double eta = (axis == 1 ? p : j) * co.dnym1;
                double zeta = (axis == 2 ? p : k) * co.dnzm1;
                at(xi, eta, zeta, ue, 5 * p);
                double dtpp = 1.0 / ue[5 * p];
                for (int m = 1; m < 5; m++) {
                    buf[5 * p + m] = dtpp * ue[5 * p + m];
                }
                double own = buf[5 * p + axis + 1];
                cuf[p] = own * own;
                double b1 = buf[5 * p + o1];
                double b2 = buf[5 * p + o2];
                buf[5 * p] = cuf[p] + b1 * b1 + b2 * b2;
                q[p] = 0.5 * (buf[5 * p + 1] * ue[5 * p + 1] + buf[5 * p + 2] * ue[5 * p + 2] + buf[5 * p + 3] * ue[5 * p + 3]);
            }
        }

        /** Adds the direction's terms at position {@code p} of the line to {@code f[at..at+4]}. */
        void force(Coefficients co, Coefficients.Direction d, int p, double[] f, int at) {
            int n = cuf.length;
            int mo = d.momentum();
            int c = 5 * p;
            int up = c + 5;
            int dn = c - 5;
            f[at] = f[at] - d.t2() * (ue[up + mo] - ue[dn + mo]) + d.dt1() * (ue[up] - 2.0 * ue[c] + ue[dn]);
            for (int m = 1; m < 4; m++) {
                if (m == mo) {
                    f[at + m] = f[at + m] - d.t2() * ((ue[up + m] * buf[up + m] + C2 * (ue[up + 4] - q[p + 1]))
                            - (ue[dn + m] * buf[dn + m] + C2 * (ue[dn + 4] - q[p - 1])))
                            + d.con1() * (buf[up + m] - 2.0 * buf[c + m] + buf[dn + m])
                            + d.dt1() * (ue[up + m] - 2.0 * ue[c + m] + ue[dn + m]);
                } else {
                    f[at + m] = f[at + m] - d.t2() * (ue[up + m] * buf[up + mo] - ue[dn + m] * buf[dn + mo])
                            + d.con2() * (buf[up + m] - 2.0 * buf[c + m] + buf[dn + m])
                            + d.dt1() * (ue[up + m] - 2.0 * ue[c + m] + ue[dn + m]);
                }
            }
            f[at + 4] = f[at + 4] - d.t2() * (buf[up + mo] * (C1 * ue[up + 4] - C2 * q[p + 1])
                    - buf[dn + mo] * (C1 * ue[dn + 4] - C2 * q[p - 1]))
                    + 0.5 * d.con3() * (buf[up] - 2.0 * buf[c] + buf[dn])
                    + d.con4() * (cuf[p + 1] - 2.0 * cuf[p] + cuf[p - 1])
                    + d.con5() * (buf[up + 4] - 2.0 * buf[c + 4] + buf[dn + 4])
                    + d.dt1() * (ue[up + 4] - 2.0 * ue[c + 4] + ue[dn + 4]);
            for (int m = 0; m < 5; m++) {
                f[at + m] = f[at + m] - DSSP * Dissipation.stencil(ue, 5 * p + m, 5, p, n);
            }
        }
    }
}
