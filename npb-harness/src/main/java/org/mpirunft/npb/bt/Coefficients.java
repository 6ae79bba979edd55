package org.mpirunft.npb.bt;

import static org.mpirunft.npb.NavierStokes.C1;
import static org.mpirunft.npb.NavierStokes.C2;
import static org.mpirunft.npb.NavierStokes.C3;
import static org.mpirunft.npb.NavierStokes.C4;
import static org.mpirunft.npb.NavierStokes.C5;
import static org.mpirunft.npb.NavierStokes.CON16;
import static org.mpirunft.npb.NavierStokes.CON43;
import static org.mpirunft.npb.NavierStokes.DX;
import static org.mpirunft.npb.NavierStokes.DY;
import static org.mpirunft.npb.NavierStokes.DZ;

/**
 * The coefficients of BT's discretisation for one grid side and time step: the grid spacings
 * and the products of them and of {@link org.mpirunft.npb.NavierStokes}' constants that the
 * right-hand side and the implicit factors use. Every product is formed in
 * the order NPB forms it, so that the norms agree with NPB's to the last bits that matter.
 */
final class Coefficients {
    final double dt;
    final double dnxm1;
    final double dnym1;
    final double dnzm1;
    final double c1c2;
    final double c1c5;
    final double c3c4;
    final double c1345;
    final double conz1;
    final double tx1;
    final double tx2;
    final double tx3;
    final double ty1;
    final double ty2;
    final double ty3;
    final double tz1;
    final double tz2;
    final double tz3;
    final double dx1tx1;
    final double dy1ty1;
    final double dz1tz1;
    final double xxcon1;
    final double xxcon2;
    final double xxcon3;
    final double xxcon4;
    final double xxcon5;
    final double yycon1;
    final double yycon2;
    final double yycon3;
    final double yycon4;
    final double yycon5;
    final double zzcon1;
    final double zzcon2;
    final double zzcon3;
    final double zzcon4;
    final double zzcon5;
    /** x, y, z: made once, since the solves ask for them per line. */
    private final Direction[] directions;

    Coefficients(int n, double dt) {
        this.dt = dt;
        dnxm1 = 1.0 / (double) (n - 1);
        dnym1 = dnxm1;
        dnzm1 = dnxm1;
        c1c2 = C1 * C2;
        c1c5 = C1 * C5;
        c3c4 = C3 * C4;
        c1345 = c1c5 * c3c4;
        conz1 = 1.0 - c1c5;
        tx1 = 1.0 / (dnxm1 * dnxm1);
        tx2 = 1.0 / (2.0 * dnxm1);
        tx3 = 1.0 / dnxm1;
        ty1 = 1.0 / (dnym1 * dnym1);
        ty2 = 1.0 / (2.0 * dnym1);
        ty3 = 1.0 / dnym1;
        tz1 = 1.0 / (dnzm1 * dnzm1);
        tz2 = 1.0 / (2.0 * dnzm1);
        tz3 = 1.0 / dnzm1;
        double c3c4tx3 = c3c4 * tx3;
        double c3c4ty3 = c3c4 * ty3;
        double c3c4tz3 = c3c4 * tz3;
        dx1tx1 = DX * tx1;
        dy1ty1 = DY * ty1;
        dz1tz1 = DZ * tz1;
        xxcon1 = c3c4tx3 * CON43 * tx3;
        xxcon2 = c3c4tx3 * tx3;
        xxcon3 = c3c4tx3 * conz1 * tx3;
        xxcon4 = c3c4tx3 * CON16 * tx3;
        xxcon5 = c3c4tx3 * c1c5 * tx3;
        yycon1 = c3c4ty3 * CON43 * ty3;
        yycon2 = c3c4ty3 * ty3;
        yycon3 = c3c4ty3 * conz1 * ty3;
        yycon4 = c3c4ty3 * CON16 * ty3;
        yycon5 = c3c4ty3 * c1c5 * ty3;
        zzcon1 = c3c4tz3 * CON43 * tz3;
        zzcon2 = c3c4tz3 * tz3;
        zzcon3 = c3c4tz3 * conz1 * tz3;
        zzcon4 = c3c4tz3 * CON16 * tz3;
        zzcon5 = c3c4tz3 * c1c5 * tz3;
        directions = new Direction[] {
                new Direction(0, DX * tx1, tx2, tx1, xxcon1, xxcon2, xxcon3, xxcon4, xxcon5, DX),
                new Direction(1, DY * ty1, ty2, ty1, yycon1, yycon2, yycon3, yycon4, yycon5, DY),
                new Direction(2, DZ * tz1, tz2, tz1, zzcon1, zzcon2, zzcon3, zzcon4, zzcon5, DZ)};
    }

    /** The direction's terms, so that one routine serves x, y and z. */
    Direction direction(int axis) {
        return directions[axis];
    }

    /**
     * One direction's terms: {@code axis} 0, 1, 2 for x, y, z (its momentum is component
     * axis + 1 of the five); {@code dt1} is the second-order dissipation d*t1, {@code t2} the
     * centred-difference weight 1/(2h), {@code t1} 1/h^2, {@code con1..con5} the viscous weights,
     * {@code d} the dissipation coefficient on the implicit side.
     */
    record Direction(int axis, double dt1, double t2, double t1, double con1, double con2, double con3, double con4,
                     double con5, double d) {
        int momentum() {
            return axis + 1;
        }
    }
}
