package org.mpirunft.bridge.storage;

/**
 * One rank's part of an epoch as the manifest lists it: file name, size and CRC32C, and
 * {@code base}: 0 for a full part, else the epoch whose part this one is a delta on
 * ({@link org.mpirunft.bridge.state.DeltaPart}). Manifests from before deltas have no base: 0.
 * {@code codec}: how the file is stored ({@link PartCodec#label()}; empty: as it is).
 */
public record PartRecord(int rank, String file, long bytes, long crc32c, long base, String codec) {
    public PartRecord {
        codec = codec == null ? "" : codec;
        PartCodec.ofLabel(codec);
        if (rank < 0) {
            throw new IllegalArgumentException("part rank must be >= 0, got " + rank);
        }
        if (file == null || file.contains("/") || file.isEmpty()) {
            throw new IllegalArgumentException("part file must be a plain file name, got '" + file + "'");
        }
        if (bytes < 0) {
            throw new IllegalArgumentException("part bytes must be >= 0, got " + bytes);
        }
        if (base < 0) {
            throw new IllegalArgumentException("part base must be >= 0, got " + base);
        }
    }

    /** A full part, stored as it is. */
    public PartRecord(int rank, String file, long bytes, long crc32c) {
        this(rank, file, bytes, crc32c, 0, "");
    }

    /** A part stored as it is: full ({@code base} 0) or a delta. */
    public PartRecord(int rank, String file, long bytes, long crc32c, long base) {
        this(rank, file, bytes, crc32c, base, "");
    }

    @com.fasterxml.jackson.annotation.JsonIgnore
    public boolean isDelta() {
        return base != 0;
    }
}
