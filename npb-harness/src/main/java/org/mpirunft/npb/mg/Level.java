package org.mpirunft.npb.mg;

/**
 * Where one multigrid level lives in the level-stacked flat arrays, and which part of it this
 * rank holds.
 *
 * <p>Level {@code k} is the periodic grid of {@code n = 2^k} points per side. A rank holds
 * {@code nz} consecutive z-planes of it, all x and y, with one halo layer on every side, so a
 * point (i, j, l) with i, j in [-1, n] and l in [-1, nz] is at {@link #at}. Fine levels are
 * <em>distributed</em> in z-slabs, plane {@code z0 + l} being this rank's plane {@code l};
 * the coarsest levels, with fewer than two planes per rank, are <em>replicated</em>: every
 * rank holds the whole grid and computes it redundantly, which keeps every stencil local and
 * costs nothing worth measuring (at most 2 x ranks planes).
 */
record Level(int k, int n, boolean distributed, int z0, int nz, int offset) {
    /** Row length, halos included. */
    int sx() {
        return n + 2;
    }

    /** Plane length, halos included. */
    int plane() {
        return (n + 2) * (n + 2);
    }

    /** Doubles this level takes in a stacked array. */
    int size() {
        return (nz + 2) * plane();
    }

    /** Index of point (i, j, l) in local coordinates; -1 and n (or nz) are halo positions. */
    int at(int i, int j, int l) {
        return offset + ((l + 1) * (n + 2) + (j + 1)) * (n + 2) + (i + 1);
    }

    /** Points of this level on all ranks together. */
    double points() {
        return (double) n * n * n;
    }
}
