package org.mpirunft.npb.mg;

import java.util.Arrays;
import mpi.MPIException;

/**
 * One rank's MG solver state and its V-cycle (NAS RNR-94-007): u approximates the solution of
 * the periodic Poisson problem A u = v on the finest level; r is the residual on every level.
 *
 * <p>An iteration is r = v - A u, then u = u + M r with M the V-cycle. The V-cycle restricts
 * r down to level 1 (r_{k-1} = P r_k), smooths there (u_1 = S r_1), and on the way up
 * prolongs, corrects the residual and smooths (u_k = Q u_{k-1}; r_k = r_k - A u_k;
 * u_k = u_k + S r_k), the finest level adding to u and taking its residual from v.
 *
 * <p>Level data lives in flat arrays shared with FtRank (u and r stack all levels, v is the
 * finest level alone), so a rollback restores it in place.
 */
final class Multigrid {
    private final Levels levels;
    private final double[] u;
    private final double[] r;
    private final double[] v;
    /** v's geometry: the finest level at offset 0. */
    private final Level vLevel;
    private final double[] smoother;
    private final Stencils stencils;
    private final Halo halo;
    /** Buffers for gathering the finest replicated level; null when every level is distributed. */
    private final double[] gatherMine;
    private final double[] gatherAll;

    Multigrid(Levels levels, double[] u, double[] r, double[] v, double[] smoother) {
        this.levels = levels;
        this.u = u;
        this.r = r;
        this.v = v;
        Level top = levels.get(levels.top());
        this.vLevel = new Level(top.k(), top.n(), top.distributed(), top.z0(), top.nz(), 0);
        this.smoother = smoother.clone();
        this.stencils = new Stencils(top.sx());
        this.halo = new Halo(levels);
        int transition = finestReplicated();
        if (transition > 0 && levels.ranks() > 1) {
            Level coarse = levels.get(transition);
            Level fine = levels.get(transition + 1);
            gatherMine = new double[fine.nz() / 2 * coarse.plane()];
            gatherAll = new double[coarse.n() * coarse.plane()];
        } else {
            gatherMine = null;
            gatherAll = null;
        }
    }

    /** Doubles of v for {@code levels}. */
    static int sourceSize(Levels levels) {
        return levels.get(levels.top()).size();
    }

    /** The setup, iteration 0's first part: v from the generator, u = 0. */
    void start(MgComm comm) throws MPIException {
        SourceField.fill(vLevel, v, comm);
        halo.update(comm, vLevel, v);
        Arrays.fill(u, 0.0);
    }

    /**
     * r = v - A u on the finest level. NPB computes it after each iteration (and once before the
     * first); here it comes at the start of each iteration and before the norms, the same
     * operations in the same order, so that nothing in r is carried from one iteration to the
     * next: u and v are the whole state, and a checkpoint leaves r out.
     */
    private void finestResidual(MgComm comm) throws MPIException {
        Level finest = levels.get(levels.top());
        stencils.residual(finest, u, v, -finest.offset(), r);
        halo.update(comm, finest, r);
    }

    /** One iteration: a V-cycle on u, then the new residual r = v - A u. */
    void iterate(MgComm comm) throws MPIException {
        finestResidual(comm);
        int top = levels.top();
        for (int k = top; k > 1; k--) {
            restrictTo(comm, k - 1);
        }
        Level bottom = levels.get(1);
        Stencils.zero(bottom, u);
        stencils.smooth(bottom, r, u, smoother);
        halo.update(comm, bottom, u);
        for (int k = 2; k < top; k++) {
            Level level = levels.get(k);
            Stencils.zero(level, u);
            stencils.prolong(levels.get(k - 1), u, coarseShift(k), level, u);
            halo.update(comm, level, u);
            stencils.residual(level, u, r, 0, r);
            halo.update(comm, level, r);
            stencils.smooth(level, r, u, smoother);
            halo.update(comm, level, u);
        }
        Level finest = levels.get(top);
        stencils.prolong(levels.get(top - 1), u, coarseShift(top), finest, u);
        halo.update(comm, finest, u);
        stencils.residual(finest, u, v, -finest.offset(), r);
        halo.update(comm, finest, r);
        stencils.smooth(finest, r, u, smoother);
        halo.update(comm, finest, u);
    }

    /** {L2 norm, largest magnitude} of the finest residual over all ranks; collective (it computes the residual first). */
    double[] residualNorms(MgComm comm) throws MPIException {
        finestResidual(comm);
        Level top = levels.get(levels.top());
        double[] local = Stencils.norms(top, r);
        double[] sum = {local[0]};
        double[] max = {local[1]};
        comm.sum(sum);
        comm.max(max);
        return new double[] {Math.sqrt(sum[0] / top.points()), max[0]};
    }

    /** r_{coarse} = P r_{coarse + 1}, gathering the planes when the coarse level is replicated. */
    private void restrictTo(MgComm comm, int k) throws MPIException {
        Level coarse = levels.get(k);
        Level fine = levels.get(k + 1);
        if (fine.distributed() && !coarse.distributed() && levels.ranks() > 1) {
            int planes = fine.nz() / 2;
            int shift = fine.z0() / 2;
            stencils.restrict(fine, r, coarse, planes, shift);
            int count = planes * coarse.plane();
            System.arraycopy(r, coarse.at(-1, -1, shift), gatherMine, 0, count);
            comm.allGather(gatherMine, count, gatherAll);
            System.arraycopy(gatherAll, 0, r, coarse.at(-1, -1, 0), gatherAll.length);
        } else {
            stencils.restrict(fine, r, coarse, coarse.nz(), 0);
        }
        halo.update(comm, coarse, r);
    }

    /** Where a distributed level's coarse planes start in its replicated coarse level. */
    private int coarseShift(int fineLevel) {
        Level fine = levels.get(fineLevel);
        Level coarse = levels.get(fineLevel - 1);
        return fine.distributed() && !coarse.distributed() ? fine.z0() / 2 : 0;
    }

    private int finestReplicated() {
        for (int k = levels.top(); k >= 1; k--) {
            if (!levels.get(k).distributed()) {
                return k;
            }
        }
        return 0;
    }
}
