package org.mpirunft.npb.sp;

import static org.mpirunft.npb.sp.Constants.C1;
import static org.mpirunft.npb.sp.Constants.C1C2;
import static org.mpirunft.npb.sp.Constants.C2;
import static org.mpirunft.npb.sp.Constants.CON43;
import static org.mpirunft.npb.sp.Constants.DSSP;

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

    /** Flux differences, viscous terms and dissipation along the lines through plane k in direction step (1 x, n y, plane z). */
    private void fluxes(double[] u, int k, int step, int vel, double t2, double dt1, double[] con) {
        int n = slab.n;
        int s = slab.ghostedStride();
        int rs = slab.ownedStride();
        double[] along = vel == 1 ? us : vel == 2 ? vs : ws;
        double c2 = C2;
        for (int j = 1; j <= n - 2; j++) {
            int g = slab.ghosted(k) + j * n;
            int r = slab.owned(k) + j * n;
            for (int i = 1; i <= n - 2; i++) {
                int p = g + i;
                int pp = p + step;
                int pm = p - step;
                int q = r + i;
                double vijk = along[p];
                double vp1 = along[pp];
                double vm1 = along[pm];
                rhs[q] = rhs[q] + dt1 * (u[pp] - 2.0 * u[p] + u[pm]) - t2 * (u[pp + vel * s] - u[pm + vel * s]);
                for (int m = 1; m <= 3; m++) {
                    int o = m * s;
                    int qm = q + m * rs;
                    if (m == vel) {
                        rhs[qm] = rhs[qm] + dt1 * (u[pp + o] - 2.0 * u[p + o] + u[pm + o])
                                + con[2] * CON43 * (vp1 - 2.0 * vijk + vm1)
                                - t2 * (u[pp + o] * vp1 - u[pm + o] * vm1
                                        + (u[pp + 4 * s] - square[pp] - u[pm + 4 * s] + square[pm]) * c2);
                    } else {
                        double[] across = m == 1 ? us : m == 2 ? vs : ws;
                        rhs[qm] = rhs[qm] + dt1 * (u[pp + o] - 2.0 * u[p + o] + u[pm + o])
                                + con[2] * (across[pp] - 2.0 * across[p] + across[pm])
                                - t2 * (u[pp + o] * vp1 - u[pm + o] * vm1);
                    }
                }
                int o4 = 4 * s;
                int q4 = q + 4 * rs;
                rhs[q4] = rhs[q4] + dt1 * (u[pp + o4] - 2.0 * u[p + o4] + u[pm + o4])
                        + con[3] * (qs[pp] - 2.0 * qs[p] + qs[pm])
                        + con[4] * (vp1 * vp1 - 2.0 * vijk * vijk + vm1 * vm1)
                        + con[5] * (u[pp + o4] * rhoI[pp] - 2.0 * u[p + o4] * rhoI[p] + u[pm + o4] * rhoI[pm])
                        - t2 * ((C1 * u[pp + o4] - C2 * square[pp]) * vp1 - (C1 * u[pm + o4] - C2 * square[pm]) * vm1);
            }
        }
    }

    /**
     * Fourth-order dissipation at point index {@code pos} (1..n-2) of lines with the given
     * step, for the rhs point q and the u point p.
     */
    private void dissipate(double[] u, int pos, int p, int q, int step) {
        int n = slab.n;
        int s = slab.ghostedStride();
        int rs = slab.ownedStride();
        for (int m = 0; m < 5; m++) {
            int a = p + m * s;
            int qm = q + m * rs;
            double d;
            if (pos == 1) {
                d = 5.0 * u[a] - 4.0 * u[a + step] + u[a + 2 * step];
            } else if (pos == 2) {
                d = -4.0 * u[a - step] + 6.0 * u[a] - 4.0 * u[a + step] + u[a + 2 * step];
            } else if (pos == n - 3) {
                d = u[a - 2 * step] - 4.0 * u[a - step] + 6.0 * u[a] - 4.0 * u[a + step];
            } else if (pos == n - 2) {
                d = u[a - 2 * step] - 4.0 * u[a - step] + 5.0 * u[a];
            } else {
                d = u[a - 2 * step] - 4.0 * u[a - step] + 6.0 * u[a] - 4.0 * u[a + step] + u[a + 2 * step];
            }
            rhs[qm] = rhs[qm] - DSSP * d;
        }
    }

    private void xTerms(double[] u, int k) {
        int n = slab.n;
        fluxes(u, k, 1, 1, c.t2, c.dxt1, c.xxcon);
        for (int j = 1; j <= n - 2; j++) {
            int g = slab.ghosted(k) + j * n;
            int r = slab.owned(k) + j * n;
            for (int i = 1; i <= n - 2; i++) {
                dissipate(u, i, g + i, r + i, 1);
            }
        }
    }

    private void yTerms(double[] u, int k) {
        int n = slab.n;
        fluxes(u, k, n, 2, c.t2, c.dyt1, c.yycon);
        for (int j = 1; j <= n - 2; j++) {
            int g = slab.ghosted(k) + j * n;
            int r = slab.owned(k) + j * n;
            for (int i = 1; i <= n - 2; i++) {
                dissipate(u, j, g + i, r + i, n);
            }
        }
    }

    private void zTerms(double[] u, int k) {
        int n = slab.n;
        fluxes(u, k, slab.plane, 3, c.t2, c.dzt1, c.zzcon);
        for (int j = 1; j <= n - 2; j++) {
            int g = slab.ghosted(k) + j * n;
            int r = slab.owned(k) + j * n;
            for (int i = 1; i <= n - 2; i++) {
                dissipate(u, k, g + i, r + i, slab.plane);
            }
        }
    }
}
