package org.mpirunft.npb.lu;

import static org.mpirunft.npb.NavierStokes.C1;
import static org.mpirunft.npb.NavierStokes.C2;
import static org.mpirunft.npb.NavierStokes.C3;
import static org.mpirunft.npb.NavierStokes.C4;
import static org.mpirunft.npb.NavierStokes.C5;
import static org.mpirunft.npb.NavierStokes.CON43;
import static org.mpirunft.npb.NavierStokes.DX;
import static org.mpirunft.npb.NavierStokes.DY;
import static org.mpirunft.npb.NavierStokes.DZ;

/**
 * The 5x5 blocks of the implicit operator at one point: the diagonal block, and the coupling
 * to a neighbour in x, y or z. A block is a double[25], row-major ({@code [row * 5 + col]}).
 * The lower sweep couples to the neighbours below (sign -1 on the convective part), the upper
 * sweep to those above (sign +1); the viscous and dissipative parts are the same for both.
 * The expressions keep NPB's jacld / jacu association so that they round alike.
 */
final class Jacobians {
    private static final double C1345 = C1 * C3 * C4 * C5;
    private static final double C34 = C3 * C4;

    private final double dt;
    private final double tx1;
    private final double tx2;
    private final double ty1;
    private final double ty2;
    private final double tz1;
    private final double tz2;

    Jacobians(Slab slab, double dt) {
        this.dt = dt;
        this.tx1 = slab.tx1;
        this.tx2 = slab.tx2;
        this.ty1 = slab.ty1;
        this.ty2 = slab.ty2;
        this.tz1 = slab.tz1;
        this.tz2 = slab.tz2;
    }

    /** The diagonal block at the point whose state starts at u[p]. */
    void diagonal(double[] u, int p, double[] d) {
        double tmp1 = 1.0 / u[p];
        double tmp2 = tmp1 * tmp1;
        double tmp3 = tmp1 * tmp2;
        double u2 = u[p + 1];
        double u3 = u[p + 2];
        double u4 = u[p + 3];
        double u5 = u[p + 4];

        d[0] = 1.0 + dt * 2.0 * (tx1 * DX + ty1 * DY + tz1 * DZ);
        d[1] = 0.0;
        d[2] = 0.0;
        d[3] = 0.0;
        d[4] = 0.0;

        d[5] = dt * 2.0 * (tx1 * (-CON43 * C34 * tmp2 * u2) + ty1 * (-C34 * tmp2 * u2) + tz1 * (-C34 * tmp2 * u2));
        d[6] = 1.0 + dt * 2.0 * (tx1 * CON43 * C34 * tmp1 + ty1 * C34 * tmp1 + tz1 * C34 * tmp1)
                + dt * 2.0 * (tx1 * DX + ty1 * DY + tz1 * DZ);
        d[7] = 0.0;
        d[8] = 0.0;
        d[9] = 0.0;

        d[10] = dt * 2.0 * (tx1 * (-C34 * tmp2 * u3) + ty1 * (-CON43 * C34 * tmp2 * u3) + tz1 * (-C34 * tmp2 * u3));
        d[11] = 0.0;
        d[12] = 1.0 + dt * 2.0 * (tx1 * C34 * tmp1 + ty1 * CON43 * C34 * tmp1 + tz1 * C34 * tmp1)
                + dt * 2.0 * (tx1 * DX + ty1 * DY + tz1 * DZ);
        d[13] = 0.0;
        d[14] = 0.0;

        d[15] = dt * 2.0 * (tx1 * (-C34 * tmp2 * u4) + ty1 * (-C34 * tmp2 * u4) + tz1 * (-CON43 * C34 * tmp2 * u4));
        d[16] = 0.0;
        d[17] = 0.0;
        d[18] = 1.0 + dt * 2.0 * (tx1 * C34 * tmp1 + ty1 * C34 * tmp1 + tz1 * CON43 * C34 * tmp1)
                + dt * 2.0 * (tx1 * DX + ty1 * DY + tz1 * DZ);
        d[19] = 0.0;

        d[20] = dt * 2.0 * (tx1 * (-(CON43 * C34 - C1345) * tmp3 * (u2 * u2) - (C34 - C1345) * tmp3 * (u3 * u3)
                        - (C34 - C1345) * tmp3 * (u4 * u4) - (C1345) * tmp2 * u5)
                + ty1 * (-(C34 - C1345) * tmp3 * (u2 * u2) - (CON43 * C34 - C1345) * tmp3 * (u3 * u3)
                        - (C34 - C1345) * tmp3 * (u4 * u4) - (C1345) * tmp2 * u5)
                + tz1 * (-(C34 - C1345) * tmp3 * (u2 * u2) - (C34 - C1345) * tmp3 * (u3 * u3)
                        - (CON43 * C34 - C1345) * tmp3 * (u4 * u4) - (C1345) * tmp2 * u5));
        d[21] = dt * 2.0 * (tx1 * (CON43 * C34 - C1345) * tmp2 * u2 + ty1 * (C34 - C1345) * tmp2 * u2
                + tz1 * (C34 - C1345) * tmp2 * u2);
        d[22] = dt * 2.0 * (tx1 * (C34 - C1345) * tmp2 * u3 + ty1 * (CON43 * C34 - C1345) * tmp2 * u3
                + tz1 * (C34 - C1345) * tmp2 * u3);
        d[23] = dt * 2.0 * (tx1 * (C34 - C1345) * tmp2 * u4 + ty1 * (C34 - C1345) * tmp2 * u4
                + tz1 * (CON43 * C34 - C1345) * tmp2 * u4);
        d[24] = 1.0 + dt * 2.0 * (tx1 * C1345 * tmp1 + ty1 * C1345 * tmp1 + tz1 * C1345 * tmp1)
                + dt * 2.0 * (tx1 * DX + ty1 * DY + tz1 * DZ);
    }

    /**
     * The coupling to the x neighbour whose state starts at u[q]: sign -1 for i-1 (lower
     * sweep), +1 for i+1 (upper sweep).
     */
    void xNeighbour(double[] u, int q, double sign, double[] c) {
        double sdt = sign * dt;
        double tmp1 = 1.0 / u[q];
        double tmp2 = tmp1 * tmp1;
        double tmp3 = tmp1 * tmp2;
        double u2 = u[q + 1];
        double u3 = u[q + 2];
        double u4 = u[q + 3];
        double u5 = u[q + 4];

        c[0] = -dt * tx1 * DX;
        c[1] = sdt * tx2;
        c[2] = 0.0;
        c[3] = 0.0;
        c[4] = 0.0;

        c[5] = sdt * tx2 * (-((u2 * tmp1) * (u2 * tmp1)) + C2 * 0.50 * (u2 * u2 + u3 * u3 + u4 * u4) * tmp2)
                - dt * tx1 * (-CON43 * C34 * tmp2 * u2);
        c[6] = sdt * tx2 * ((2.0 - C2) * (u2 * tmp1)) - dt * tx1 * (CON43 * C34 * tmp1) - dt * tx1 * DX;
        c[7] = sdt * tx2 * (-C2 * (u3 * tmp1));
        c[8] = sdt * tx2 * (-C2 * (u4 * tmp1));
        c[9] = sdt * tx2 * C2;

        c[10] = sdt * tx2 * (-(u2 * u3) * tmp2) - dt * tx1 * (-C34 * tmp2 * u3);
        c[11] = sdt * tx2 * (u3 * tmp1);
        c[12] = sdt * tx2 * (u2 * tmp1) - dt * tx1 * (C34 * tmp1) - dt * tx1 * DX;
        c[13] = 0.0;
        c[14] = 0.0;

        c[15] = sdt * tx2 * (-(u2 * u4) * tmp2) - dt * tx1 * (-C34 * tmp2 * u4);
        c[16] = sdt * tx2 * (u4 * tmp1);
        c[17] = 0.0;
        c[18] = sdt * tx2 * (u2 * tmp1) - dt * tx1 * (C34 * tmp1) - dt * tx1 * DX;
        c[19] = 0.0;

        c[20] = sdt * tx2 * ((C2 * (u2 * u2 + u3 * u3 + u4 * u4) * tmp2 - C1 * (u5 * tmp1)) * (u2 * tmp1))
                - dt * tx1 * (-(CON43 * C34 - C1345) * tmp3 * (u2 * u2) - (C34 - C1345) * tmp3 * (u3 * u3)
                        - (C34 - C1345) * tmp3 * (u4 * u4) - C1345 * tmp2 * u5);
        c[21] = sdt * tx2 * (C1 * (u5 * tmp1) - 0.50 * C2 * ((3.0 * u2 * u2 + u3 * u3 + u4 * u4) * tmp2))
                - dt * tx1 * (CON43 * C34 - C1345) * tmp2 * u2;
        c[22] = sdt * tx2 * (-C2 * (u3 * u2) * tmp2) - dt * tx1 * (C34 - C1345) * tmp2 * u3;
        c[23] = sdt * tx2 * (-C2 * (u4 * u2) * tmp2) - dt * tx1 * (C34 - C1345) * tmp2 * u4;
        c[24] = sdt * tx2 * (C1 * (u2 * tmp1)) - dt * tx1 * C1345 * tmp1 - dt * tx1 * DX;
    }

    /** The coupling to the y neighbour at u[q]: sign -1 for j-1, +1 for j+1. */
    void yNeighbour(double[] u, int q, double sign, double[] b) {
        double sdt = sign * dt;
        double tmp1 = 1.0 / u[q];
        double tmp2 = tmp1 * tmp1;
        double tmp3 = tmp1 * tmp2;
        double u2 = u[q + 1];
        double u3 = u[q + 2];
        double u4 = u[q + 3];
        double u5 = u[q + 4];

        b[0] = -dt * ty1 * DY;
        b[1] = 0.0;
        b[2] = sdt * ty2;
        b[3] = 0.0;
        b[4] = 0.0;

        b[5] = sdt * ty2 * (-(u2 * u3) * tmp2) - dt * ty1 * (-C34 * tmp2 * u2);
        b[6] = sdt * ty2 * (u3 * tmp1) - dt * ty1 * (C34 * tmp1) - dt * ty1 * DY;
        b[7] = sdt * ty2 * (u2 * tmp1);
        b[8] = 0.0;
        b[9] = 0.0;

        b[10] = sdt * ty2 * (-((u3 * tmp1) * (u3 * tmp1)) + 0.50 * C2 * ((u2 * u2 + u3 * u3 + u4 * u4) * tmp2))
                - dt * ty1 * (-CON43 * C34 * tmp2 * u3);
        b[11] = sdt * ty2 * (-C2 * (u2 * tmp1));
        b[12] = sdt * ty2 * ((2.0 - C2) * (u3 * tmp1)) - dt * ty1 * (CON43 * C34 * tmp1) - dt * ty1 * DY;
        b[13] = sdt * ty2 * (-C2 * (u4 * tmp1));
        b[14] = sdt * ty2 * C2;

        b[15] = sdt * ty2 * (-(u3 * u4) * tmp2) - dt * ty1 * (-C34 * tmp2 * u4);
        b[16] = 0.0;
        b[17] = sdt * ty2 * (u4 * tmp1);
        b[18] = sdt * ty2 * (u3 * tmp1) - dt * ty1 * (C34 * tmp1) - dt * ty1 * DY;
        b[19] = 0.0;

        b[20] = sdt * ty2 * ((C2 * (u2 * u2 + u3 * u3 + u4 * u4) * tmp2 - C1 * (u5 * tmp1)) * (u3 * tmp1))
                - dt * ty1 * (-(C34 - C1345) * tmp3 * (u2 * u2) - (CON43 * C34 - C1345) * tmp3 * (u3 * u3)
                        - (C34 - C1345) * tmp3 * (u4 * u4) - C1345 * tmp2 * u5);
        b[21] = sdt * ty2 * (-C2 * (u2 * u3) * tmp2) - dt * ty1 * (C34 - C1345) * tmp2 * u2;
        b[22] = sdt * ty2 * (C1 * (u5 * tmp1) - 0.50 * C2 * ((u2 * u2 + 3.0 * u3 * u3 + u4 * u4) * tmp2))
                - dt * ty1 * (CON43 * C34 - C1345) * tmp2 * u3;
        b[23] = sdt * ty2 * (-C2 * (u3 * u4) * tmp2) - dt * ty1 * (C34 - C1345) * tmp2 * u4;
        b[24] = sdt * ty2 * (C1 * (u3 * tmp1)) - dt * ty1 * C1345 * tmp1 - dt * ty1 * DY;
    }

    /** The coupling to the z neighbour at u[q]: sign -1 for k-1, +1 for k+1. */
    void zNeighbour(double[] u, int q, double sign, double[] a) {
        double sdt = sign * dt;
        double tmp1 = 1.0 / u[q];
        double tmp2 = tmp1 * tmp1;
        double tmp3 = tmp1 * tmp2;
        double u2 = u[q + 1];
        double u3 = u[q + 2];
        double u4 = u[q + 3];
        double u5 = u[q + 4];

        a[0] = -dt * tz1 * DZ;
        a[1] = 0.0;
        a[2] = 0.0;
        a[3] = sdt * tz2;
        a[4] = 0.0;

        a[5] = sdt * tz2 * (-(u2 * u4) * tmp2) - dt * tz1 * (-C34 * tmp2 * u2);
        a[6] = sdt * tz2 * (u4 * tmp1) - dt * tz1 * C34 * tmp1 - dt * tz1 * DZ;
        a[7] = 0.0;
        a[8] = sdt * tz2 * (u2 * tmp1);
        a[9] = 0.0;

        a[10] = sdt * tz2 * (-(u3 * u4) * tmp2) - dt * tz1 * (-C34 * tmp2 * u3);
        a[11] = 0.0;
        a[12] = sdt * tz2 * (u4 * tmp1) - dt * tz1 * (C34 * tmp1) - dt * tz1 * DZ;
        a[13] = sdt * tz2 * (u3 * tmp1);
        a[14] = 0.0;

        a[15] = sdt * tz2 * (-((u4 * tmp1) * (u4 * tmp1)) + 0.50 * C2 * ((u2 * u2 + u3 * u3 + u4 * u4) * tmp2))
                - dt * tz1 * (-CON43 * C34 * tmp2 * u4);
        a[16] = sdt * tz2 * (-C2 * (u2 * tmp1));
        a[17] = sdt * tz2 * (-C2 * (u3 * tmp1));
        a[18] = sdt * tz2 * (2.0 - C2) * (u4 * tmp1) - dt * tz1 * (CON43 * C34 * tmp1) - dt * tz1 * DZ;
        a[19] = sdt * tz2 * C2;

        a[20] = sdt * tz2 * ((C2 * (u2 * u2 + u3 * u3 + u4 * u4) * tmp2 - C1 * (u5 * tmp1)) * (u4 * tmp1))
                - dt * tz1 * (-(C34 - C1345) * tmp3 * (u2 * u2) - (C34 - C1345) * tmp3 * (u3 * u3)
                        - (CON43 * C34 - C1345) * tmp3 * (u4 * u4) - C1345 * tmp2 * u5);
        a[21] = sdt * tz2 * (-C2 * (u2 * u4) * tmp2) - dt * tz1 * (C34 - C1345) * tmp2 * u2;
        a[22] = sdt * tz2 * (-C2 * (u3 * u4) * tmp2) - dt * tz1 * (C34 - C1345) * tmp2 * u3;
        a[23] = sdt * tz2 * (C1 * (u5 * tmp1) - 0.50 * C2 * ((u2 * u2 + u3 * u3 + 3.0 * u4 * u4) * tmp2))
                - dt * tz1 * (CON43 * C34 - C1345) * tmp2 * u4;
        a[24] = sdt * tz2 * (C1 * (u4 * tmp1)) - dt * tz1 * C1345 * tmp1 - dt * tz1 * DZ;
    }
}
