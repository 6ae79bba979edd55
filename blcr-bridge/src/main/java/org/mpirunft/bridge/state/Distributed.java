package org.mpirunft.bridge.state;

import java.util.List;
import java.util.Map;

/**
 * This rank's part of a global array distributed over the ranks by a rule the library knows
 * ({@link Blocks}: 1-D blocks; {@link Grid}: 2-D blocks over a process grid), so that an epoch
 * of one rank count can be laid out for another. A restore on another rank count gives the part
 * a new array, of the new layout's length: fetch it with {@link #array()} after {@code run} and
 * in each iteration, rather than keep it.
 *
 * @param <A> the array type, {@code double[]} for example
 */
public abstract sealed class Distributed<A> permits Blocks, Grid {
    final RankState state;
    private final String name;
    private final EntryType type;
    private final Class<A> arrayType;
    private A array;

    Distributed(RankState state, String name, EntryType type, Class<A> arrayType) {
        this.state = state;
        this.name = name;
        this.type = type;
        this.arrayType = arrayType;
    }

    public final String name() {
        return name;
    }

    /** This rank's part, in the layout of the state's current rank count. */
    public final A array() {
        return array;
    }

    /** How many elements rank {@code rank} of {@code ranks} holds. */
    abstract long sizeOf(int rank, int ranks);

    /**
     * The runs of elements of the old layout ({@code fromRanks} ranks) that make up rank
     * {@code rank} of {@code ranks}'s part, offsets counted in elements of each part's array.
     */
    abstract List<BlockDistribution.Piece> piecesFrom(int fromRanks, int rank, int ranks);

    /** The global shape, as scalars every part carries, so that a restore can check it against the registration. */
    abstract Map<String, Long> shape();

    final EntryType type() {
        return type;
    }

    /** Allocates the part for the state's current place; called once the subclass knows its shape. */
    final void allocate() {
        array = newArray(sizeOf(state.rank(), state.ranks()));
    }

    /** A fresh part of {@code size} elements, once a restore brings another layout's. */
    final void replaceWith(long size) {
        array = newArray(size);
    }

    private A newArray(long size) {
        if (size > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("the part of '" + name + "' would hold " + size + " elements, more than a Java array");
        }
        return arrayType.cast(java.lang.reflect.Array.newInstance(type.elementClass(), (int) size));
    }
}
