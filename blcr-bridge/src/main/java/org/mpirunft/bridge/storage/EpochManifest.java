package org.mpirunft.bridge.storage;

import java.util.List;

/**
 * The commit record of one coordinated checkpoint. It is written last, after every rank's part
 * is durable, so its presence is what makes an epoch a recovery line.
 *
 * @param version    format version of this record
 * @param job        the job the epoch belongs to
 * @param epoch      checkpoint number, increasing from 1
 * @param iteration  the safe point a rollback to this epoch resumes at
 * @param worldSize  number of ranks, one part each
 * @param parts      one per rank, in rank order
 */
public record EpochManifest(int version, String job, long epoch, long iteration, int worldSize, List<PartRecord> parts) {
    public static final int VERSION = 1;

    public EpochManifest {
        if (version != VERSION) {
            throw new IllegalArgumentException("manifest version " + version + " is not supported (expected " + VERSION + ")");
        }
        if (epoch < 1) {
            throw new IllegalArgumentException("manifest epoch must be >= 1, got " + epoch);
        }
        if (parts == null || parts.size() != worldSize) {
            throw new IllegalArgumentException("manifest of epoch " + epoch + " lists " + (parts == null ? 0 : parts.size())
                    + " parts for " + worldSize + " ranks");
        }
        parts = List.copyOf(parts);
        for (int rank = 0; rank < parts.size(); rank++) {
            if (parts.get(rank).rank() != rank) {
                throw new IllegalArgumentException("manifest of epoch " + epoch + " has part " + rank + " for rank " + parts.get(rank).rank());
            }
        }
    }

    public static EpochManifest of(String job, long epoch, long iteration, List<PartRecord> parts) {
        return new EpochManifest(VERSION, job, epoch, iteration, parts.size(), parts);
    }

    public PartRecord part(int rank) {
        return parts.get(rank);
    }
}
