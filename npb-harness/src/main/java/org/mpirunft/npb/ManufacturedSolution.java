package org.mpirunft.npb;

/**
 * The manufactured solution BT and SP share (NPB's exact_solution and its coefficient table):
 * each of the five components is a polynomial of degree four in each coordinate of the unit
 * cube. It gives both the boundary values, the initial field, the forcing term and the
 * reference of the error norms; LU's is another table.
 */
public final class ManufacturedSolution {
    /** Per component: the constant, then the coefficients of xi, eta, zeta for powers 1 to 4, interleaved. */
    private static final double[][] CE = {
            {2.0, 0.0, 0.0, 4.0, 5.0, 3.0, 0.5, 0.02, 0.01, 0.03, 0.5, 0.4, 0.3},
            {1.0, 0.0, 0.0, 0.0, 1.0, 2.0, 3.0, 0.01, 0.03, 0.02, 0.4, 0.3, 0.5},
            {2.0, 2.0, 0.0, 0.0, 0.0, 2.0, 3.0, 0.04, 0.03, 0.05, 0.3, 0.5, 0.4},
            {2.0, 2.0, 0.0, 0.0, 0.0, 2.0, 3.0, 0.03, 0.05, 0.04, 0.2, 0.1, 0.3},
            {5.0, 4.0, 3.0, 2.0, 0.1, 0.4, 0.3, 0.05, 0.04, 0.03, 0.1, 0.3, 0.2}};

    private ManufacturedSolution() {
    }

    /** The five components at (xi, eta, zeta) into {@code out[offset..offset+4]}, in NPB's order of operations. */
    public static void at(double xi, double eta, double zeta, double[] out, int offset) {
        for (int m = 0; m < 5; m++) {
            double[] c = CE[m];
            out[offset + m] = c[0]
                    + xi * (c[1] + xi * (c[4] + xi * (c[7] + xi * c[10])))
                    + eta * (c[2] + eta * (c[5] + eta * (c[8] + eta * c[11])))
                    + zeta * (c[3] + zeta * (c[6] + zeta * (c[9] + zeta * c[12])));
        }
    }
}
