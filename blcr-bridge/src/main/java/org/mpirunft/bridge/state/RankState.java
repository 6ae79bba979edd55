package org.mpirunft.bridge.state;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What a rank registers once to be checkpointed: primitive arrays, restored in place into the
 * same array objects, and named scalars. Registration order is part of the format, so every
 * incarnation of a rank (the original, a replacement) must register the same entries in the
 * same order; a mismatch is reported on restore, never papered over.
 */
public final class RankState {
    private final Map<String, StateEntry> entries = new LinkedHashMap<>();
    private final Scalars scalars = new Scalars();

    public RankState register(String name, double[] array) {
        return add(name, EntryType.DOUBLE, array, array.length);
    }

    public RankState register(String name, long[] array) {
        return add(name, EntryType.LONG, array, array.length);
    }

    public RankState register(String name, int[] array) {
        return add(name, EntryType.INT, array, array.length);
    }

    public RankState register(String name, float[] array) {
        return add(name, EntryType.FLOAT, array, array.length);
    }

    public RankState register(String name, short[] array) {
        return add(name, EntryType.SHORT, array, array.length);
    }

    public RankState register(String name, char[] array) {
        return add(name, EntryType.CHAR, array, array.length);
    }

    public RankState register(String name, byte[] array) {
        return add(name, EntryType.BYTE, array, array.length);
    }

    /** Small named values (loop-carried sums, seeds) that are not worth an array each. */
    public Scalars scalars() {
        return scalars;
    }

    public List<StateEntry> entries() {
        return Collections.unmodifiableList(new ArrayList<>(entries.values()));
    }

    /** Bytes a snapshot of this state takes, scalars included. */
    public long sizeInBytes() {
        long bytes = scalars.sizeInBytes();
        for (StateEntry entry : entries.values()) {
            bytes += entry.sizeInBytes();
        }
        return bytes;
    }

    private RankState add(String name, EntryType type, Object array, int length) {
        Objects.requireNonNull(array, () -> "state '" + name + "' is null");
        if (name == null || name.isEmpty() || name.length() > 200) {
            throw new IllegalArgumentException("state names must be 1-200 characters, got '" + name + "'");
        }
        if (entries.containsKey(name)) {
            throw new IllegalArgumentException("state '" + name + "' is already registered");
        }
        entries.put(name, new StateEntry(name, type, array, length));
        return this;
    }
}
