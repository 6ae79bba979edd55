package org.mpirunft.bridge.storage;

/** One rank's part of an epoch as the manifest lists it: file name, size and CRC32C. */
public record PartRecord(int rank, String file, long bytes, long crc32c) {
    public PartRecord {
        if (rank < 0) {
            throw new IllegalArgumentException("part rank must be >= 0, got " + rank);
        }
        if (file == null || file.contains("/") || file.isEmpty()) {
            throw new IllegalArgumentException("part file must be a plain file name, got '" + file + "'");
        }
        if (bytes < 0) {
            throw new IllegalArgumentException("part bytes must be >= 0, got " + bytes);
        }
    }
}
