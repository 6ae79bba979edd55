package org.mpirunft.npb.mg;

/**
 * The levels of one rank's multigrid hierarchy, 1 (2 points per side) to {@code top}, stacked
 * into one flat array each for u and r: level 1 first, the finest last.
 *
 * <p>A level is distributed over the ranks if it has at least two z-planes per rank, so that
 * restricting it is local (coarse plane K needs fine planes 2K..2K+2, one of them a halo).
 * The levels below are replicated; the restriction into the finest replicated level gathers
 * the ranks' planes (see {@link Multigrid}).
 */
final class Levels {
    private final Level[] levels;
    private final int ranks;
    private final int total;

    Levels(int top, int ranks, int rank) {
        if (Integer.bitCount(ranks) != 1 || (1 << top) < 2 * ranks) {
            throw new IllegalArgumentException("MG needs a power-of-two rank count of at most " + (1 << (top - 1))
                    + " for a grid of " + (1 << top) + " points per side, got " + ranks);
        }
        this.ranks = ranks;
        this.levels = new Level[top + 1];
        long offset = 0;
        for (int k = 1; k <= top; k++) {
            int n = 1 << k;
            boolean distributed = n >= 2 * ranks;
            int nz = distributed ? n / ranks : n;
            Level level = new Level(k, n, distributed, distributed ? rank * nz : 0, nz, (int) offset);
            offset += level.size();
            if (offset > Integer.MAX_VALUE - 8) {
                throw new IllegalArgumentException("MG grid of " + (1 << top) + "^3 is too large for one array on " + ranks
                        + " ranks; use more ranks");
            }
            levels[k] = level;
        }
        this.total = (int) offset;
    }

    Level get(int k) {
        return levels[k];
    }

    int top() {
        return levels.length - 1;
    }

    int ranks() {
        return ranks;
    }

    /** Doubles in a stacked array of all levels. */
    int total() {
        return total;
    }
}
