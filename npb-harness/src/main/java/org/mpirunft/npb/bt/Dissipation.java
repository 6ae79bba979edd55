package org.mpirunft.npb.bt;

/**
 * The fourth-order artificial dissipation along one line: the five-point stencil
 * (1, -4, 6, -4, 1) inside, cut one-sidedly at the two points next to each boundary, with the
 * terms summed in NPB's order.
 */
final class Dissipation {
    private Dissipation() {
    }

    /**
     * The stencil at position {@code p} (1..n-2) of a line of {@code n} points whose value at p
     * is {@code v[c]} and whose neighbours are {@code s} apart.
     */
    static double stencil(double[] v, int c, int s, int p, int n) {
        if (p == 1) {
            return 5.0 * v[c] - 4.0 * v[c + s] + v[c + 2 * s];
        }
        if (p == 2) {
            return -4.0 * v[c - s] + 6.0 * v[c] - 4.0 * v[c + s] + v[c + 2 * s];
        }
        if (p == n - 3) {
            return v[c - 2 * s] - 4.0 * v[c - s] + 6.0 * v[c] - 4.0 * v[c + s];
        }
        if (p == n - 2) {
            return v[c - 2 * s] - 4.0 * v[c - s] + 5.0 * v[c];
        }
        return v[c - 2 * s] - 4.0 * v[c - s] + 6.0 * v[c] - 4.0 * v[c + s] + v[c + 2 * s];
    }
}
