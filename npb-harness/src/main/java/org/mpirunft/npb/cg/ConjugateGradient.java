package org.mpirunft.npb.cg;

import java.nio.DoubleBuffer;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;

/**
 * CG's inner solver over rows distributed in contiguous blocks: 25 steps of the conjugate
 * gradient method for A z = x from z = 0, then the residual ||x - A z|| ("conj_grad").
 *
 * <p>Each rank holds its block of every vector. A product A p needs the whole of p, so every
 * step gathers p from all blocks (allgatherv in place), and each dot product is one allreduce.
 * The buffers are allocated once; nothing in a step allocates. None of them is state: a solve
 * starts from x alone.
 *
 * <p>The gather goes through a direct buffer: Open MPI's Java bindings (5.0.7) size the native
 * copy of an array for the v-collectives as the largest displacement times its count, not
 * plus, which overruns the native heap (on one rank it is a zero-byte buffer).
 */
final class ConjugateGradient {
    static final int STEPS = 25;

    private final CgMatrix matrix;
    private final int rows;
    private final int offset;
    /** Rows per rank and where each rank's block starts, for the gathers. */
    private final int[] blockRows;
    private final int[] blockStart;
    /** The whole vector being multiplied (p, or z for the residual); this rank's block in place. */
    private final double[] whole;
    private final DoubleBuffer gathered;
    private final double[] q;
    private final double[] r;
    private final double[] z;
    private final double[] sums = new double[3];

    ConjugateGradient(CgMatrix matrix, int n, int[] blockRows, int[] blockStart) {
        this.matrix = matrix;
        this.rows = matrix.rows;
        this.offset = matrix.firstRow;
        this.blockRows = blockRows;
        this.blockStart = blockStart;
        this.whole = new double[n];
        this.gathered = MPI.newDoubleBuffer(n);
        this.q = new double[rows];
        this.r = new double[rows];
        this.z = new double[rows];
    }

    /**
     * Solves A z = x approximately; afterwards {@link #z()} is this rank's block of z and
     * {@link #residualSquared()}, {@link #xDotZ()} and {@link #zDotZ()} hold global sums.
     */
    void solve(Intracomm world, double[] x) throws MPIException {
        double[] p = whole;
        double rho = 0.0;
        for (int i = 0; i < rows; i++) {
            z[i] = 0.0;
            r[i] = x[i];
            p[offset + i] = x[i];
            rho += x[i] * x[i];
        }
        rho = sum(world, rho);
        for (int step = 0; step < STEPS; step++) {
            gather(world, p);
            matrix.multiply(p, q);
            double d = 0.0;
            for (int i = 0; i < rows; i++) {
                d += p[offset + i] * q[i];
            }
            double alpha = rho / sum(world, d);
            double previousRho = rho;
            rho = 0.0;
            for (int i = 0; i < rows; i++) {
                z[i] += alpha * p[offset + i];
                double ri = r[i] - alpha * q[i];
                r[i] = ri;
                rho += ri * ri;
            }
            rho = sum(world, rho);
            double beta = rho / previousRho;
            for (int i = 0; i < rows; i++) {
                p[offset + i] = r[i] + beta * p[offset + i];
            }
        }
        // The residual of the solve, and the two dot products the outer iteration needs, in one reduction.
        System.arraycopy(z, 0, whole, offset, rows);
        gather(world, whole);
        matrix.multiply(whole, q);
        double residual = 0.0;
        double xz = 0.0;
        double zz = 0.0;
        for (int i = 0; i < rows; i++) {
            double d = x[i] - q[i];
            residual += d * d;
            xz += x[i] * z[i];
            zz += z[i] * z[i];
        }
        sums[0] = residual;
        sums[1] = xz;
        sums[2] = zz;
        world.allReduce(sums, 3, MPI.DOUBLE, MPI.SUM);
    }

    double[] z() {
        return z;
    }

    double residualSquared() {
        return sums[0];
    }

    double xDotZ() {
        return sums[1];
    }

    double zDotZ() {
        return sums[2];
    }

    /** Completes {@code vector} from every rank's block of it. */
    private void gather(Intracomm world, double[] vector) throws MPIException {
        gathered.put(offset, vector, offset, rows);
        world.allGatherv(gathered, blockRows, blockStart, MPI.DOUBLE);
        gathered.get(0, vector, 0, vector.length);
    }

    private double sum(Intracomm world, double local) throws MPIException {
        sums[0] = local;
        world.allReduce(sums, 1, MPI.DOUBLE, MPI.SUM);
        return sums[0];
    }
}
