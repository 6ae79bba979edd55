package org.mpirunft.npb;

/**
 * The constants of the compressible Navier-Stokes problem that BT, SP and LU all solve, as NPB
 * 3.x sets them: the gas constants c1..c5, the second-order dissipation per direction, the
 * fourth-order dissipation and the viscous fractions. Each kernel forms its products from these
 * in the order its NPB reference does, since the verification values depend on that order.
 */
public final class NavierStokes {
    public static final double C1 = 1.4;
    public static final double C2 = 0.4;
    public static final double C3 = 0.1;
    public static final double C4 = 1.0;
    public static final double C5 = 1.4;
    /** Second-order dissipation in x, y and z (the same for the five equations). */
    public static final double DX = 0.75;
    public static final double DY = 0.75;
    public static final double DZ = 1.0;
    /** Fourth-order dissipation: the largest of the above over 4. */
    public static final double DSSP = 0.25 * Math.max(DX, Math.max(DY, DZ));
    public static final double CON43 = 4.0 / 3.0;
    public static final double CON16 = 1.0 / 6.0;

    private NavierStokes() {
    }
}
