package org.mpirunft.bridge.state;

/** The primitive element types a state entry can have, with their on-disk codes and sizes. */
public enum EntryType {
    BYTE((byte) 'B', 1),
    SHORT((byte) 'S', 2),
    CHAR((byte) 'C', 2),
    INT((byte) 'I', 4),
    FLOAT((byte) 'F', 4),
    LONG((byte) 'J', 8),
    DOUBLE((byte) 'D', 8);

    private final byte code;
    private final int elementBytes;

    EntryType(byte code, int elementBytes) {
        this.code = code;
        this.elementBytes = elementBytes;
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
