package org.mpirunft.npb.sp;

import static org.mpirunft.npb.NavierStokes.C1;
import static org.mpirunft.npb.NavierStokes.C2;
import static org.mpirunft.npb.NavierStokes.C3;
import static org.mpirunft.npb.NavierStokes.C4;
import static org.mpirunft.npb.NavierStokes.C5;
import static org.mpirunft.npb.NavierStokes.CON16;
import static org.mpirunft.npb.NavierStokes.CON43;
import static org.mpirunft.npb.NavierStokes.DSSP;
import static org.mpirunft.npb.NavierStokes.DX;
import static org.mpirunft.npb.NavierStokes.DY;
import static org.mpirunft.npb.NavierStokes.DZ;

/**
 * The coefficients of SP's discretisation for an n^3 grid and time step dt: grid spacings,
 * viscous and dissipation coefficients, and their products as the reference forms them (the
 * products are part of the arithmetic the verification values depend on).
 */
final class Constants {
    // The eigenvector scaling and products of NPB's constants (NavierStokes).
    static final double BT = Math.sqrt(0.5);
    static final double C1C2 = C1 * C2;
    static final double C1C5 = C1 * C5;
    static final double C3C4 = C3 * C4;
    static final double CONZ1 = 1.0 - C1C5;
    static final double C2IV = 2.5;

    final int n;
    final double dt;
    /** 1 / (n - 1): the grid spacing in the unit cube, the same in every direction. */
    final double dnm1;
    final double t1;
    final double t2;
    final double t3;
    /** Per direction x, y, z: dt t1, dt t2, 2 dt t1 (the lhs entries). */
    final double dtt1x;
    final double dtt2x;
    final double c2dtt1x;
    final double dtt1y;
    final double dtt2y;
    final double c2dtt1y;
    final double dtt1z;
    final double dtt2z;
    final double c2dtt1z;
    final double comz1;
    final double comz4;
    final double comz5;
    final double comz6;
    /** d t1 for x, y and z (the five components share one d per direction). */
    final double dxt1;
    final double dyt1;
    final double dzt1;
    /** xxcon1..5, yycon1..5, zzcon1..5 at indices 1..5. */
    final double[] xxcon = new double[6];
    final double[] yycon = new double[6];
    final double[] zzcon = new double[6];

    Constants(int n, double dt) {
        this.n = n;
        this.dt = dt;
        dnm1 = 1.0 / (double) (n - 1);
        t1 = 1.0 / (dnm1 * dnm1);
        t2 = 1.0 / (2.0 * dnm1);
        t3 = 1.0 / dnm1;
        // The grid is a cube: tx, ty and tz are equal, but the coefficients are formed per
        // direction as the reference forms them.
        dtt1x = dt * t1;
        dtt2x = dt * t2;
        dtt1y = dt * t1;
        dtt2y = dt * t2;
        dtt1z = dt * t1;
        dtt2z = dt * t2;
        c2dtt1x = 2.0 * dtt1x;
        c2dtt1y = 2.0 * dtt1y;
        c2dtt1z = 2.0 * dtt1z;
        double dtdssp = dt * DSSP;
        comz1 = dtdssp;
        comz4 = 4.0 * dtdssp;
        comz5 = 5.0 * dtdssp;
        comz6 = 6.0 * dtdssp;
        dxt1 = DX * t1;
        dyt1 = DY * t1;
        dzt1 = DZ * t1;
        double c3c4t3 = C3C4 * t3;
        fill(xxcon, c3c4t3, t3);
        fill(yycon, c3c4t3, t3);
        fill(zzcon, c3c4t3, t3);
    }

    private static void fill(double[] con, double c3c4t3, double t3) {
        con[1] = c3c4t3 * CON43 * t3;
        con[2] = c3c4t3 * t3;
        con[3] = c3c4t3 * CONZ1 * t3;
        con[4] = c3c4t3 * CON16 * t3;
        con[5] = c3c4t3 * C1C5 * t3;
    }

    /** The lhs's diagonal weight for x lines from c3c4 / rho (NPB's rhon). */
    static double xWeight(double ru1) {
        return Math.max(Math.max(DX + CON43 * ru1, DX + C1C5 * ru1), Math.max(DX + ru1, DX));
    }

    /** The same for y lines (NPB's rhoq). */
    static double yWeight(double ru1) {
        return Math.max(Math.max(DY + CON43 * ru1, DY + C1C5 * ru1), Math.max(DY + ru1, DY));
    }

    /** The same for z lines (NPB's rhos). */
    static double zWeight(double ru1) {
        return Math.max(Math.max(DZ + CON43 * ru1, DZ + C1C5 * ru1), Math.max(DZ + ru1, DZ));
    }
}
