package org.mpirunft.npb.bt;

import static org.mpirunft.npb.NavierStokes.C1;
import static org.mpirunft.npb.NavierStokes.C2;
import static org.mpirunft.npb.NavierStokes.C3;
import static org.mpirunft.npb.NavierStokes.C4;
import static org.mpirunft.npb.NavierStokes.CON43;

/**
 * The implicit factor of one direction on one grid line: the flux Jacobian (fjac) and the
 * viscous Jacobian (njac) at every point, the block-tridiagonal matrix they give (blocks A, B,
 * C per interior point), and its solution by block elimination and back substitution,
 * overwriting the line's right-hand side (NPB's x_solve, y_solve, z_solve per line).
 *
 * <p>NPB's lines include the two boundary points with identity blocks and a zero right-hand
 * side; they change no bit of the interior, so only points 1..n-2 are eliminated here.
 */
final class LineSolver {
    private final Coefficients co;
    private final int n;
    private final double[] fjac;
    private final double[] njac;
    private final double[] a;
    private final double[] b;
    private final double[] c;

    LineSolver(Coefficients co, int n) {
        this.co = co;
        this.n = n;
        fjac = new double[25 * n];
        njac = new double[25 * n];
        a = new double[25 * n];
        b = new double[25 * n];
        c = new double[25 * n];
    }

    /**
     * Solves the line along {@code axis} whose point p has u at {@code u[uo + p us]} and its
     * right-hand side at {@code rhs[ro + p rs]}.
     */
    void solve(int axis, double[] u, int uo, int us, double[] rhs, int ro, int rs) {
        for (int p = 0; p < n; p++) {
            int at = uo + p * us;
            switch (axis) {
                case 0 -> jacobiansX(u, at, 25 * p);
                case 1 -> jacobiansY(u, at, 25 * p);
                default -> jacobiansZ(u, at, 25 * p);
            }
        }
        Coefficients.Direction d = co.direction(axis);
        double tmp1 = co.dt * d.t1();
        double tmp2 = co.dt * d.t2();
        double dd = d.d();
        for (int p = 1; p < n - 1; p++) {
            int o = 25 * p;
            int om = o - 25;
            int op = o + 25;
            for (int x = 0; x < 25; x++) {
                a[o + x] = -tmp2 * fjac[om + x] - tmp1 * njac[om + x];
                b[o + x] = tmp1 * 2.0 * njac[o + x];
                c[o + x] = tmp2 * fjac[op + x] - tmp1 * njac[op + x];
            }
            for (int m = 0; m < 5; m++) {
                int x = 6 * m;
                a[o + x] = a[o + x] - tmp1 * dd;
                b[o + x] = 1.0 + tmp1 * 2.0 * njac[o + x] + tmp1 * 2.0 * dd;
                c[o + x] = c[o + x] - tmp1 * dd;
            }
        }
        Blocks.invertIntoBoth(b, 25, c, 25, rhs, ro + rs);
        for (int p = 2; p < n - 1; p++) {
            int o = 25 * p;
            int r = ro + p * rs;
            Blocks.subtractProduct(a, o, rhs, r - rs, rhs, r);
            Blocks.subtractMatrixProduct(a, o, c, o - 25, b, o);
            Blocks.invertIntoBoth(b, o, c, o, rhs, r);
        }
        for (int p = n - 3; p >= 1; p--) {
            int o = 25 * p;
            int r = ro + p * rs;
            int next = r + rs;
            for (int m = 0; m < 5; m++) {
                int row = o + 5 * m;
                rhs[r + m] = rhs[r + m] - c[row] * rhs[next] - c[row + 1] * rhs[next + 1] - c[row + 2] * rhs[next + 2]
                        - c[row + 3] * rhs[next + 3] - c[row + 4] * rhs[next + 4];
            }
        }
    }

    private void jacobiansX(double[] u, int at, int o) {
        double u1 = u[at];
        double u2 = u[at + 1];
        double u3 = u[at + 2];
        double u4 = u[at + 3];
        double u5 = u[at + 4];
        double tmp1 = 1.0 / u1;
        double tmp2 = tmp1 * tmp1;
        double tmp3 = tmp1 * tmp2;
        double sq = 0.5 * (u2 * u2 + u3 * u3 + u4 * u4) * tmp1;
        double qs = sq * tmp1;
        double c1 = C1;
        double c2 = C2;
        double c3c4 = co.c3c4;
        double c1345 = co.c1345;
        double con43 = CON43;
        double[] f = fjac;
        f[o] = 0.0;
        f[o + 1] = 1.0;
        f[o + 2] = 0.0;
        f[o + 3] = 0.0;
        f[o + 4] = 0.0;
        f[o + 5] = -(u2 * tmp2 * u2) + c2 * qs;
        f[o + 6] = (2.0 - c2) * (u2 / u1);
        f[o + 7] = -c2 * (u3 * tmp1);
        f[o + 8] = -c2 * (u4 * tmp1);
        f[o + 9] = c2;
        f[o + 10] = -(u2 * u3) * tmp2;
        f[o + 11] = u3 * tmp1;
        f[o + 12] = u2 * tmp1;
        f[o + 13] = 0.0;
        f[o + 14] = 0.0;
        f[o + 15] = -(u2 * u4) * tmp2;
        f[o + 16] = u4 * tmp1;
        f[o + 17] = 0.0;
        f[o + 18] = u2 * tmp1;
        f[o + 19] = 0.0;
        f[o + 20] = (c2 * 2.0 * sq - c1 * u5) * (u2 * tmp2);
        f[o + 21] = c1 * u5 * tmp1 - c2 * (u2 * u2 * tmp2 + qs);
        f[o + 22] = -c2 * (u3 * u2) * tmp2;
        f[o + 23] = -c2 * (u4 * u2) * tmp2;
        f[o + 24] = c1 * (u2 * tmp1);
        double[] v = njac;
        java.util.Arrays.fill(v, o, o + 25, 0.0);
        v[o + 5] = -con43 * c3c4 * tmp2 * u2;
        v[o + 6] = con43 * c3c4 * tmp1;
        v[o + 10] = -c3c4 * tmp2 * u3;
        v[o + 12] = c3c4 * tmp1;
        v[o + 15] = -c3c4 * tmp2 * u4;
        v[o + 18] = c3c4 * tmp1;
        v[o + 20] = -(con43 * c3c4 - c1345) * tmp3 * (u2 * u2) - (c3c4 - c1345) * tmp3 * (u3 * u3)
                - (c3c4 - c1345) * tmp3 * (u4 * u4) - c1345 * tmp2 * u5;
        v[o + 21] = (con43 * c3c4 - c1345) * tmp2 * u2;
        v[o + 22] = (c3c4 - c1345) * tmp2 * u3;
        v[o + 23] = (c3c4 - c1345) * tmp2 * u4;
        v[o + 24] = c1345 * tmp1;
    }

    private void jacobiansY(double[] u, int at, int o) {
        double u1 = u[at];
        double u2 = u[at + 1];
        double u3 = u[at + 2];
        double u4 = u[at + 3];
        double u5 = u[at + 4];
        double tmp1 = 1.0 / u1;
        double tmp2 = tmp1 * tmp1;
        double tmp3 = tmp1 * tmp2;
        double sq = 0.5 * (u2 * u2 + u3 * u3 + u4 * u4) * tmp1;
        double qs = sq * tmp1;
        double c1 = C1;
        double c2 = C2;
        double c3c4 = co.c3c4;
        double c1345 = co.c1345;
        double con43 = CON43;
        double[] f = fjac;
        f[o] = 0.0;
        f[o + 1] = 0.0;
        f[o + 2] = 1.0;
        f[o + 3] = 0.0;
        f[o + 4] = 0.0;
        f[o + 5] = -(u2 * u3) * tmp2;
        f[o + 6] = u3 * tmp1;
        f[o + 7] = u2 * tmp1;
        f[o + 8] = 0.0;
        f[o + 9] = 0.0;
        f[o + 10] = -(u3 * u3 * tmp2) + c2 * qs;
        f[o + 11] = -c2 * u2 * tmp1;
        f[o + 12] = (2.0 - c2) * u3 * tmp1;
        f[o + 13] = -c2 * u4 * tmp1;
        f[o + 14] = c2;
        f[o + 15] = -(u3 * u4) * tmp2;
        f[o + 16] = 0.0;
        f[o + 17] = u4 * tmp1;
        f[o + 18] = u3 * tmp1;
        f[o + 19] = 0.0;
        f[o + 20] = (c2 * 2.0 * sq - c1 * u5) * u3 * tmp2;
        f[o + 21] = -c2 * u2 * u3 * tmp2;
        f[o + 22] = c1 * u5 * tmp1 - c2 * (qs + u3 * u3 * tmp2);
        f[o + 23] = -c2 * (u3 * u4) * tmp2;
        f[o + 24] = c1 * u3 * tmp1;
        double[] v = njac;
        java.util.Arrays.fill(v, o, o + 25, 0.0);
        v[o + 5] = -c3c4 * tmp2 * u2;
        v[o + 6] = c3c4 * tmp1;
        v[o + 10] = -con43 * c3c4 * tmp2 * u3;
        v[o + 12] = con43 * c3c4 * tmp1;
        v[o + 15] = -c3c4 * tmp2 * u4;
        v[o + 18] = c3c4 * tmp1;
        v[o + 20] = -(c3c4 - c1345) * tmp3 * (u2 * u2) - (con43 * c3c4 - c1345) * tmp3 * (u3 * u3)
                - (c3c4 - c1345) * tmp3 * (u4 * u4) - c1345 * tmp2 * u5;
        v[o + 21] = (c3c4 - c1345) * tmp2 * u2;
        v[o + 22] = (con43 * c3c4 - c1345) * tmp2 * u3;
        v[o + 23] = (c3c4 - c1345) * tmp2 * u4;
        v[o + 24] = c1345 * tmp1;
    }

    private void jacobiansZ(double[] u, int at, int o) {
        double u1 = u[at];
        double u2 = u[at + 1];
        double u3 = u[at + 2];
        double u4 = u[at + 3];
        double u5 = u[at + 4];
        double tmp1 = 1.0 / u1;
        double tmp2 = tmp1 * tmp1;
        double tmp3 = tmp1 * tmp2;
        double sq = 0.5 * (u2 * u2 + u3 * u3 + u4 * u4) * tmp1;
        double qs = sq * tmp1;
        double c1 = C1;
        double c2 = C2;
        double c3c4 = co.c3c4;
        double c1345 = co.c1345;
        double con43 = CON43;
        double[] f = fjac;
        f[o] = 0.0;
        f[o + 1] = 0.0;
        f[o + 2] = 0.0;
        f[o + 3] = 1.0;
        f[o + 4] = 0.0;
        f[o + 5] = -(u2 * u4) * tmp2;
        f[o + 6] = u4 * tmp1;
        f[o + 7] = 0.0;
        f[o + 8] = u2 * tmp1;
        f[o + 9] = 0.0;
        f[o + 10] = -(u3 * u4) * tmp2;
        f[o + 11] = 0.0;
        f[o + 12] = u4 * tmp1;
        f[o + 13] = u3 * tmp1;
        f[o + 14] = 0.0;
        f[o + 15] = -(u4 * u4 * tmp2) + c2 * qs;
        f[o + 16] = -c2 * u2 * tmp1;
        f[o + 17] = -c2 * u3 * tmp1;
        f[o + 18] = (2.0 - c2) * u4 * tmp1;
        f[o + 19] = c2;
        f[o + 20] = (c2 * 2.0 * sq - c1 * u5) * u4 * tmp2;
        f[o + 21] = -c2 * (u2 * u4) * tmp2;
        f[o + 22] = -c2 * (u3 * u4) * tmp2;
        f[o + 23] = c1 * (u5 * tmp1) - c2 * (qs + u4 * u4 * tmp2);
        f[o + 24] = c1 * u4 * tmp1;
        double[] v = njac;
        java.util.Arrays.fill(v, o, o + 25, 0.0);
        v[o + 5] = -c3c4 * tmp2 * u2;
        v[o + 6] = c3c4 * tmp1;
        v[o + 10] = -c3c4 * tmp2 * u3;
        v[o + 12] = c3c4 * tmp1;
        v[o + 15] = -con43 * c3c4 * tmp2 * u4;
        v[o + 18] = con43 * C3 * C4 * tmp1;
        v[o + 20] = -(c3c4 - c1345) * tmp3 * (u2 * u2) - (c3c4 - c1345) * tmp3 * (u3 * u3)
                - (con43 * c3c4 - c1345) * tmp3 * (u4 * u4) - c1345 * tmp2 * u5;
        v[o + 21] = (c3c4 - c1345) * tmp2 * u2;
        v[o + 22] = (c3c4 - c1345) * tmp2 * u3;
        v[o + 23] = (con43 * c3c4 - c1345) * tmp2 * u4;
        v[o + 24] = c1345 * tmp1;
    }
}
