package org.mpirunft.npb.mg;

import java.util.Arrays;
import mpi.MPIException;
import org.mpirunft.npb.Randlc;

/**
 * MG's right-hand side v (the specification's zran3): n^3 uniform numbers from the NPB
 * generator (seed 314159265, a = 5^13), one per grid point in x-fastest, then y, then z order;
 * v is +1 at the ten largest, -1 at the ten smallest, 0 elsewhere.
 *
 * <p>Each rank generates its own planes, jumping the generator ahead, and keeps its ten
 * largest and ten smallest; one all-gather of those candidates lets every rank pick the same
 * global twenty. This is the only communication in MG's setup, which is why the setup runs
 * in iteration 0 under FtRank.
 */
final class SourceField {
    static final long SEED = 314159265L;
    static final int CHARGES = 10;
    /** A rank's candidates: largest values, their positions, smallest values, their positions. */
    private static final int CANDIDATES = 4 * CHARGES;

    private SourceField() {
    }

    /** Fills {@code v} (geometry {@code level}) with the source field; halos are left to the caller. */
    static void fill(Level level, double[] v, MgComm comm) throws MPIException {
        int n = level.n();
        long rowStep = Randlc.power(Randlc.A, n);
        long planeStep = Randlc.power(Randlc.A, (long) n * n);
        long planeSeed = Randlc.skip(SEED, Randlc.A, (long) n * n * level.z0());
        Randlc generator = new Randlc(SEED, Randlc.A);
        double[] mine = new double[CANDIDATES];
        Arrays.fill(mine, 0, CHARGES, Double.NEGATIVE_INFINITY);
        Arrays.fill(mine, 2 * CHARGES, 3 * CHARGES, Double.POSITIVE_INFINITY);
        for (int l = 0; l < level.nz(); l++) {
            long rowSeed = planeSeed;
            for (int j = 0; j < n; j++) {
                int row = level.at(0, j, l);
                generator.seed(rowSeed);
                generator.fill(v, row, n);
                double position = (double) n * (j + (double) n * (level.z0() + l));
                for (int i = 0; i < n; i++) {
                    double x = v[row + i];
                    if (x > mine[CHARGES - 1]) {
                        insert(mine, 0, x, position + i, true);
                    }
                    if (x < mine[3 * CHARGES - 1]) {
                        insert(mine, 2 * CHARGES, x, position + i, false);
                    }
                }
                rowSeed = Randlc.multiply(rowSeed, rowStep);
            }
            planeSeed = Randlc.multiply(planeSeed, planeStep);
        }
        double[] all = new double[CANDIDATES * comm.size()];
        comm.allGather(mine, CANDIDATES, all);
        double[] largest = select(all, 0, comm.size(), true);
        double[] smallest = select(all, 2 * CHARGES, comm.size(), false);

        Arrays.fill(v, level.offset(), level.offset() + level.size(), 0.0);
        place(level, v, smallest, -1.0);
        place(level, v, largest, 1.0);
    }

    /**
     * Inserts (x, position) into the sorted list of {@link #CHARGES} values at {@code from}
     * (descending if {@code largest}, else ascending), positions {@link #CHARGES} after, dropping the last.
     */
    private static void insert(double[] list, int from, double x, double position, boolean largest) {
        int at = from + CHARGES - 1;
        while (at > from && (largest ? x > list[at - 1] : x < list[at - 1])) {
            list[at] = list[at - 1];
            list[at + CHARGES] = list[at - 1 + CHARGES];
            at--;
        }
        list[at] = x;
        list[at + CHARGES] = position;
    }

    /** The global {@link #CHARGES} extremes among every rank's candidates: their positions. */
    private static double[] select(double[] all, int from, int ranks, boolean largest) {
        double[] merged = new double[2 * CHARGES];
        Arrays.fill(merged, 0, CHARGES, largest ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY);
        for (int rank = 0; rank < ranks; rank++) {
            int base = rank * CANDIDATES + from;
            for (int c = 0; c < CHARGES; c++) {
                double x = all[base + c];
                if (largest ? x > merged[CHARGES - 1] : x < merged[CHARGES - 1]) {
                    insert(merged, 0, x, all[base + c + CHARGES], largest);
                }
            }
        }
        return Arrays.copyOfRange(merged, CHARGES, 2 * CHARGES);
    }

    private static void place(Level level, double[] v, double[] positions, double charge) {
        long n = level.n();
        for (double position : positions) {
            long g = (long) position;
            int i = (int) (g % n);
            int j = (int) (g / n % n);
            int z = (int) (g / (n * n));
            if (z >= level.z0() && z < level.z0() + level.nz()) {
                v[level.at(i, j, z - level.z0())] = charge;
            }
        }
    }
}
