package org.mpirunft.npb.sp;

/**
 * SP's scalar pentadiagonal solves for a batch of parallel lines whose points are consecutive
 * in memory across the batch (the y lines of a k-plane, the z lines of a j-plane, the x lines
 * of a k-plane once transposed: line l's point t at {@code base + t step + l}). The loops run over the batch
 * innermost, so that the JIT vectorises them; per line the arithmetic is the reference's.
 *
 * <p>Per line: the u, u + c and u - c factors (components 0-2, 3 and 4) are pentadiagonal
 * matrices from the velocity along the line, the viscous weight and the speed of sound, plus
 * fourth-order dissipation (one-sided next to the ends); the end points are identity rows (the
 * boundary values are fixed). Gaussian elimination without pivoting, then back substitution.
 */
final class LineBatch {
    private final int n;
    private final int len;
    private final double comz1;
    private final double comz4;
    private final double comz5;
    private final double comz6;
    /** Per point t and line l at t len + l: velocity along the lines, viscous weight, speed of sound. */
    private final double[] cv;
    private final double[] weight;
    private final double[] speed;
    /** Row t, diagonal e of line l at (t 5 + e) len + l. */
    private final double[] lhs;
    private final double[] lhsp;
    private final double[] lhsm;

    /** Batches of {@code len} lines of n points. */
    LineBatch(int n, int len, Constants c) {
        this.n = n;
        this.len = len;
        comz1 = c.comz1;
        comz4 = c.comz4;
        comz5 = c.comz5;
        comz6 = c.comz6;
        cv = new double[n * len];
        weight = new double[n * len];
        speed = new double[n * len];
        lhs = new double[5 * n * len];
        lhsp = new double[5 * n * len];
        lhsm = new double[5 * n * len];
    }

    /**
     * Solves the batch in place in {@code r} (component m of line l's point t at
     * {@code m stride + base + t step + l}), with the lines' velocity, 1/rho and speed of sound
     * read from {@code v}, {@code rhoI}, {@code a} at their base + t step + l; {@code direction}
     * 0, 1 or 2 for x, y or z lines (their viscous weights differ).
     */
    void solve(double[] r, int stride, int base, int step, double[] v, int vBase, double[] rhoI, int rhoBase, double[] a,
               int aBase, int direction, double dtt1, double dtt2, double c2dtt1) {
        int len = this.len;
        for (int t = 0; t < n; t++) {
            int to = t * len;
            System.arraycopy(v, vBase + t * step, cv, to, len);
            System.arraycopy(a, aBase + t * step, speed, to, len);
            int from = rhoBase + t * step;
            if (direction == 0) {
                for (int l = 0; l < len; l++) {
                    weight[to + l] = Constants.xWeight(Constants.C3C4 * rhoI[from + l]);
                }
            } else if (direction == 2) {
                for (int l = 0; l < len; l++) {
                    weight[to + l] = Constants.zWeight(Constants.C3C4 * rhoI[from + l]);
                }
            } else {
                for (int l = 0; l < len; l++) {
                    weight[to + l] = Constants.yWeight(Constants.C3C4 * rhoI[from + l]);
                }
            }
        }
        build(dtt1, dtt2, c2dtt1);
        eliminate(r, stride, base, step);
    }

    private int at(int t, int e) {
        return (t * 5 + e) * len;
    }

    private void build(double dtt1, double dtt2, double c2dtt1) {
        int len = this.len;
        // The end rows: identity.
        for (int e = 0; e < 5; e++) {
            double diagonal = e == 2 ? 1.0 : 0.0;
            for (int t = 0; t < n; t += n - 1) {
                int o = at(t, e);
                for (int l = 0; l < len; l++) {
                    lhs[o + l] = diagonal;
                    lhsp[o + l] = diagonal;
                    lhsm[o + l] = diagonal;
                }
            }
        }
        for (int t = 1; t <= n - 2; t++) {
            int o = at(t, 0);
            int prev = (t - 1) * len;
            int self = t * len;
            int next = (t + 1) * len;
            for (int l = 0; l < len; l++) {
                lhs[o + l] = 0.0;
                lhs[o + len + l] = -dtt2 * cv[prev + l] - dtt1 * weight[prev + l];
                lhs[o + 2 * len + l] = 1.0 + c2dtt1 * weight[self + l];
                lhs[o + 3 * len + l] = dtt2 * cv[next + l] - dtt1 * weight[next + l];
                lhs[o + 4 * len + l] = 0.0;
            }
        }
        add(1, 2, comz5);
        add(1, 3, -comz4);
        add(1, 4, comz1);
        add(2, 1, -comz4);
        add(2, 2, comz6);
        add(2, 3, -comz4);
        add(2, 4, comz1);
        for (int t = 3; t <= n - 4; t++) {
            add(t, 0, comz1);
            add(t, 1, -comz4);
            add(t, 2, comz6);
            add(t, 3, -comz4);
            add(t, 4, comz1);
        }
        add(n - 3, 0, comz1);
        add(n - 3, 1, -comz4);
        add(n - 3, 2, comz6);
        add(n - 3, 3, -comz4);
        add(n - 2, 0, comz1);
        add(n - 2, 1, -comz4);
        add(n - 2, 2, comz5);
        for (int t = 1; t <= n - 2; t++) {
            int o = at(t, 0);
            int prev = (t - 1) * len;
            int next = (t + 1) * len;
            for (int l = 0; l < len; l++) {
                lhsp[o + l] = lhs[o + l];
                lhsp[o + len + l] = lhs[o + len + l] - dtt2 * speed[prev + l];
                lhsp[o + 2 * len + l] = lhs[o + 2 * len + l];
                lhsp[o + 3 * len + l] = lhs[o + 3 * len + l] + dtt2 * speed[next + l];
                lhsp[o + 4 * len + l] = lhs[o + 4 * len + l];
                lhsm[o + l] = lhs[o + l];
                lhsm[o + len + l] = lhs[o + len + l] + dtt2 * speed[prev + l];
                lhsm[o + 2 * len + l] = lhs[o + 2 * len + l];
                lhsm[o + 3 * len + l] = lhs[o + 3 * len + l] - dtt2 * speed[next + l];
                lhsm[o + 4 * len + l] = lhs[o + 4 * len + l];
            }
        }
    }

    /**
     * Adds a dissipation coefficient to diagonal e of row t (a negative one subtracts its
     * magnitude: x - c and x + (-c) are the same double).
     */
    private void add(int t, int e, double value) {
        int o = at(t, e);
        for (int l = 0; l < len; l++) {
            lhs[o + l] = lhs[o + l] + value;
        }
    }

    private void eliminate(double[] r, int stride, int base, int step) {
        int len = this.len;
        double[] lhs = this.lhs;
        for (int t = 0; t <= n - 3; t++) {
            int a = at(t, 0);
            int b = at(t + 1, 0);
            int c = at(t + 2, 0);
            int r0 = base + t * step;
            for (int l = 0; l < len; l++) {
                double fac1 = 1.0 / lhs[a + 2 * len + l];
                lhs[a + 3 * len + l] = fac1 * lhs[a + 3 * len + l];
                lhs[a + 4 * len + l] = fac1 * lhs[a + 4 * len + l];
                lhs[b + 2 * len + l] = lhs[b + 2 * len + l] - lhs[b + len + l] * lhs[a + 3 * len + l];
                lhs[b + 3 * len + l] = lhs[b + 3 * len + l] - lhs[b + len + l] * lhs[a + 4 * len + l];
                lhs[c + len + l] = lhs[c + len + l] - lhs[c + l] * lhs[a + 3 * len + l];
                lhs[c + 2 * len + l] = lhs[c + 2 * len + l] - lhs[c + l] * lhs[a + 4 * len + l];
                for (int m = 0; m < 3; m++) {
                    int q = m * stride + r0 + l;
                    double rt = fac1 * r[q];
                    r[q] = rt;
                    r[q + step] = r[q + step] - lhs[b + len + l] * rt;
                    r[q + 2 * step] = r[q + 2 * step] - lhs[c + l] * rt;
                }
            }
        }
        int t = n - 2;
        int a = at(t, 0);
        int b = at(t + 1, 0);
        int r0 = base + t * step;
        for (int l = 0; l < len; l++) {
            double fac1 = 1.0 / lhs[a + 2 * len + l];
            lhs[a + 3 * len + l] = fac1 * lhs[a + 3 * len + l];
            lhs[a + 4 * len + l] = fac1 * lhs[a + 4 * len + l];
            lhs[b + 2 * len + l] = lhs[b + 2 * len + l] - lhs[b + len + l] * lhs[a + 3 * len + l];
            lhs[b + 3 * len + l] = lhs[b + 3 * len + l] - lhs[b + len + l] * lhs[a + 4 * len + l];
            double fac2 = 1.0 / lhs[b + 2 * len + l];
            for (int m = 0; m < 3; m++) {
                int q = m * stride + r0 + l;
                double rt = fac1 * r[q];
                r[q] = rt;
                r[q + step] = fac2 * (r[q + step] - lhs[b + len + l] * rt);
            }
        }
        forward(lhsp, r, 3 * stride + base, step);
        forward(lhsm, r, 4 * stride + base, step);
        for (int l = 0; l < len; l++) {
            for (int m = 0; m < 3; m++) {
                int q = m * stride + r0 + l;
                r[q] = r[q] - lhs[a + 3 * len + l] * r[q + step];
            }
            int q = 3 * stride + r0 + l;
            r[q] = r[q] - lhsp[a + 3 * len + l] * r[q + step];
            q = 4 * stride + r0 + l;
            r[q] = r[q] - lhsm[a + 3 * len + l] * r[q + step];
        }
        for (t = n - 3; t >= 0; t--) {
            a = at(t, 0);
            r0 = base + t * step;
            for (int l = 0; l < len; l++) {
                for (int m = 0; m < 3; m++) {
                    int q = m * stride + r0 + l;
                    r[q] = r[q] - lhs[a + 3 * len + l] * r[q + step] - lhs[a + 4 * len + l] * r[q + 2 * step];
                }
                int q = 3 * stride + r0 + l;
                r[q] = r[q] - lhsp[a + 3 * len + l] * r[q + step] - lhsp[a + 4 * len + l] * r[q + 2 * step];
                q = 4 * stride + r0 + l;
                r[q] = r[q] - lhsm[a + 3 * len + l] * r[q + step] - lhsm[a + 4 * len + l] * r[q + 2 * step];
            }
        }
    }

    /** Forward elimination of one component (line l's point t at {@code base + t step + l}) with its own matrix; the last row divided, as in the reference. */
    private void forward(double[] lm, double[] r, int base, int step) {
        int len = this.len;
        for (int t = 0; t <= n - 3; t++) {
            int a = at(t, 0);
            int b = at(t + 1, 0);
            int c = at(t + 2, 0);
            int r0 = base + t * step;
            for (int l = 0; l < len; l++) {
                double fac1 = 1.0 / lm[a + 2 * len + l];
                lm[a + 3 * len + l] = fac1 * lm[a + 3 * len + l];
                lm[a + 4 * len + l] = fac1 * lm[a + 4 * len + l];
                int q = r0 + l;
                double rt = fac1 * r[q];
                r[q] = rt;
                lm[b + 2 * len + l] = lm[b + 2 * len + l] - lm[b + len + l] * lm[a + 3 * len + l];
                lm[b + 3 * len + l] = lm[b + 3 * len + l] - lm[b + len + l] * lm[a + 4 * len + l];
                r[q + step] = r[q + step] - lm[b + len + l] * rt;
                lm[c + len + l] = lm[c + len + l] - lm[c + l] * lm[a + 3 * len + l];
                lm[c + 2 * len + l] = lm[c + 2 * len + l] - lm[c + l] * lm[a + 4 * len + l];
                r[q + 2 * step] = r[q + 2 * step] - lm[c + l] * rt;
            }
        }
        int t = n - 2;
        int a = at(t, 0);
        int b = at(t + 1, 0);
        int r0 = base + t * step;
        for (int l = 0; l < len; l++) {
            double fac1 = 1.0 / lm[a + 2 * len + l];
            lm[a + 3 * len + l] = fac1 * lm[a + 3 * len + l];
            lm[a + 4 * len + l] = fac1 * lm[a + 4 * len + l];
            int q = r0 + l;
            double rt = fac1 * r[q];
            r[q] = rt;
            lm[b + 2 * len + l] = lm[b + 2 * len + l] - lm[b + len + l] * lm[a + 3 * len + l];
            lm[b + 3 * len + l] = lm[b + 3 * len + l] - lm[b + len + l] * lm[a + 4 * len + l];
            r[q + step] = (r[q + step] - lm[b + len + l] * rt) / lm[b + 2 * len + l];
        }
    }
}
