package org.mpirunft.npb.sp;

/**
 * One rank's share of the n^3 grid: a run of whole k-planes (z-slab) for the right-hand side,
 * the x and y solves and the pointwise steps, and the same run of j-planes (y-slab) for the z
 * solve. Ranks 0..size-1 hold consecutive runs, the first n mod size ranks one plane more.
 *
 * <p>Fields that compute_rhs reads at k +- 2 (u) or k +- 1 (the derived fields) are held with
 * {@link #GHOSTS} ghost planes each side ("ghosted" layout: local plane 0 is global plane
 * {@code first - 2}); fields only read at their own point (rhs, forcing) hold the owned planes
 * alone. Within a plane, point (i, j) is at {@code j n + i}; a five-component field keeps its
 * components one after another, each a whole block of planes.
 */
final class Slab {
    /** Planes compute_rhs reads beyond the slab on each side (the fourth-order dissipation). */
    static final int GHOSTS = 2;

    final int n;
    final int rank;
    final int size;
    /** The first global plane this rank owns, and how many it owns. */
    final int first;
    final int count;
    /** Points per plane. */
    final int plane;
    /** Planes in the ghosted layout. */
    final int ghostedPlanes;
    /** The most planes any rank owns: the block size of the transposes is padded to it. */
    final int maxCount;

    Slab(int n, int size, int rank) {
        if (n / size < GHOSTS) {
            throw new IllegalArgumentException(n + " planes on " + size + " ranks leave a rank fewer than " + GHOSTS
                    + " planes, which the ghost exchange needs");
        }
        this.n = n;
        this.rank = rank;
        this.size = size;
        this.first = first(n, size, rank);
        this.count = count(n, size, rank);
        this.plane = n * n;
        this.ghostedPlanes = count + 2 * GHOSTS;
        this.maxCount = count(n, size, 0);
    }

    static int first(int n, int size, int rank) {
        return rank * (n / size) + Math.min(rank, n % size);
    }

    static int count(int n, int size, int rank) {
        return n / size + (rank < n % size ? 1 : 0);
    }

    /** One past the last owned plane. */
    int end() {
        return first + count;
    }

    /** Values of one component of a ghosted field. */
    int ghostedStride() {
        return ghostedPlanes * plane;
    }

    /** Values of one component of an owned-planes field. */
    int ownedStride() {
        return count * plane;
    }

    /** Offset of global plane k in a ghosted field. */
    int ghosted(int k) {
        return (k - first + GHOSTS) * plane;
    }

    /** Offset of global plane k in an owned-planes field. */
    int owned(int k) {
        return (k - first) * plane;
    }
}
