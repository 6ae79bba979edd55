package org.mpirunft.npb.lu;

/**
 * One rank's part of the grid and the discretisation constants. The grid has nx x ny x nz
 * points (0-based: i, j, k; the outermost points are the boundary); the ranks own consecutive
 * rows in y (j), the first ranks one row more when ny does not divide evenly. Every local
 * array holds all x and z points of the rank's rows plus {@link #GHOSTS} rows on each side,
 * since the fourth-order dissipation reaches j +- 2. A point is 5 consecutive doubles (the
 * five conserved quantities), so index arithmetic is {@code ((k * rows + jl) * nx + i) * 5}.
 */
final class Slab {
    static final int GHOSTS = 2;
    /** The fewest rows a rank may own: its neighbours' halo reaches 2 rows into it. */
    static final int MIN_ROWS = 2;

    final int nx;
    final int ny;
    final int nz;
    final int rank;
    final int ranks;
    /** First and last global row this rank owns. */
    final int firstRow;
    final int lastRow;
    /** Local rows, ghosts included. */
    final int rows;
    final int rowStride;
    final int planeStride;
    /** First and last owned row that is interior (not the y boundary). */
    final int firstInterior;
    final int lastInterior;

    final double dxi;
    final double deta;
    final double dzeta;
    final double tx1;
    final double tx2;
    final double tx3;
    final double ty1;
    final double ty2;
    final double ty3;
    final double tz1;
    final double tz2;
    final double tz3;

    Slab(int nx, int ny, int nz, int ranks, int rank) {
        if (ny / ranks < MIN_ROWS) {
            throw new IllegalArgumentException(ranks + " ranks leave fewer than " + MIN_ROWS + " of " + ny + " rows to a rank");
        }
        this.nx = nx;
        this.ny = ny;
        this.nz = nz;
        this.rank = rank;
        this.ranks = ranks;
        int base = ny / ranks;
        int extra = ny % ranks;
        this.firstRow = rank * base + Math.min(rank, extra);
        this.lastRow = firstRow + base + (rank < extra ? 1 : 0) - 1;
        this.rows = lastRow - firstRow + 1 + 2 * GHOSTS;
        this.rowStride = nx * 5;
        this.planeStride = rows * rowStride;
        this.firstInterior = Math.max(1, firstRow);
        this.lastInterior = Math.min(ny - 2, lastRow);

        dxi = 1.0 / (nx - 1);
        deta = 1.0 / (ny - 1);
        dzeta = 1.0 / (nz - 1);
        tx1 = 1.0 / (dxi * dxi);
        tx2 = 1.0 / (2.0 * dxi);
        tx3 = 1.0 / dxi;
        ty1 = 1.0 / (deta * deta);
        ty2 = 1.0 / (2.0 * deta);
        ty3 = 1.0 / deta;
        tz1 = 1.0 / (dzeta * dzeta);
        tz2 = 1.0 / (2.0 * dzeta);
        tz3 = 1.0 / dzeta;
    }

    /** Doubles in one local field (u, rsd, frct). */
    int size() {
        return nz * planeStride;
    }

    /** The local row of global row j. */
    int local(int j) {
        return j - firstRow + GHOSTS;
    }

    /** Index of point (i, global row j, k)'s first component. */
    int at(int i, int j, int k) {
        return ((k * rows + local(j)) * nx + i) * 5;
    }

    boolean owns(int j) {
        return j >= firstRow && j <= lastRow;
    }

    /** Global rows whose values this rank holds (owned or ghost), clipped to the grid. */
    int firstHeld() {
        return Math.max(0, firstRow - GHOSTS);
    }

    int lastHeld() {
        return Math.min(ny - 1, lastRow + GHOSTS);
    }
}
