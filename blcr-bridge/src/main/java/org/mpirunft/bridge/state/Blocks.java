package org.mpirunft.bridge.state;

import java.util.List;
import java.util.Map;

/**
 * This rank's block of a global array distributed in 1-D blocks over the ranks
 * ({@link BlockDistribution}), registered with {@link RankState#blocks}.
 *
 * @param <A> the array type, {@code double[]} for example
 */
public final class Blocks<A> extends Distributed<A> {
    private final long length;

    Blocks(RankState state, String name, EntryType type, Class<A> arrayType, long length) {
        super(state, name, type, arrayType);
        if (length < 0) {
            throw new IllegalArgumentException("blocks '" + name + "': a global length must be 0 or more, got " + length);
        }
        this.length = length;
        allocate();
    }

    /** The global array's length. */
    public long length() {
        return length;
    }

    /** The layout over the state's current rank count. */
    public BlockDistribution distribution() {
        return new BlockDistribution(length, state.ranks());
    }

    /** The global index of this rank's first element. */
    public long start() {
        return distribution().start(state.rank());
    }

    @Override
    long sizeOf(int rank, int ranks) {
        return new BlockDistribution(length, ranks).size(rank);
    }

    @Override
    List<BlockDistribution.Piece> piecesFrom(int fromRanks, int rank, int ranks) {
        return new BlockDistribution(length, ranks).piecesFrom(new BlockDistribution(length, fromRanks), rank);
    }

    @Override
    Map<String, Long> shape() {
        return Map.of("length", length);
    }
}
