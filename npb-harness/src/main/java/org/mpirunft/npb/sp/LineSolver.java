package org.mpirunft.npb.sp;

/**
 * The scalar pentadiagonal solve along one grid line of n points, shared by the x, y and z
 * factors. The caller fills the line's velocity along it ({@link #cv}), the viscous weight
 * ({@link #weight}), the speed of sound ({@link #speed}) and the five right-hand sides
 * ({@link #r}, component m at {@code m n + i}); {@link #solve} builds the three matrices (for
 * the u, u + c and u - c eigenvalues: components 0-2, 3 and 4) and overwrites r with the
 * solution. The end points are identity rows (fixed boundary values).
 */
final class LineSolver {
    private final int n;
    final double[] cv;
    final double[] weight;
    final double[] speed;
    final double[] r;
    /** Row i of a matrix at [5 i .. 5 i + 4]: the diagonals from i - 2 to i + 2. */
    private final double[] lhs;
    private final double[] lhsp;
    private final double[] lhsm;
    private final double comz1;
    private final double comz4;
    private final double comz5;
    private final double comz6;

    LineSolver(int n, Constants c) {
        this.n = n;
        cv = new double[n];
        weight = new double[n];
        speed = new double[n];
        r = new double[5 * n];
        lhs = new double[5 * n];
        lhsp = new double[5 * n];
        lhsm = new double[5 * n];
        comz1 = c.comz1;
        comz4 = c.comz4;
        comz5 = c.comz5;
        comz6 = c.comz6;
    }

    /** Builds the matrices with this direction's dt t1, dt t2 and 2 dt t1, then solves. */
    void solve(double dtt1, double dtt2, double c2dtt1) {
        build(dtt1, dtt2, c2dtt1);
        eliminate();
    }

    private void build(double dtt1, double dtt2, double c2dtt1) {
        int last = (n - 1) * 5;
        for (int e = 0; e < 5; e++) {
            lhs[e] = 0.0;
            lhs[last + e] = 0.0;
            lhsp[e] = 0.0;
            lhsp[last + e] = 0.0;
            lhsm[e] = 0.0;
            lhsm[last + e] = 0.0;
        }
        lhs[2] = 1.0;
        lhs[last + 2] = 1.0;
        lhsp[2] = 1.0;
        lhsp[last + 2] = 1.0;
        lhsm[2] = 1.0;
        lhsm[last + 2] = 1.0;
        for (int i = 1; i <= n - 2; i++) {
            int b = i * 5;
            lhs[b] = 0.0;
            lhs[b + 1] = -dtt2 * cv[i - 1] - dtt1 * weight[i - 1];
            lhs[b + 2] = 1.0 + c2dtt1 * weight[i];
            lhs[b + 3] = dtt2 * cv[i + 1] - dtt1 * weight[i + 1];
            lhs[b + 4] = 0.0;
        }
        // Fourth-order dissipation, one-sided next to the ends.
        lhs[5 + 2] = lhs[5 + 2] + comz5;
        lhs[5 + 3] = lhs[5 + 3] - comz4;
        lhs[5 + 4] = lhs[5 + 4] + comz1;
        lhs[10 + 1] = lhs[10 + 1] - comz4;
        lhs[10 + 2] = lhs[10 + 2] + comz6;
        lhs[10 + 3] = lhs[10 + 3] - comz4;
        lhs[10 + 4] = lhs[10 + 4] + comz1;
        for (int i = 3; i <= n - 4; i++) {
            int b = i * 5;
            lhs[b] = lhs[b] + comz1;
            lhs[b + 1] = lhs[b + 1] - comz4;
            lhs[b + 2] = lhs[b + 2] + comz6;
            lhs[b + 3] = lhs[b + 3] - comz4;
            lhs[b + 4] = lhs[b + 4] + comz1;
        }
        int b = (n - 3) * 5;
        lhs[b] = lhs[b] + comz1;
        lhs[b + 1] = lhs[b + 1] - comz4;
        lhs[b + 2] = lhs[b + 2] + comz6;
        lhs[b + 3] = lhs[b + 3] - comz4;
        b = (n - 2) * 5;
        lhs[b] = lhs[b] + comz1;
        lhs[b + 1] = lhs[b + 1] - comz4;
        lhs[b + 2] = lhs[b + 2] + comz5;
        // The u + c and u - c factors differ from the u factor by the speed of sound.
        for (int i = 1; i <= n - 2; i++) {
            int a = i * 5;
            lhsp[a] = lhs[a];
            lhsp[a + 1] = lhs[a + 1] - dtt2 * speed[i - 1];
            lhsp[a + 2] = lhs[a + 2];
            lhsp[a + 3] = lhs[a + 3] + dtt2 * speed[i + 1];
            lhsp[a + 4] = lhs[a + 4];
            lhsm[a] = lhs[a];
            lhsm[a + 1] = lhs[a + 1] + dtt2 * speed[i - 1];
            lhsm[a + 2] = lhs[a + 2];
            lhsm[a + 3] = lhs[a + 3] - dtt2 * speed[i + 1];
            lhsm[a + 4] = lhs[a + 4];
        }
    }

    /** Gaussian elimination without pivoting, then back substitution (the Thomas algorithm for five diagonals). */
    private void eliminate() {
        int n = this.n;
        double[] r = this.r;
        double[] lhs = this.lhs;
        for (int i = 0; i <= n - 3; i++) {
            int a = i * 5;
            int b = a + 5;
            int c = a + 10;
            double fac1 = 1.0 / lhs[a + 2];
            lhs[a + 3] = fac1 * lhs[a + 3];
            lhs[a + 4] = fac1 * lhs[a + 4];
            for (int m = 0; m < 3; m++) {
                r[m * n + i] = fac1 * r[m * n + i];
            }
            lhs[b + 2] = lhs[b + 2] - lhs[b + 1] * lhs[a + 3];
            lhs[b + 3] = lhs[b + 3] - lhs[b + 1] * lhs[a + 4];
            for (int m = 0; m < 3; m++) {
                r[m * n + i + 1] = r[m * n + i + 1] - lhs[b + 1] * r[m * n + i];
            }
            lhs[c + 1] = lhs[c + 1] - lhs[c] * lhs[a + 3];
            lhs[c + 2] = lhs[c + 2] - lhs[c] * lhs[a + 4];
            for (int m = 0; m < 3; m++) {
                r[m * n + i + 2] = r[m * n + i + 2] - lhs[c] * r[m * n + i];
            }
        }
        int i = n - 2;
        int a = i * 5;
        int b = a + 5;
        double fac1 = 1.0 / lhs[a + 2];
        lhs[a + 3] = fac1 * lhs[a + 3];
        lhs[a + 4] = fac1 * lhs[a + 4];
        for (int m = 0; m < 3; m++) {
            r[m * n + i] = fac1 * r[m * n + i];
        }
        lhs[b + 2] = lhs[b + 2] - lhs[b + 1] * lhs[a + 3];
        lhs[b + 3] = lhs[b + 3] - lhs[b + 1] * lhs[a + 4];
        for (int m = 0; m < 3; m++) {
            r[m * n + i + 1] = r[m * n + i + 1] - lhs[b + 1] * r[m * n + i];
        }
        double fac2 = 1.0 / lhs[b + 2];
        for (int m = 0; m < 3; m++) {
            r[m * n + i + 1] = fac2 * r[m * n + i + 1];
        }
        forward(lhsp, 3);
        forward(lhsm, 4);

        for (int m = 0; m < 3; m++) {
            r[m * n + i] = r[m * n + i] - lhs[a + 3] * r[m * n + i + 1];
        }
        r[3 * n + i] = r[3 * n + i] - lhsp[a + 3] * r[3 * n + i + 1];
        r[4 * n + i] = r[4 * n + i] - lhsm[a + 3] * r[4 * n + i + 1];
        for (i = n - 3; i >= 0; i--) {
            a = i * 5;
            for (int m = 0; m < 3; m++) {
                int q = m * n + i;
                r[q] = r[q] - lhs[a + 3] * r[q + 1] - lhs[a + 4] * r[q + 2];
            }
            int q = 3 * n + i;
            r[q] = r[q] - lhsp[a + 3] * r[q + 1] - lhsp[a + 4] * r[q + 2];
            q = 4 * n + i;
            r[q] = r[q] - lhsm[a + 3] * r[q + 1] - lhsm[a + 4] * r[q + 2];
        }
    }

    /** Forward elimination of component m with its own matrix l; the last row is divided, not multiplied by a reciprocal, as in the reference. */
    private void forward(double[] l, int m) {
        int n = this.n;
        double[] r = this.r;
        int o = m * n;
        for (int i = 0; i <= n - 3; i++) {
            int a = i * 5;
            int b = a + 5;
            int c = a + 10;
            double fac1 = 1.0 / l[a + 2];
            l[a + 3] = fac1 * l[a + 3];
            l[a + 4] = fac1 * l[a + 4];
            r[o + i] = fac1 * r[o + i];
            l[b + 2] = l[b + 2] - l[b + 1] * l[a + 3];
            l[b + 3] = l[b + 3] - l[b + 1] * l[a + 4];
            r[o + i + 1] = r[o + i + 1] - l[b + 1] * r[o + i];
            l[c + 1] = l[c + 1] - l[c] * l[a + 3];
            l[c + 2] = l[c + 2] - l[c] * l[a + 4];
            r[o + i + 2] = r[o + i + 2] - l[c] * r[o + i];
        }
        int i = n - 2;
        int a = i * 5;
        int b = a + 5;
        double fac1 = 1.0 / l[a + 2];
        l[a + 3] = fac1 * l[a + 3];
        l[a + 4] = fac1 * l[a + 4];
        r[o + i] = fac1 * r[o + i];
        l[b + 2] = l[b + 2] - l[b + 1] * l[a + 3];
        l[b + 3] = l[b + 3] - l[b + 1] * l[a + 4];
        r[o + i + 1] = r[o + i + 1] - l[b + 1] * r[o + i];
        r[o + i + 1] = r[o + i + 1] / l[b + 2];
    }
}
