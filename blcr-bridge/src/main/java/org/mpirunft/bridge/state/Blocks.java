package org.mpirunft.bridge.state;

/**
 * This rank's block of a global array distributed in 1-D blocks over the ranks
 * ({@link BlockDistribution}), registered with {@link RankState#blocks}. A restore on another
 * rank count gives the block a new array, of the new layout's length: fetch it with
 * {@link #array()} after {@code run} and in each iteration, rather than keep it.
 *
 * @param <A> the array type, {@code double[]} for example
 */
public final class Blocks<A> {
    private final RankState state;
    private final String name;
    private final EntryType type;
    private final Class<A> arrayType;
    private final long length;
    private A array;

    Blocks(RankState state, String name, EntryType type, Class<A> arrayType, long length) {
        this.state = state;
        this.name = name;
        this.type = type;
        this.arrayType = arrayType;
        this.length = length;
        this.array = allocate(distribution().size(state.rank()));
    }

    public String name() {
        return name;
    }

    /** This rank's block. */
    public A array() {
        return array;
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

    EntryType type() {
        return type;
    }

    /** A fresh block of {@code size} elements, once a restore brings another layout's. */
    Object replaceWith(long size) {
        array = allocate(size);
        return array;
    }

    private A allocate(long size) {
        if (size > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("a block of '" + name + "' would hold " + size + " elements, more than a Java array");
        }
        return arrayType.cast(java.lang.reflect.Array.newInstance(type.elementClass(), (int) size));
    }
}
