package org.mpirunft.bridge.state;

/** One registered array: its name, element type, the live array object and its length. */
public record StateEntry(String name, EntryType type, Object array, int length) {
    public long sizeInBytes() {
        return (long) length * type.elementBytes();
    }
}
