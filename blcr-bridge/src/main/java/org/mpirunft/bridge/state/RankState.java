package org.mpirunft.bridge.state;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What a rank registers once to be checkpointed: primitive arrays, restored in place into the
 * same array objects, distributed arrays ({@link #blocks}, {@link #grid}), and named scalars.
 * Registration order is part of the format, so every incarnation of a rank (the original, a
 * replacement, a relaunch) must register the same entries in the same order; a mismatch is
 * reported on restore, never papered over.
 *
 * <p>An epoch can be restored on another rank count than the one that wrote it (issue 24):
 * distributed arrays are redistributed, replicated arrays and the scalars are taken from
 * the old rank 0, and per-rank arrays ({@link #register}) only if the program handles the resize
 * itself ({@link #onResize}); otherwise such an epoch is refused.
 */
public final class RankState {
    private final Map<String, Slot> slots = new LinkedHashMap<>();
    private final Scalars scalars = new Scalars();
    private int rank;
    private int ranks = 1;
    private ResizeListener resizeListener;

    /** What a resize means for an entry. */
    enum Kind {
        /** This rank's own values: a resize needs the program ({@link #onResize}). */
        PER_RANK,
        /** The same values on every rank: a resize takes the old rank 0's. */
        REPLICATED,
        /** This rank's part of a distributed global array ({@link Distributed}). */
        DISTRIBUTED
    }

    /** Called once the state of an epoch written by another rank count is in place. */
    @FunctionalInterface
    public interface ResizeListener {
        void resized(Resize resize);
    }

    /**
     * An epoch written by {@code fromRanks} ranks restored on {@code toRanks}; {@code rank} is
     * this rank's number among them.
     */
    public record Resize(long epoch, int fromRanks, int toRanks, int rank) {
    }

    public RankState register(String name, double[] array) {
        return add(name, Kind.PER_RANK, EntryType.DOUBLE, array);
    }

    public RankState register(String name, long[] array) {
        return add(name, Kind.PER_RANK, EntryType.LONG, array);
    }

    public RankState register(String name, int[] array) {
        return add(name, Kind.PER_RANK, EntryType.INT, array);
    }

    public RankState register(String name, float[] array) {
        return add(name, Kind.PER_RANK, EntryType.FLOAT, array);
    }

    public RankState register(String name, short[] array) {
        return add(name, Kind.PER_RANK, EntryType.SHORT, array);
    }

    public RankState register(String name, char[] array) {
        return add(name, Kind.PER_RANK, EntryType.CHAR, array);
    }

    public RankState register(String name, byte[] array) {
        return add(name, Kind.PER_RANK, EntryType.BYTE, array);
    }

    /**
     * Registers an array that holds the same values on every rank (a replicated table, a
     * broadcast parameter block): on another rank count, every rank gets the old rank 0's.
     */
    public RankState registerReplicated(String name, Object array) {
        return add(name, Kind.REPLICATED, typeOf(name, array), array);
    }

    /**
     * Allocates and registers this rank's block of a global array of {@code length} elements,
     * distributed in 1-D blocks over the ranks ({@link BlockDistribution}). On another rank
     * count the library redistributes it: the block's array is then a new one, so fetch it
     * with {@link Blocks#array()} rather than keep it across a recovery.
     *
     * @param arrayType the array's class, {@code double[].class} for example
     */
    public <A> Blocks<A> blocks(String name, long length, Class<A> arrayType) {
        return distributed(new Blocks<>(this, name, typeOf(name, arrayType), arrayType, length));
    }

    /**
     * Allocates and registers this rank's block of a global {@code rows} x {@code columns}
     * matrix, distributed in 2-D blocks over a process grid ({@link Grid}). On another rank
     * count the grid changes and the library redistributes the blocks; fetch the block with
     * {@link Grid#array()}, and its place with the grid's accessors, after a recovery.
     */
    public <A> Grid<A> grid(String name, long rows, long columns, Class<A> arrayType) {
        return distributed(new Grid<>(this, name, typeOf(name, arrayType), arrayType, rows, columns));
    }

    private <D extends Distributed<?>> D distributed(D part) {
        add(part.name(), Kind.DISTRIBUTED, part.type(), part.array());
        slots.get(part.name()).distributed = part;
        // Every part then says the global shape: a restore checks it against the registration.
        part.shape().forEach((key, value) -> scalars.setLong(shapeKey(part.name(), key), value));
        return part;
    }

    /** Small named values (loop-carried sums, seeds) that are not worth an array each; replicated on a resize. */
    public Scalars scalars() {
        return scalars;
    }

    /** Lets the program rebuild per-rank state after a restore on another rank count. */
    public RankState onResize(ResizeListener listener) {
        this.resizeListener = Objects.requireNonNull(listener, "resize listener");
        return this;
    }

    /** This rank's number and the rank count the blocks are laid out for. */
    public int rank() {
        return rank;
    }

    public int ranks() {
        return ranks;
    }

    /**
     * The runtime's: this state now belongs to rank {@code rank} of {@code ranks}. Blocks keep
     * their arrays until a restore brings the blocks of the new layout.
     */
    public void placeAt(int rank, int ranks) {
        if (ranks < 1 || rank < 0 || rank >= ranks) {
            throw new IllegalArgumentException("rank " + rank + " of " + ranks);
        }
        this.rank = rank;
        this.ranks = ranks;
    }

    /** The runtime's, after a restore on another rank count: tells the program's listener, if any. */
    public void resized(Resize resize) {
        if (resizeListener != null) {
            resizeListener.resized(resize);
        }
    }

    /** The scalar that records one dimension of a distributed array's global shape in every part. */
    static String shapeKey(String name, String dimension) {
        return "mpirunft.layout." + name + "." + dimension;
    }

    boolean handlesResize() {
        return resizeListener != null;
    }

    /**
     * Why this state cannot be laid out for another rank count, if it cannot: a per-rank entry
     * and no resize listener to rebuild it.
     */
    public java.util.Optional<String> resizeRefusal() {
        if (resizeListener != null) {
            return java.util.Optional.empty();
        }
        return slots.values().stream().filter(slot -> slot.kind == Kind.PER_RANK).findFirst()
                .map(slot -> "state '" + slot.name + "' is per rank: register it as blocks or replicated, or rebuild it in onResize");
    }

    public List<StateEntry> entries() {
        List<StateEntry> entries = new ArrayList<>(slots.size());
        for (Slot slot : slots.values()) {
            entries.add(slot.entry());
        }
        return Collections.unmodifiableList(entries);
    }

    /** How a resize treats the entry registered as {@code name}. */
    Kind kindOf(String name) {
        Slot slot = slots.get(name);
        if (slot == null) {
            throw new IllegalArgumentException("no state entry '" + name + "'");
        }
        return slot.kind;
    }

    /** The distributed array registered as {@code name}, or null if that entry is none. */
    Distributed<?> distributedOf(String name) {
        Slot slot = slots.get(name);
        return slot == null ? null : slot.distributed;
    }

    /** Bytes a snapshot of this state takes, scalars included. */
    public long sizeInBytes() {
        long bytes = scalars.sizeInBytes();
        for (Slot slot : slots.values()) {
            bytes += slot.entry().sizeInBytes();
        }
        return bytes;
    }

    private RankState add(String name, Kind kind, EntryType type, Object array) {
        Objects.requireNonNull(array, () -> "state '" + name + "' is null");
        if (name == null || name.isEmpty() || name.length() > 200) {
            throw new IllegalArgumentException("state names must be 1-200 characters, got '" + name + "'");
        }
        if (slots.containsKey(name)) {
            throw new IllegalArgumentException("state '" + name + "' is already registered");
        }
        slots.put(name, new Slot(name, kind, type, array));
        return this;
    }

    private static EntryType typeOf(String name, Object array) {
        Objects.requireNonNull(array, () -> "state '" + name + "' is null");
        return typeOf(name, array.getClass());
    }

    private static EntryType typeOf(String name, Class<?> arrayType) {
        Class<?> element = arrayType.getComponentType();
        for (EntryType type : EntryType.values()) {
            if (type.elementClass() == element) {
                return type;
            }
        }
        throw new IllegalArgumentException("state '" + name + "' must be an array of a primitive type, not " + arrayType.getSimpleName());
    }

    /** One registered entry; a block's array is its holder's current one. */
    private static final class Slot {
        final String name;
        final Kind kind;
        final EntryType type;
        final Object array;
        Distributed<?> distributed;

        Slot(String name, Kind kind, EntryType type, Object array) {
            this.name = name;
            this.kind = kind;
            this.type = type;
            this.array = array;
        }

        StateEntry entry() {
            Object current = distributed != null ? distributed.array() : array;
            return new StateEntry(name, type, current, java.lang.reflect.Array.getLength(current));
        }
    }
}
