package org.mpirunft.npb.sp;

import static org.mpirunft.npb.NavierStokes.C2;
import static org.mpirunft.npb.sp.Constants.BT;
import static org.mpirunft.npb.sp.Constants.C2IV;

import mpi.MPIException;
import org.mpirunft.npb.SlabComm;

/**
 * One rank's part of SP's time step (NPB's adi): compute_rhs, txinvr, the x solve and ninvr,
 * the y solve and pinvr, the z solve and tzetar, add. The x and y lines lie within the rank's
 * k-planes. For the z lines, rhs and the three fields the z factors need (w, 1/rho, the speed
 * of sound) are transposed to j-planes with one all-to-all of equal blocks (padded to the
 * largest slab), solved along k, and rhs is transposed back.
 *
 * <p>u (ghosted layout) is the only state carried from one step to the next; everything else
 * is recomputed from it in each step or is constant (the forcing).
 */
final class Adi {
    /** Fields sent to the j-planes for the z solve: rhs (5), w, 1/rho, speed of sound. */
    private static final int Z_FIELDS = 8;

    final Slab slab;
    final Constants c;
    /** The solution, five components, ghosted layout. */
    final double[] u;
    final RightHandSide rhs;
    /** Scratch for one k-plane's x lines, transposed: rhs (5), u, 1/rho, speed of sound. */
    private final double[] across;
    private final LineBatch batch;
    private final double[] toUp;
    private final double[] toDown;
    private final double[] fromUp;
    private final double[] fromDown;
    /** The z solve's fields on this rank's j-planes: [field][j - first][k][i]. */
    private final double[] lines;
    private final double[] sendOut;
    private final double[] receiveOut;
    private final double[] sendBack;
    private final double[] receiveBack;
    private final int blockOut;
    private final int blockBack;

    Adi(Slab slab, Constants c) {
        this.slab = slab;
        this.c = c;
        int n = slab.n;
        u = new double[5 * slab.ghostedStride()];
        ExactSolution.initialize(slab, c, u);
        rhs = new RightHandSide(slab, c);
        across = new double[8 * n * (n - 2)];
        batch = new LineBatch(n, n - 2, c);
        int halo = 5 * Slab.GHOSTS * slab.plane;
        toUp = new double[halo];
        toDown = new double[halo];
        fromUp = new double[halo];
        fromDown = new double[halo];
        lines = new double[Z_FIELDS * slab.count * n * n];
        blockOut = Z_FIELDS * slab.maxCount * slab.maxCount * n;
        blockBack = 5 * slab.maxCount * slab.maxCount * n;
        sendOut = new double[slab.size * blockOut];
        receiveOut = new double[slab.size * blockOut];
        sendBack = new double[slab.size * blockBack];
        receiveBack = new double[slab.size * blockBack];
    }

    /** One time step. */
    void step(SlabComm comm) throws MPIException {
        computeRhs(comm);
        txinvr();
        xSolve();
        ySolve();
        zSolve(comm);
        add();
    }

    /** Fills u's ghost planes from the neighbours, then computes rhs. */
    void computeRhs(SlabComm comm) throws MPIException {
        exchangeGhosts(comm);
        rhs.compute(u);
    }

    /**
     * NPB's verification norms after the last step: the RMS error against the exact solution
     * (components 0-4) and the RMS of a fresh rhs divided by dt (5-9), summed over all ranks.
     */
    double[] norms(SlabComm comm) throws MPIException {
        double[] sums = new double[10];
        double[] error = ExactSolution.errorSums(slab, c, u);
        computeRhs(comm);
        System.arraycopy(error, 0, sums, 0, 5);
        int n = slab.n;
        int rs = slab.ownedStride();
        int kFrom = Math.max(1, slab.first);
        int kTo = Math.min(n - 2, slab.end() - 1);
        for (int k = kFrom; k <= kTo; k++) {
            for (int j = 1; j <= n - 2; j++) {
                int q = slab.owned(k) + j * n;
                for (int i = 1; i <= n - 2; i++) {
                    for (int m = 0; m < 5; m++) {
                        double add = rhs.rhs[m * rs + q + i];
                        sums[5 + m] = sums[5 + m] + add * add;
                    }
                }
            }
        }
        comm.sum(sums);
        for (int m = 0; m < 10; m++) {
            for (int d = 0; d < 3; d++) {
                sums[m] = sums[m] / (double) (n - 2);
            }
            sums[m] = Math.sqrt(sums[m]);
        }
        for (int m = 5; m < 10; m++) {
            sums[m] = sums[m] / c.dt;
        }
        return sums;
    }

    private void exchangeGhosts(SlabComm comm) throws MPIException {
        if (slab.size == 1) {
            return;
        }
        int s = slab.ghostedStride();
        int span = Slab.GHOSTS * slab.plane;
        for (int m = 0; m < 5; m++) {
            System.arraycopy(u, m * s + slab.ghosted(slab.first), toDown, m * span, span);
            System.arraycopy(u, m * s + slab.ghosted(slab.end() - Slab.GHOSTS), toUp, m * span, span);
        }
        comm.exchangeGhosts(toUp, fromDown, toDown, fromUp, toUp.length);
        for (int m = 0; m < 5; m++) {
            if (slab.rank > 0) {
                System.arraycopy(fromDown, m * span, u, m * s + slab.ghosted(slab.first - Slab.GHOSTS), span);
            }
            if (slab.rank < slab.size - 1) {
                System.arraycopy(fromUp, m * span, u, m * s + slab.ghosted(slab.end()), span);
            }
        }
    }

    private int interiorFrom() {
        return Math.max(1, slab.first);
    }

    private int interiorTo() {
        return Math.min(slab.n - 2, slab.end() - 1);
    }

    /** rhs times the inverse of the x eigenvector matrix, pointwise. */
    private void txinvr() {
        int n = slab.n;
        int rs = slab.ownedStride();
        double[] r = rhs.rhs;
        for (int k = interiorFrom(); k <= interiorTo(); k++) {
            for (int j = 1; j <= n - 2; j++) {
                int g0 = slab.ghosted(k) + j * n;
                int q0 = slab.owned(k) + j * n;
                for (int i = 1; i <= n - 2; i++) {
                    int g = g0 + i;
                    int q = q0 + i;
                    double ru1 = rhs.rhoI[g];
                    double uu = rhs.us[g];
                    double vv = rhs.vs[g];
                    double ww = rhs.ws[g];
                    double ac = rhs.speed[g];
                    double ac2inv = ac * ac;
                    double r1 = r[q];
                    double r2 = r[q + rs];
                    double r3 = r[q + 2 * rs];
                    double r4 = r[q + 3 * rs];
                    double r5 = r[q + 4 * rs];
                    double t1 = C2 / ac2inv * (rhs.qs[g] * r1 - uu * r2 - vv * r3 - ww * r4 + r5);
                    double t2 = BT * ru1 * (uu * r1 - r2);
                    double t3 = (BT * ru1 * ac) * t1;
                    r[q] = r1 - t1;
                    r[q + rs] = -ru1 * (ww * r1 - r4);
                    r[q + 2 * rs] = ru1 * (vv * r1 - r3);
                    r[q + 3 * rs] = -t2 + t3;
                    r[q + 4 * rs] = t2 + t3;
                }
            }
        }
    }

    private void xSolve() {
        int n = slab.n;
        int rs = slab.ownedStride();
        double[] r = rhs.rhs;
        int len = n - 2;
        int field = n * len;
        double[] t = across;
        for (int k = interiorFrom(); k <= interiorTo(); k++) {
            // Plane k's x lines (j = 1..n-2) transposed side by side: [field][i][j - 1].
            int g0 = slab.ghosted(k);
            int q0 = slab.owned(k);
            for (int j = 1; j <= n - 2; j++) {
                int l = j - 1;
                for (int i = 0; i < n; i++) {
                    int g = g0 + j * n + i;
                    int o = i * len + l;
                    t[o] = r[q0 + j * n + i];
                    t[field + o] = r[rs + q0 + j * n + i];
                    t[2 * field + o] = r[2 * rs + q0 + j * n + i];
                    t[3 * field + o] = r[3 * rs + q0 + j * n + i];
                    t[4 * field + o] = r[4 * rs + q0 + j * n + i];
                    t[5 * field + o] = rhs.us[g];
                    t[6 * field + o] = rhs.rhoI[g];
                    t[7 * field + o] = rhs.speed[g];
                }
            }
            batch.solve(t, field, 0, len, t, 5 * field, t, 6 * field, t, 7 * field, 0, c.dtt1x, c.dtt2x, c.c2dtt1x);
            for (int j = 1; j <= n - 2; j++) {
                int l = j - 1;
                for (int m = 0; m < 5; m++) {
                    int q = m * rs + q0 + j * n;
                    int o = m * field + l;
                    for (int i = 0; i < n; i++) {
                        r[q + i] = t[o + i * len];
                    }
                }
            }
        }
        // ninvr: rhs times the inverse of the x-y eigenvector transition matrix.
        for (int k = interiorFrom(); k <= interiorTo(); k++) {
            for (int j = 1; j <= n - 2; j++) {
                int q0 = slab.owned(k) + j * n;
                for (int i = 1; i <= n - 2; i++) {
                    int q = q0 + i;
                    double r1 = r[q];
                    double r2 = r[q + rs];
                    double r3 = r[q + 2 * rs];
                    double r4 = r[q + 3 * rs];
                    double r5 = r[q + 4 * rs];
                    double t1 = BT * r3;
                    double t2 = 0.5 * (r4 + r5);
                    r[q] = -r2;
                    r[q + rs] = r1;
                    r[q + 2 * rs] = BT * (r4 - r5);
                    r[q + 3 * rs] = -t1 + t2;
                    r[q + 4 * rs] = t1 + t2;
                }
            }
        }
    }

    private void ySolve() {
        int n = slab.n;
        int rs = slab.ownedStride();
        double[] r = rhs.rhs;
        for (int k = interiorFrom(); k <= interiorTo(); k++) {
            // The y lines of plane k, i = 1..n-2, side by side.
            int g = slab.ghosted(k) + 1;
            batch.solve(r, rs, slab.owned(k) + 1, n, rhs.vs, g, rhs.rhoI, g, rhs.speed, g, 1, c.dtt1y, c.dtt2y, c.c2dtt1y);
        }
        // pinvr: rhs times the inverse of the y-z eigenvector transition matrix.
        for (int k = interiorFrom(); k <= interiorTo(); k++) {
            for (int j = 1; j <= n - 2; j++) {
                int q0 = slab.owned(k) + j * n;
                for (int i = 1; i <= n - 2; i++) {
                    int q = q0 + i;
                    double r1 = r[q];
                    double r2 = r[q + rs];
                    double r3 = r[q + 2 * rs];
                    double r4 = r[q + 3 * rs];
                    double r5 = r[q + 4 * rs];
                    double t1 = BT * r1;
                    double t2 = 0.5 * (r4 + r5);
                    r[q] = BT * (r4 - r5);
                    r[q + rs] = -r3;
                    r[q + 2 * rs] = r2;
                    r[q + 3 * rs] = -t1 + t2;
                    r[q + 4 * rs] = t1 + t2;
                }
            }
        }
    }

    private void zSolve(SlabComm comm) throws MPIException {
        int n = slab.n;
        int rs = slab.ownedStride();
        int max = slab.maxCount;
        double[] r = rhs.rhs;
        // Out: for each destination d, my k-planes x d's j-planes x all i, per field.
        for (int d = 0; d < slab.size; d++) {
            int jFirst = Slab.first(n, slab.size, d);
            int jCount = Slab.count(n, slab.size, d);
            for (int f = 0; f < Z_FIELDS; f++) {
                for (int kk = 0; kk < slab.count; kk++) {
                    int k = slab.first + kk;
                    double[] src;
                    int base;
                    if (f < 5) {
                        src = r;
                        base = f * rs + slab.owned(k);
                    } else {
                        src = f == 5 ? rhs.ws : f == 6 ? rhs.rhoI : rhs.speed;
                        base = slab.ghosted(k);
                    }
                    for (int jj = 0; jj < jCount; jj++) {
                        System.arraycopy(src, base + (jFirst + jj) * n, sendOut, d * blockOut + ((f * max + kk) * max + jj) * n, n);
                    }
                }
            }
        }
        comm.allToAll(sendOut, receiveOut, blockOut);
        for (int s = 0; s < slab.size; s++) {
            int kFirst = Slab.first(n, slab.size, s);
            int kCount = Slab.count(n, slab.size, s);
            for (int f = 0; f < Z_FIELDS; f++) {
                for (int kk = 0; kk < kCount; kk++) {
                    for (int jj = 0; jj < slab.count; jj++) {
                        System.arraycopy(receiveOut, s * blockOut + ((f * max + kk) * max + jj) * n,
                                lines, ((f * slab.count + jj) * n + kFirst + kk) * n, n);
                    }
                }
            }
        }
        int field = slab.count * n * n;
        for (int jj = 0; jj < slab.count; jj++) {
            int j = slab.first + jj;
            if (j < 1 || j > n - 2) {
                continue;
            }
            // The z lines of plane j, i = 1..n-2, side by side: [field][jj][k][i].
            int base = jj * n * n + 1;
            batch.solve(lines, field, base, n, lines, 5 * field + base, lines, 6 * field + base, lines, 7 * field + base, 2,
                    c.dtt1z, c.dtt2z, c.c2dtt1z);
        }
        // Back: for each destination d, my j-planes x d's k-planes x all i, per component.
        for (int d = 0; d < slab.size; d++) {
            int kFirst = Slab.first(n, slab.size, d);
            int kCount = Slab.count(n, slab.size, d);
            for (int m = 0; m < 5; m++) {
                for (int jj = 0; jj < slab.count; jj++) {
                    for (int kk = 0; kk < kCount; kk++) {
                        System.arraycopy(lines, ((m * slab.count + jj) * n + kFirst + kk) * n,
                                sendBack, d * blockBack + ((m * max + jj) * max + kk) * n, n);
                    }
                }
            }
        }
        comm.allToAll(sendBack, receiveBack, blockBack);
        for (int s = 0; s < slab.size; s++) {
            int jFirst = Slab.first(n, slab.size, s);
            int jCount = Slab.count(n, slab.size, s);
            for (int m = 0; m < 5; m++) {
                for (int jj = 0; jj < jCount; jj++) {
                    for (int kk = 0; kk < slab.count; kk++) {
                        System.arraycopy(receiveBack, s * blockBack + ((m * max + jj) * max + kk) * n,
                                r, m * rs + slab.owned(slab.first + kk) + (jFirst + jj) * n, n);
                    }
                }
            }
        }
        tzetar();
    }

    /** rhs times the z eigenvector matrix, pointwise: back from characteristic to conserved variables. */
    private void tzetar() {
        int n = slab.n;
        int rs = slab.ownedStride();
        double[] r = rhs.rhs;
        for (int k = interiorFrom(); k <= interiorTo(); k++) {
            for (int j = 1; j <= n - 2; j++) {
                int g0 = slab.ghosted(k) + j * n;
                int q0 = slab.owned(k) + j * n;
                for (int i = 1; i <= n - 2; i++) {
                    int g = g0 + i;
                    int q = q0 + i;
                    double xvel = rhs.us[g];
                    double yvel = rhs.vs[g];
                    double zvel = rhs.ws[g];
                    double ac = rhs.speed[g];
                    double ac2u = ac * ac;
                    double r1 = r[q];
                    double r2 = r[q + rs];
                    double r3 = r[q + 2 * rs];
                    double r4 = r[q + 3 * rs];
                    double r5 = r[q + 4 * rs];
                    double uzik1 = u[g];
                    double btuz = BT * uzik1;
                    double t1 = btuz / ac * (r4 + r5);
                    double t2 = r3 + t1;
                    double t3 = btuz * (r4 - r5);
                    r[q] = t2;
                    r[q + rs] = -uzik1 * r2 + xvel * t2;
                    r[q + 2 * rs] = uzik1 * r1 + yvel * t2;
                    r[q + 3 * rs] = zvel * t2 + t3;
                    r[q + 4 * rs] = uzik1 * (-xvel * r2 + yvel * r1) + rhs.qs[g] * t2 + C2IV * ac2u * t1 + zvel * t3;
                }
            }
        }
    }

    private void add() {
        int n = slab.n;
        int rs = slab.ownedStride();
        int s = slab.ghostedStride();
        double[] r = rhs.rhs;
        for (int m = 0; m < 5; m++) {
            for (int k = interiorFrom(); k <= interiorTo(); k++) {
                for (int j = 1; j <= n - 2; j++) {
                    int g = m * s + slab.ghosted(k) + j * n;
                    int q = m * rs + slab.owned(k) + j * n;
                    for (int i = 1; i <= n - 2; i++) {
                        u[g + i] = u[g + i] + r[q + i];
                    }
                }
            }
        }
    }
}
