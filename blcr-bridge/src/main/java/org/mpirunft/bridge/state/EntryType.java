package org.mpirunft.bridge.state;

/** The primitive element types a state entry can have, with their on-disk codes and sizes. */
public enum EntryType {
    BYTE((byte) 'B', 1, byte.class),
    SHORT((byte) 'S', 2, short.class),
    CHAR((byte) 'C', 2, char.class),
    INT((byte) 'I', 4, int.class),
    FLOAT((byte) 'F', 4, float.class),
    LONG((byte) 'J', 8, long.class),
    DOUBLE((byte) 'D', 8, double.class);

    private final byte code;
    private final int elementBytes;
    private final Class<?> elementClass;

    EntryType(byte code, int elementBytes, Class<?> elementClass) {
        this.code = code;
        this.elementBytes = elementBytes;
        this.elementClass = elementClass;
    }

    /** The primitive class of the elements, {@code double.class} for example. */
    public Class<?> elementClass() {
        return elementClass;
    }

    public byte code() {
        return code;
    }

    public int elementBytes() {
        return elementBytes;
    }

    public static EntryType ofCode(byte code) {
        for (EntryType type : values()) {
            if (type.code == code) {
                return type;
            }
        }
        throw new IllegalArgumentException("unknown state entry type code " + code);
    }
}
