package org.mpirunft.bridge.state;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Named scalar values that are part of a rank's state. They are saved with every checkpoint and
 * restored on rollback, so loop-carried values survive a failure like arrays do.
 */
public final class Scalars {
    private final Map<String, Long> longs = new LinkedHashMap<>();
    private final Map<String, Double> doubles = new LinkedHashMap<>();

    public void setLong(String name, long value) {
        longs.put(name, value);
    }

    public long getLong(String name, long absent) {
        return longs.getOrDefault(name, absent);
    }

    public void setDouble(String name, double value) {
        doubles.put(name, value);
    }

    public double getDouble(String name, double absent) {
        return doubles.getOrDefault(name, absent);
    }

    Map<String, Long> longs() {
        return longs;
    }

    Map<String, Double> doubles() {
        return doubles;
    }

    void replaceWith(Map<String, Long> newLongs, Map<String, Double> newDoubles) {
        longs.clear();
        longs.putAll(newLongs);
        doubles.clear();
        doubles.putAll(newDoubles);
    }

    /** Bytes the scalars take in a part header. */
    long sizeInBytes() {
        long bytes = 8;
        for (String name : longs.keySet()) {
            bytes += 12 + name.getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
        }
        for (String name : doubles.keySet()) {
            bytes += 12 + name.getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
        }
        return bytes;
    }
}
