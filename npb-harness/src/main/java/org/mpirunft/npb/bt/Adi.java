package org.mpirunft.npb.bt;

import mpi.MPIException;
import org.mpirunft.npb.SlabComm;

/**
 * BT's time step on one rank's z-slab: exchange the ghost planes of u, compute the right-hand
 * side, solve the implicit factors along x and along y on the slab, transpose u and the
 * right-hand side to j-slabs (all-to-all of equal, padded blocks) to solve along z, transpose
 * the result back, and add it to u. u (with its ghost planes) is the only state carried from
 * one step to the next; everything else is recomputed from it or is constant.
 */
final class Adi {
    private final Slab slab;
    private final Coefficients co;
    private final double[] u;
    private final double[] forcing;
    private final double[] rhs;
    private final RightHandSide rightHandSide;
    private final LineSolver lines;
    private final double[] uT;
    private final double[] rhsT;
    private final int forwardBlock;
    private final int backBlock;
    private final double[] forwardSend;
    private final double[] forwardReceive;
    private final double[] backSend;
    private final double[] backReceive;
    private final double[] toUp;
    private final double[] fromDown;
    private final double[] toDown;
    private final double[] fromUp;

    Adi(BtProblem problem, int ranks, int rank) {
        int n = problem.n();
        slab = new Slab(n, ranks, rank);
        co = new Coefficients(n, problem.dt());
        int plane = n * n * 5;
        u = new double[slab.heldPlanes() * plane];
        forcing = new double[slab.planes * plane];
        rhs = new double[slab.planes * plane];
        rightHandSide = new RightHandSide(slab, co);
        lines = new LineSolver(co, n);
        uT = new double[slab.rows * plane];
        rhsT = new double[slab.rows * plane];
        int pad = slab.maxPlanes * slab.maxPlanes * n;
        forwardBlock = pad * 10;
        backBlock = pad * 5;
        forwardSend = new double[ranks == 1 ? 0 : ranks * forwardBlock];
        forwardReceive = new double[ranks == 1 ? 0 : ranks * forwardBlock];
        backSend = new double[ranks == 1 ? 0 : ranks * backBlock];
        backReceive = new double[ranks == 1 ? 0 : ranks * backBlock];
        int ghosts = Slab.GHOSTS * plane;
        toUp = new double[ghosts];
        fromDown = new double[ghosts];
        toDown = new double[ghosts];
        fromUp = new double[ghosts];
        ExactSolution.initialize(slab, co, u);
        ExactSolution.forcing(slab, co, forcing);
    }

    /** u with its ghost planes: the state to checkpoint. */
    double[] u() {
        return u;
    }

    Slab slab() {
        return slab;
    }

    /** One time step (NPB's adi). */
    void step(SlabComm comm) throws MPIException {
        computeRhs(comm);
        int n = slab.n;
        for (int k = slab.interiorLow(); k < slab.interiorHigh(); k++) {
            for (int j = 1; j < n - 1; j++) {
                lines.solve(0, u, slab.u(0, j, k), 5, rhs, slab.own(0, j, k), 5);
            }
        }
        for (int k = slab.interiorLow(); k < slab.interiorHigh(); k++) {
            for (int i = 1; i < n - 1; i++) {
                lines.solve(1, u, slab.u(i, 0, k), 5 * n, rhs, slab.own(i, 0, k), 5 * n);
            }
        }
        solveZ(comm);
        for (int k = slab.interiorLow(); k < slab.interiorHigh(); k++) {
            for (int j = 1; j < n - 1; j++) {
                int p = slab.u(1, j, k);
                int r = slab.own(1, j, k);
                for (int x = 0; x < 5 * (n - 2); x++) {
                    u[p + x] = u[p + x] + rhs[r + x];
                }
            }
        }
    }

    /** Ghost planes from the neighbours, then the right-hand side from u. */
    private void computeRhs(SlabComm comm) throws MPIException {
        if (comm.size() > 1) {
            int plane = slab.n * slab.n * 5;
            int ghosts = Slab.GHOSTS * plane;
            // Own planes start at held plane GHOSTS; the top two own planes end at held plane planes + GHOSTS.
            System.arraycopy(u, slab.planes * plane, toUp, 0, ghosts);
            System.arraycopy(u, ghosts, toDown, 0, ghosts);
            comm.exchangeGhosts(toUp, fromDown, toDown, fromUp, toUp.length);
            if (slab.rank > 0) {
                System.arraycopy(fromDown, 0, u, 0, ghosts);
            }
            if (slab.rank + 1 < slab.ranks) {
                System.arraycopy(fromUp, 0, u, (slab.planes + Slab.GHOSTS) * plane, ghosts);
            }
        }
        rightHandSide.compute(u, forcing, rhs);
    }

    /** The z factor: transpose to j-slabs, solve the k-lines, transpose the solution back. */
    private void solveZ(SlabComm comm) throws MPIException {
        int n = slab.n;
        if (comm.size() == 1) {
            for (int j = 1; j < n - 1; j++) {
                for (int i = 1; i < n - 1; i++) {
                    lines.solve(2, u, slab.u(i, j, 0), 5 * n * n, rhs, slab.own(i, j, 0), 5 * n * n);
                }
            }
            return;
        }
        int ranks = slab.ranks;
        for (int d = 0; d < ranks; d++) {
            int jd = slab.first(d);
            int rowsD = slab.count(d);
            int base = d * forwardBlock;
            for (int k = slab.k0; k < slab.k1; k++) {
                for (int j = jd; j < jd + rowsD; j++) {
                    int pos = base + (((k - slab.k0) * rowsD + (j - jd)) * n) * 10;
                    int pu = slab.u(0, j, k);
                    int pr = slab.own(0, j, k);
                    for (int i = 0; i < n; i++, pos += 10, pu += 5, pr += 5) {
                        System.arraycopy(u, pu, forwardSend, pos, 5);
                        System.arraycopy(rhs, pr, forwardSend, pos + 5, 5);
                    }
                }
            }
        }
        comm.allToAll(forwardSend, forwardReceive, forwardBlock);
        for (int s = 0; s < ranks; s++) {
            int ks = slab.first(s);
            int planesS = slab.count(s);
            int base = s * forwardBlock;
            for (int k = ks; k < ks + planesS; k++) {
                for (int j = slab.j0; j < slab.j1; j++) {
                    int pos = base + (((k - ks) * slab.rows + (j - slab.j0)) * n) * 10;
                    for (int i = 0; i < n; i++, pos += 10) {
                        int t = slab.transposed(i, j, k);
                        System.arraycopy(forwardReceive, pos, uT, t, 5);
                        System.arraycopy(forwardReceive, pos + 5, rhsT, t, 5);
                    }
                }
            }
        }
        for (int j = Math.max(slab.j0, 1); j < Math.min(slab.j1, n - 1); j++) {
            for (int i = 1; i < n - 1; i++) {
                int t = slab.transposed(i, j, 0);
                lines.solve(2, uT, t, 5, rhsT, t, 5);
            }
        }
        for (int d = 0; d < ranks; d++) {
            int kd = slab.first(d);
            int planesD = slab.count(d);
            int base = d * backBlock;
            for (int k = kd; k < kd + planesD; k++) {
                for (int j = slab.j0; j < slab.j1; j++) {
                    int pos = base + (((k - kd) * slab.rows + (j - slab.j0)) * n) * 5;
                    for (int i = 0; i < n; i++, pos += 5) {
                        System.arraycopy(rhsT, slab.transposed(i, j, k), backSend, pos, 5);
                    }
                }
            }
        }
        comm.allToAll(backSend, backReceive, backBlock);
        for (int s = 0; s < ranks; s++) {
            int js = slab.first(s);
            int rowsS = slab.count(s);
            int base = s * backBlock;
            for (int k = slab.k0; k < slab.k1; k++) {
                for (int j = js; j < js + rowsS; j++) {
                    int pos = base + (((k - slab.k0) * rowsS + (j - js)) * n) * 5;
                    System.arraycopy(backReceive, pos, rhs, slab.own(0, j, k), 5 * n);
                }
            }
        }
    }

    /**
     * NPB's verification norms after the last step: the RMS error against the exact solution
     * over every grid point (xce), then the RMS of a fresh right-hand side over the interior,
     * divided by dt (xcr). Returns {xcr[0..4], xce[0..4]}, the same on every rank.
     */
    double[] norms(SlabComm comm) throws MPIException {
        int n = slab.n;
        double[] sums = new double[10];
        double[] exact = new double[5];
        for (int k = slab.k0; k < slab.k1; k++) {
            double zeta = k * co.dnzm1;
            for (int j = 0; j < n; j++) {
                double eta = j * co.dnym1;
                for (int i = 0; i < n; i++) {
                    ExactSolution.at(i * co.dnxm1, eta, zeta, exact, 0);
                    int p = slab.u(i, j, k);
                    for (int m = 0; m < 5; m++) {
                        double add = u[p + m] - exact[m];
                        sums[5 + m] = sums[5 + m] + add * add;
                    }
                }
            }
        }
        computeRhs(comm);
        for (int k = slab.interiorLow(); k < slab.interiorHigh(); k++) {
            for (int j = 1; j < n - 1; j++) {
                for (int i = 1; i < n - 1; i++) {
                    int r = slab.own(i, j, k);
                    for (int m = 0; m < 5; m++) {
                        double add = rhs[r + m];
                        sums[m] = sums[m] + add * add;
                    }
                }
            }
        }
        comm.sum(sums);
        for (int x = 0; x < 10; x++) {
            for (int d = 0; d < 3; d++) {
                sums[x] = sums[x] / (double) (n - 2);
            }
            sums[x] = Math.sqrt(sums[x]);
        }
        for (int m = 0; m < 5; m++) {
            sums[m] = sums[m] / co.dt;
        }
        return sums;
    }
}
