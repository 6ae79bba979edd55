package org.mpirunft.npb.bt;

/**
 * The decomposition: rank r holds a contiguous range of k-planes (z-slabs) of the n^3 grid,
 * the same ranges NPB's block distribution gives (the first n mod p ranks one plane more),
 * with two ghost planes either side for the fourth-order dissipation of the right-hand side.
 * For the z line solves the same distribution applies to j-rows: rank r then holds all k of
 * its rows (the transposed slab).
 *
 * <p>Index helpers: a field of five values per point with ghost planes ({@link #u}), the same
 * without ghosts ({@link #own}), one value per point with ghosts ({@link #aux}), and the
 * transposed slab, whose k-lines are contiguous ({@link #transposed}).
 */
final class Slab {
    /** Planes reached by the dissipation stencil on each side. */
    static final int GHOSTS = 2;

    final int n;
    final int ranks;
    final int rank;
    /** This rank's planes [k0, k1) and rows [j0, j1). */
    final int k0;
    final int k1;
    final int planes;
    final int j0;
    final int j1;
    final int rows;
    /** The most planes (rows) any rank has: the padded block size of the transposes. */
    final int maxPlanes;
    private final int[] first;

    Slab(int n, int ranks, int rank) {
        String refused = refusal(n, ranks);
        if (refused != null) {
            throw new IllegalArgumentException(refused);
        }
        this.n = n;
        this.ranks = ranks;
        this.rank = rank;
        this.first = new int[ranks + 1];
        for (int r = 0; r < ranks; r++) {
            first[r + 1] = first[r] + n / ranks + (r < n % ranks ? 1 : 0);
        }
        this.k0 = first[rank];
        this.k1 = first[rank + 1];
        this.planes = k1 - k0;
        this.j0 = k0;
        this.j1 = k1;
        this.rows = planes;
        this.maxPlanes = n / ranks + (n % ranks == 0 ? 0 : 1);
    }

    /** Null if n^3 splits into slabs over {@code ranks}, else why not. */
    static String refusal(int n, int ranks) {
        int root = (int) Math.round(Math.sqrt(ranks));
        if (ranks < 1 || root * root != ranks) {
            return "BT needs a square number of ranks (1, 4, 9, 16, ...), got " + ranks;
        }
        if (n / ranks < GHOSTS) {
            return "BT splits its " + n + "^3 grid into z-slabs of at least " + GHOSTS + " planes per rank (the dissipation"
                    + " reaches two planes), so at most " + n / GHOSTS + " ranks, got " + ranks;
        }
        return null;
    }

    /** First plane (row) of rank r. */
    int first(int r) {
        return first[r];
    }

    /** Planes (rows) of rank r. */
    int count(int r) {
        return first[r + 1] - first[r];
    }

    /** Planes held with ghosts. */
    int heldPlanes() {
        return planes + 2 * GHOSTS;
    }

    /** Start of point (i, j, k) in a five-value field with ghost planes. */
    int u(int i, int j, int k) {
        return (((k - k0 + GHOSTS) * n + j) * n + i) * 5;
    }

    /** Start of point (i, j, k) in a five-value field of the own planes. */
    int own(int i, int j, int k) {
        return (((k - k0) * n + j) * n + i) * 5;
    }

    /** Point (i, j, k) in a one-value field with ghost planes. */
    int aux(int i, int j, int k) {
        return ((k - k0 + GHOSTS) * n + j) * n + i;
    }

    /** Start of point (i, j, k), j one of this rank's rows, in a transposed five-value field. */
    int transposed(int i, int j, int k) {
        return (((j - j0) * n + i) * n + k) * 5;
    }

    /** Lowest plane with a value on this rank (own or ghost, inside the grid). */
    int lowestHeld() {
        return Math.max(0, k0 - GHOSTS);
    }

    /** One past the highest plane held. */
    int highestHeld() {
        return Math.min(n, k1 + GHOSTS);
    }

    /** Interior planes of this rank: [interiorLow, interiorHigh). */
    int interiorLow() {
        return Math.max(k0, 1);
    }

    int interiorHigh() {
        return Math.min(k1, n - 1);
    }
}
