package org.mpirunft.npb.mg;

import java.util.Arrays;

/**
 * MG's four operators on one rank's part of a level (NAS RNR-94-007, kernel MG). Each is a
 * 27-point stencil whose coefficient depends only on how many coordinates of a neighbour
 * differ from the centre: c0 the centre, c1 the 6 faces, c2 the 12 edges, c3 the 8 corners.
 *
 * <ul>
 *   <li>A, the residual operator: -8/3, 0, 1/6, 1/12.</li>
 *   <li>S, the smoother: -3/8, 1/32, -1/64, 0 for classes S, W and A; -3/17, 1/33, -1/61, 0
 *       for B and C.</li>
 *   <li>P, the restriction (fine to coarse): 1/2, 1/4, 1/8, 1/16.</li>
 *   <li>Q, the prolongation (coarse to fine, trilinear): 1, 1/2, 1/4, 1/8.</li>
 * </ul>
 *
 * <p>Coarse point I sits on fine point 2I + 1 in every dimension. The operators only write
 * interior points (except the prolongation, which also touches halos) and read halos, so a
 * {@link Halo} update must follow before the result is read by another stencil.
 *
 * <p>All of them sweep x-rows and first sum the four y/z faces ({@code faces}) and four y/z
 * diagonals ({@code diagonals}) of the row's neighbours into line buffers; the 6 faces of
 * point i are then x(i-1) + x(i+1) + faces(i), the 12 edges faces(i-1) + faces(i+1) +
 * diagonals(i), the 8 corners diagonals(i-1) + diagonals(i+1). That saves most additions,
 * and the inner loops stay flat.
 */
final class Stencils {
    static final double A0 = -8.0 / 3.0;
    static final double A2 = 1.0 / 6.0;
    static final double A3 = 1.0 / 12.0;
    static final double P0 = 0.5;
    static final double P1 = 0.25;
    static final double P2 = 0.125;
    static final double P3 = 0.0625;

    private final double[] faces;
    private final double[] diagonals;
    private final double[] faces2;

    /** Line buffers for rows of up to {@code maxRow} points, halos included. */
    Stencils(int maxRow) {
        faces = new double[maxRow];
        diagonals = new double[maxRow];
        faces2 = new double[maxRow];
    }

    /**
     * r = v - A u on {@code level}, where v has the level's geometry at {@code vShift} from
     * the level's own offset (so v may be r itself: every r point depends on v at that point
     * only). A's face coefficient is 0, so faces do not appear.
     */
    void residual(Level level, double[] u, double[] v, int vShift, double[] r) {
        int n = level.n();
        int sx = level.sx();
        int plane = level.plane();
        double[] f = faces;
        double[] d = diagonals;
        for (int l = 0; l < level.nz(); l++) {
            for (int j = 0; j < n; j++) {
                int row = level.at(-1, j, l);
                lineSums(u, row, sx, plane, f, d);
                for (int i = 1; i <= n; i++) {
                    int p = row + i;
                    r[p] = v[p + vShift] - A0 * u[p] - A2 * (d[i] + f[i - 1] + f[i + 1]) - A3 * (d[i - 1] + d[i + 1]);
                }
            }
        }
    }

    /** u = u + S r on {@code level}; {@code c} holds S's four coefficients, the corner one 0. */
    void smooth(Level level, double[] r, double[] u, double[] c) {
        int n = level.n();
        int sx = level.sx();
        int plane = level.plane();
        double c0 = c[0];
        double c1 = c[1];
        double c2 = c[2];
        double[] f = faces;
        double[] d = diagonals;
        for (int l = 0; l < level.nz(); l++) {
            for (int j = 0; j < n; j++) {
                int row = level.at(-1, j, l);
                lineSums(r, row, sx, plane, f, d);
                for (int i = 1; i <= n; i++) {
                    int p = row + i;
                    u[p] += c0 * r[p] + c1 * (r[p - 1] + r[p + 1] + f[i]) + c2 * (d[i] + f[i - 1] + f[i + 1]);
                }
            }
        }
    }

    /**
     * coarse = P fine: {@code planes} coarse planes, coarse plane K from fine plane 2K + 1
     * (local indices), written at coarse plane K + {@code coarseShift}.
     */
    void restrict(Level fine, double[] r, Level coarse, int planes, int coarseShift) {
        int nc = coarse.n();
        int sx = fine.sx();
        int plane = fine.plane();
        double[] f = faces;
        double[] d = diagonals;
        for (int kc = 0; kc < planes; kc++) {
            for (int jc = 0; jc < nc; jc++) {
                int row = fine.at(-1, 2 * jc + 1, 2 * kc + 1);
                lineSums(r, row, sx, plane, f, d);
                int out = coarse.at(0, jc, kc + coarseShift);
                for (int ic = 0; ic < nc; ic++) {
                    int i = 2 * ic + 2;
                    int p = row + i;
                    r[out + ic] = P0 * r[p]
                            + P1 * (r[p - 1] + r[p + 1] + f[i])
                            + P2 * (f[i - 1] + f[i + 1] + d[i])
                            + P3 * (d[i - 1] + d[i + 1]);
                }
            }
        }
    }

    /**
     * fine = fine + Q coarse, over the fine level's planes; coarse plane K (local) is read at
     * K + {@code coarseShift}. Works cell by cell of the coarse grid, from the halo cell below
     * up, so each fine point gets the sum of its coarse neighbours' weighted values: 1 on a
     * coarse point, 1/2 between two, 1/4 between four, 1/8 between eight. Fine halos are
     * written too, and must be refreshed before use.
     */
    void prolong(Level coarse, double[] z, int coarseShift, Level fine, double[] u) {
        int nc = coarse.n();
        int csx = coarse.sx();
        int cplane = coarse.plane();
        double[] zy = faces;
        double[] zz = diagonals;
        double[] zyz = faces2;
        for (int kc = -1; kc < fine.nz() / 2; kc++) {
            for (int jc = -1; jc < nc; jc++) {
                int c = coarse.at(-1, jc, kc + coarseShift);
                for (int i = 0; i <= nc + 1; i++) {
                    zy[i] = z[c + csx + i] + z[c + i];
                    zz[i] = z[c + cplane + i] + z[c + i];
                    zyz[i] = z[c + cplane + csx + i] + z[c + cplane + i] + zy[i];
                }
                int rowA = fine.at(-1, 2 * jc + 1, 2 * kc + 1);
                int rowB = fine.at(-1, 2 * jc + 2, 2 * kc + 1);
                int rowC = fine.at(-1, 2 * jc + 1, 2 * kc + 2);
                int rowD = fine.at(-1, 2 * jc + 2, 2 * kc + 2);
                // Coarse x index ic = i - 1 lands on fine x 2 ic + 1, at offset 2 i in a row.
                for (int i = 0; i <= nc; i++) {
                    int e = 2 * i;
                    u[rowA + e] += z[c + i];
                    u[rowA + e + 1] += 0.5 * (z[c + i + 1] + z[c + i]);
                    u[rowB + e] += 0.5 * zy[i];
                    u[rowB + e + 1] += 0.25 * (zy[i] + zy[i + 1]);
                    u[rowC + e] += 0.5 * zz[i];
                    u[rowC + e + 1] += 0.25 * (zz[i] + zz[i + 1]);
                    u[rowD + e] += 0.25 * zyz[i];
                    u[rowD + e + 1] += 0.125 * (zyz[i] + zyz[i + 1]);
                }
            }
        }
    }

    /** This rank's sum of squares and largest magnitude over the level's interior. */
    static double[] norms(Level level, double[] r) {
        int n = level.n();
        double sum = 0;
        double max = 0;
        for (int l = 0; l < level.nz(); l++) {
            for (int j = 0; j < n; j++) {
                int row = level.at(0, j, l);
                for (int i = 0; i < n; i++) {
                    double x = r[row + i];
                    sum += x * x;
                    max = Math.max(max, Math.abs(x));
                }
            }
        }
        return new double[] {sum, max};
    }

    /** Zeroes a level, halos included. */
    static void zero(Level level, double[] a) {
        Arrays.fill(a, level.offset(), level.offset() + level.size(), 0.0);
    }

    /** For the row starting at {@code row} (its x halo): sums of the 4 y/z faces and 4 y/z diagonals per x. */
    private static void lineSums(double[] a, int row, int sx, int plane, double[] f, double[] d) {
        int south = row - sx;
        int north = row + sx;
        int below = row - plane;
        int above = row + plane;
        for (int i = 0; i < sx; i++) {
            f[i] = a[south + i] + a[north + i] + a[below + i] + a[above + i];
            d[i] = a[south - plane + i] + a[north - plane + i] + a[south + plane + i] + a[north + plane + i];
        }
    }
}
