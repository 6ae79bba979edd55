package org.mpirunft.npb.bt;

import static org.mpirunft.npb.NavierStokes.C1;
import static org.mpirunft.npb.NavierStokes.C2;
import static org.mpirunft.npb.NavierStokes.CON43;
import static org.mpirunft.npb.NavierStokes.DSSP;

/**
 * The explicit right-hand side of one time step on one rank's slab (NPB's compute_rhs): the
 * forcing plus, direction by direction, the flux differences, the viscous terms and the
 * fourth-order dissipation of u, all times dt. u must hold its two ghost planes either side.
 * The point-wise quantities (1/rho, velocities, kinetic energy) are kept per point, ghosts
 * included, for the neighbours' stencils.
 */
final class RightHandSide {
    private final Slab slab;
    private final Coefficients co;
    private final double[] rhoInv;
    /** Velocities u, v, w: the momentum components over the density. */
    private final double[][] velocity;
    private final double[] square;
    private final double[] qs;

    RightHandSide(Slab slab, Coefficients co) {
        this.slab = slab;
        this.co = co;
        int points = slab.heldPlanes() * slab.n * slab.n;
        rhoInv = new double[points];
        velocity = new double[][] {new double[points], new double[points], new double[points]};
        square = new double[points];
        qs = new double[points];
    }

    /** rhs = dt (forcing + operator(u)) on the interior points of this rank's planes; forcing elsewhere. */
    void compute(double[] u, double[] forcing, double[] rhs) {
        int n = slab.n;
        double[] us = velocity[0];
        double[] vs = velocity[1];
        double[] ws = velocity[2];
        for (int k = slab.lowestHeld(); k < slab.highestHeld(); k++) {
            int a = slab.aux(0, 0, k);
            int p = slab.u(0, 0, k);
            for (int x = 0; x < n * n; x++, a++, p += 5) {
                double r = 1.0 / u[p];
                rhoInv[a] = r;
                us[a] = u[p + 1] * r;
                vs[a] = u[p + 2] * r;
                ws[a] = u[p + 3] * r;
                double sq = 0.5 * (u[p + 1] * u[p + 1] + u[p + 2] * u[p + 2] + u[p + 3] * u[p + 3]) * r;
                square[a] = sq;
                qs[a] = sq * r;
            }
        }
        System.arraycopy(forcing, 0, rhs, 0, rhs.length);
        int kLow = slab.interiorLow();
        int kHigh = slab.interiorHigh();
        for (int axis = 0; axis < 3; axis++) {
            Coefficients.Direction d = co.direction(axis);
            int auxStride = axis == 0 ? 1 : axis == 1 ? n : n * n;
            for (int k = kLow; k < kHigh; k++) {
                for (int j = 1; j < n - 1; j++) {
                    for (int i = 1; i < n - 1; i++) {
                        int p = axis == 0 ? i : axis == 1 ? j : k;
                        flux(d, u, slab.u(i, j, k), 5 * auxStride, slab.aux(i, j, k), auxStride, rhs, slab.own(i, j, k));
                        int c = slab.u(i, j, k);
                        int r = slab.own(i, j, k);
                        for (int m = 0; m < 5; m++) {
                            rhs[r + m] = rhs[r + m] - DSSP * Dissipation.stencil(u, c + m, 5 * auxStride, p, n);
                        }
                    }
                }
            }
        }
        for (int k = kLow; k < kHigh; k++) {
            for (int j = 1; j < n - 1; j++) {
                int r = slab.own(1, j, k);
                for (int x = 0; x < 5 * (n - 2); x++) {
                    rhs[r + x] = rhs[r + x] * co.dt;
                }
            }
        }
    }

    /** The flux differences and viscous terms of one direction at one point. */
    private void flux(Coefficients.Direction d, double[] u, int c, int s, int a, int as, double[] rhs, int r) {
        int mo = d.momentum();
        double[] vel = velocity[d.axis()];
        double v0 = vel[a];
        double vp = vel[a + as];
        double vm = vel[a - as];
        double t2 = d.t2();
        double dt1 = d.dt1();
        int up = c + s;
        int dn = c - s;
        rhs[r] = rhs[r] + dt1 * (u[up] - 2.0 * u[c] + u[dn]) - t2 * (u[up + mo] - u[dn + mo]);
        for (int m = 1; m < 4; m++) {
            if (m == mo) {
                rhs[r + m] = rhs[r + m] + dt1 * (u[up + m] - 2.0 * u[c + m] + u[dn + m])
                        + d.con2() * CON43 * (vp - 2.0 * v0 + vm)
                        - t2 * (u[up + m] * vp - u[dn + m] * vm + (u[up + 4] - square[a + as] - u[dn + 4] + square[a - as]) * C2);
            } else {
                double[] other = velocity[m - 1];
                rhs[r + m] = rhs[r + m] + dt1 * (u[up + m] - 2.0 * u[c + m] + u[dn + m])
                        + d.con2() * (other[a + as] - 2.0 * other[a] + other[a - as])
                        - t2 * (u[up + m] * vp - u[dn + m] * vm);
            }
        }
        rhs[r + 4] = rhs[r + 4] + dt1 * (u[up + 4] - 2.0 * u[c + 4] + u[dn + 4])
                + d.con3() * (qs[a + as] - 2.0 * qs[a] + qs[a - as])
                + d.con4() * (vp * vp - 2.0 * v0 * v0 + vm * vm)
                + d.con5() * (u[up + 4] * rhoInv[a + as] - 2.0 * u[c + 4] * rhoInv[a] + u[dn + 4] * rhoInv[a - as])
                - t2 * ((C1 * u[up + 4] - C2 * square[a + as]) * vp - (C1 * u[dn + 4] - C2 * square[a - as]) * vm);
    }
}
