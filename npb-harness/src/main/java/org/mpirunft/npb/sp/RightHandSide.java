package org.mpirunft.npb.sp;

import static org.mpirunft.npb.NavierStokes.C1;
import static org.mpirunft.npb.NavierStokes.C2;
import static org.mpirunft.npb.NavierStokes.CON43;
import static org.mpirunft.npb.NavierStokes.DSSP;
import static org.mpirunft.npb.sp.Constants.C1C2;

/**
 * compute_rhs on one slab: the fields derived from u (1/rho, the velocities, the kinetic
 * energy and the speed of sound), then rhs = dt (forcing + the flux differences, viscous terms
 * and fourth-order dissipation in x, y and z) at the interior points. u's ghost planes must hold
 * the neighbours' values. Per point the terms are added in the reference's order (x, then y,
 * then z; each direction's fluxes before its dissipation), which the verification depends on.
 */
final class RightHandSide {
    private final Slab slab;
    private final Constants c;
    /** Derived fields, ghosted layout; valid on the owned planes and one plane beyond each side. */
    final double[] rhoI;
    final double[] us;
    final double[] vs;
    final double[] ws;
    final double[] qs;
    final double[] square;
    final double[] speed;
    /** Owned layout, five components. */
    final double[] rhs;
    final double[] forcing;

    RightHandSide(Slab slab, Constants c) {
        this.slab = slab;
        this.c = c;
        int ghosted = slab.ghostedStride();
        rhoI = new double[ghosted];
        us = new double[ghosted];
        vs = new double[ghosted];
        ws = new double[ghosted];
        qs = new double[ghosted];
        square = new double[ghosted];
        speed = new double[ghosted];
        rhs = new double[5 * slab.ownedStride()];
        forcing = new double[5 * slab.ownedStride()];
        ExactSolution.forcing(slab, c, forcing);
    }

    void compute(double[] u) {
        derive(u);
        System.arraycopy(forcing, 0, rhs, 0, rhs.length);
        int n = slab.n;
        int kFrom = Math.max(1, slab.first);
        int kTo = Math.min(n - 2, slab.end() - 1);
        for (int k = kFrom; k <= kTo; k++) {
            xTerms(u, k);
        }
        for (int k = kFrom; k <= kTo; k++) {
            yTerms(u, k);
        }
        for (int k = kFrom; k <= kTo; k++) {
            zTerms(u, k);
        }
        int stride = slab.ownedStride();
        double dt = c.dt;
        for (int m = 0; m < 5; m++) {
            for (int k = kFrom; k <= kTo; k++) {
                for (int j = 1; j <= n - 2; j++) {
                    int r = m * stride + slab.owned(k) + j * n;
                    for (int i = 1; i <= n - 2; i++) {
                        rhs[r + i] = rhs[r + i] * dt;
                    }
                }
            }
        }
    }

    private void derive(double[] u) {
        int s = slab.ghostedStride();
        int from = slab.ghosted(Math.max(0, slab.first - 1));
        int to = slab.ghosted(Math.min(slab.n - 1, slab.end())) + slab.plane;
        for (int p = from; p < to; p++) {
            double u1 = u[p + s];
            double u2 = u[p + 2 * s];
            double u3 = u[p + 3 * s];
            double rhoInv = 1.0 / u[p];
            rhoI[p] = rhoInv;
            us[p] = u1 * rhoInv;
            vs[p] = u2 * rhoInv;
            ws[p] = u3 * rhoInv;
            double sq = 0.5 * (u1 * u1 + u2 * u2 + u3 * u3) * rhoInv;
            square[p] = sq;
            qs[p] = sq * rhoInv;
            double aux = C1C2 * rhoInv * (u[p + 4 * s] - sq);
            speed[p] = Math.sqrt(aux);
        }
    }

    /**
     * Flux differences and viscous terms at the interior points of plane k, for the direction
     * whose neighbours are {@code step} apart (1 x, n y, plane z) and whose velocity is
     * component {@code vel}. Each component is its own loop over i, so that the JIT can
     * vectorise it; per point the arithmetic is the reference's.
     */
    private void fluxes(double[] u, int k, int step, int vel, double t2, double dt1, double[] con) {
        int n = slab.n;
        int s = slab.ghostedStride();
        int rs = slab.ownedStride();
        double[] along = vel == 1 ? us : vel == 2 ? vs : ws;
        double[] r = rhs;
        double[] sq = square;
        double[] q = qs;
        double[] ri = rhoI;
        int len = n - 2;
        int o4 = 4 * s;
        int ov = vel * s;
        double con2 = con[2];
        double con2x43 = con[2] * CON43;
        double con3 = con[3];
        double con4 = con[4];
        double con5 = con[5];
        for (int j = 1; j <= n - 2; j++) {
            int g = slab.ghosted(k) + j * n + 1;
            int q0 = slab.owned(k) + j * n + 1;
            for (int x = 0; x < len; x++) {
                int p = g + x;
                r[q0 + x] = r[q0 + x] + dt1 * (u[p + step] - 2.0 * u[p] + u[p - step]) - t2 * (u[ov + p + step] - u[ov + p - step]);
            }
            for (int m = 1; m <= 3; m++) {
                int o = m * s;
                int qm = q0 + m * rs;
                if (m == vel) {
                    for (int x = 0; x < len; x++) {
                        int p = g + x;
                        int pp = p + step;
                        int pm = p - step;
                        double vp1 = along[pp];
                        double vm1 = along[pm];
                        r[qm + x] = r[qm + x] + dt1 * (u[o + pp] - 2.0 * u[o + p] + u[o + pm])
                                + con2x43 * (vp1 - 2.0 * along[p] + vm1)
                                - t2 * (u[o + pp] * vp1 - u[o + pm] * vm1 + (u[o4 + pp] - sq[pp] - u[o4 + pm] + sq[pm]) * C2);
                    }
                } else {
                    double[] across = m == 1 ? us : m == 2 ? vs : ws;
                    for (int x = 0; x < len; x++) {
                        int p = g + x;
                        int pp = p + step;
                        int pm = p - step;
                        r[qm + x] = r[qm + x] + dt1 * (u[o + pp] - 2.0 * u[o + p] + u[o + pm])
                                + con2 * (across[pp] - 2.0 * across[p] + across[pm])
                                - t2 * (u[o + pp] * along[pp] - u[o + pm] * along[pm]);
                    }
                }
            }
            int q4 = q0 + 4 * rs;
            for (int x = 0; x < len; x++) {
                int p = g + x;
                int pp = p + step;
                int pm = p - step;
                double vijk = along[p];
                double vp1 = along[pp];
                double vm1 = along[pm];
                r[q4 + x] = r[q4 + x] + dt1 * (u[o4 + pp] - 2.0 * u[o4 + p] + u[o4 + pm])
                        + con3 * (q[pp] - 2.0 * q[p] + q[pm])
                        + con4 * (vp1 * vp1 - 2.0 * vijk * vijk + vm1 * vm1)
                        + con5 * (u[o4 + pp] * ri[pp] - 2.0 * u[o4 + p] * ri[p] + u[o4 + pm] * ri[pm])
                        - t2 * ((C1 * u[o4 + pp] - C2 * sq[pp]) * vp1 - (C1 * u[o4 + pm] - C2 * sq[pm]) * vm1);
            }
        }
    }

    /**
     * Fourth-order dissipation at {@code len} consecutive points (u from {@code p}, rhs from
     * {@code q}), all at the same position {@code pos} (1..n-2) along lines whose neighbours are
     * {@code step} apart: one-sided next to the boundary, as in the reference.
     */
    private void dissipate(double[] u, int pos, int p, int q, int len, int step) {
        int n = slab.n;
        int s = slab.ghostedStride();
        int rs = slab.ownedStride();
        double[] r = rhs;
        int s2 = 2 * step;
        for (int m = 0; m < 5; m++) {
            int a = p + m * s;
            int b = q + m * rs;
            if (pos == 1) {
                for (int x = 0; x < len; x++) {
                    r[b + x] = r[b + x] - DSSP * (5.0 * u[a + x] - 4.0 * u[a + x + step] + u[a + x + s2]);
                }
            } else if (pos == 2) {
                for (int x = 0; x < len; x++) {
                    r[b + x] = r[b + x] - DSSP * (-4.0 * u[a + x - step] + 6.0 * u[a + x] - 4.0 * u[a + x + step] + u[a + x + s2]);
                }
            } else if (pos == n - 3) {
                for (int x = 0; x < len; x++) {
                    r[b + x] = r[b + x] - DSSP * (u[a + x - s2] - 4.0 * u[a + x - step] + 6.0 * u[a + x] - 4.0 * u[a + x + step]);
                }
            } else if (pos == n - 2) {
                for (int x = 0; x < len; x++) {
                    r[b + x] = r[b + x] - DSSP * (u[a + x - s2] - 4.0 * u[a + x - step] + 5.0 * u[a + x]);
                }
            } else {
                for (int x = 0; x < len; x++) {
                    r[b + x] = r[b + x] - DSSP
                            * (u[a + x - s2] - 4.0 * u[a + x - step] + 6.0 * u[a + x] - 4.0 * u[a + x + step] + u[a + x + s2]);
                }
            }
        }
    }

    /** x dissipation of one row: its positions run along the row, so the general ones are one run. */
    private void dissipateRow(double[] u, int g, int r) {
        int n = slab.n;
        dissipate(u, 1, g + 1, r + 1, 1, 1);
        dissipate(u, 2, g + 2, r + 2, 1, 1);
        dissipate(u, 3, g + 3, r + 3, n - 6, 1);
        dissipate(u, n - 3, g + n - 3, r + n - 3, 1, 1);
        dissipate(u, n - 2, g + n - 2, r + n - 2, 1, 1);
    }

    private void xTerms(double[] u, int k) {
        int n = slab.n;
        fluxes(u, k, 1, 1, c.t2, c.dxt1, c.xxcon);
        for (int j = 1; j <= n - 2; j++) {
            int g = slab.ghosted(k) + j * n;
            int r = slab.owned(k) + j * n;
            dissipateRow(u, g, r);
        }
    }

    private void yTerms(double[] u, int k) {
        int n = slab.n;
        fluxes(u, k, n, 2, c.t2, c.dyt1, c.yycon);
        for (int j = 1; j <= n - 2; j++) {
            int g = slab.ghosted(k) + j * n;
            int r = slab.owned(k) + j * n;
            dissipate(u, j, g + 1, r + 1, n - 2, n);
        }
    }

    private void zTerms(double[] u, int k) {
        int n = slab.n;
        fluxes(u, k, slab.plane, 3, c.t2, c.dzt1, c.zzcon);
        for (int j = 1; j <= n - 2; j++) {
            int g = slab.ghosted(k) + j * n;
            int r = slab.owned(k) + j * n;
            dissipate(u, k, g + 1, r + 1, n - 2, slab.plane);
        }
    }
}
