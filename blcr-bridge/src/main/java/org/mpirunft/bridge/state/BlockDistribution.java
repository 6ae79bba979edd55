package org.mpirunft.bridge.state;

import java.util.ArrayList;
import java.util.List;

/**
 * A global array of {@code length} elements split over {@code ranks} ranks in contiguous blocks,
 * the first {@code length % ranks} ranks one element longer: the usual 1-D block distribution.
 * Knowing it lets the library move a committed epoch's blocks to another rank count (issue 24):
 * each block of the new distribution is made of pieces of the old blocks that overlap it.
 */
public record BlockDistribution(long length, int ranks) {
    public BlockDistribution {
        if (length < 0) {
            throw new IllegalArgumentException("a block distribution's length must be 0 or more, got " + length);
        }
        if (ranks < 1) {
            throw new IllegalArgumentException("a block distribution needs at least 1 rank, got " + ranks);
        }
    }

    /** A run of {@code length} elements at {@code fromOffset} in {@code fromRank}'s old block and {@code toOffset} in the new one. */
    public record Piece(int fromRank, long fromOffset, long toOffset, long length) {
    }

    /** The global index of {@code rank}'s first element. */
    public long start(int rank) {
        checkRank(rank);
        return rank * (length / ranks) + Math.min(rank, length % ranks);
    }

    /** How many elements {@code rank} holds. */
    public long size(int rank) {
        checkRank(rank);
        return length / ranks + (rank < length % ranks ? 1 : 0);
    }

    /** The rank that holds global element {@code index}. */
    public int owner(long index) {
        if (index < 0 || index >= length) {
            throw new IndexOutOfBoundsException("element " + index + " of a distribution of " + length);
        }
        long base = length / ranks;
        long longer = length % ranks;
        long inLonger = longer * (base + 1);
        return (int) (index < inLonger ? index / (base + 1) : longer + (index - inLonger) / base);
    }

    /**
     * The pieces of {@code from}'s blocks that make up {@code rank}'s block in this distribution,
     * in the order of the new block. Both must describe the same global array.
     */
    public List<Piece> piecesFrom(BlockDistribution from, int rank) {
        if (from.length != length) {
            throw new IllegalArgumentException("cannot redistribute " + from.length + " elements as " + length);
        }
        List<Piece> pieces = new ArrayList<>();
        long begin = start(rank);
        long end = begin + size(rank);
        long at = begin;
        while (at < end) {
            int owner = from.owner(at);
            long ownerEnd = from.start(owner) + from.size(owner);
            long run = Math.min(end, ownerEnd) - at;
            pieces.add(new Piece(owner, at - from.start(owner), at - begin, run));
            at += run;
        }
        return pieces;
    }

    private void checkRank(int rank) {
        if (rank < 0 || rank >= ranks) {
            throw new IndexOutOfBoundsException("rank " + rank + " of a distribution over " + ranks);
        }
    }
}
