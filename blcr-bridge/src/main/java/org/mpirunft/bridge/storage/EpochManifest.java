package org.mpirunft.bridge.storage;

import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * The commit record of one coordinated checkpoint. It is written last, after every rank's part
 * is whole at each of the epoch's storage levels, so its presence is what makes an epoch a
 * recovery line. Every rank keeps the records of the epochs it committed in memory; the shared
 * store holds those of the epochs that went there.
 *
 * @param version    format version of this record; version 1 (before storage levels) is read
 *                   as an epoch on node-local and shared storage
 * @param job        the job the epoch belongs to
 * @param epoch      checkpoint number, increasing from 1
 * @param iteration  the safe point a rollback to this epoch resumes at
 * @param worldSize  number of ranks, one part each
 * @param parts      one per rank, in rank order
 * @param levels     the storage levels that hold every part of the epoch, by label
 */
public record EpochManifest(int version, String job, long epoch, long iteration, int worldSize, List<PartRecord> parts,
                            List<String> levels) {
    public static final int VERSION = 2;
    private static final List<String> BEFORE_LEVELS = List.of(StorageLevels.Level.LOCAL.label(), StorageLevels.Level.SHARED.label());

    public EpochManifest {
        if (version != VERSION && version != 1) {
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
        if (levels == null) {
            if (version != 1) {
                throw new IllegalArgumentException("manifest of epoch " + epoch + " names no storage levels");
            }
            levels = BEFORE_LEVELS;
        }
        levels = List.copyOf(levels);
        for (String level : levels) {
            StorageLevels.parse("manifest levels", level);
        }
    }

    /** An epoch on node-local and shared storage, as before storage levels. */
    public static EpochManifest of(String job, long epoch, long iteration, List<PartRecord> parts) {
        return of(job, epoch, iteration, parts, EnumSet.of(StorageLevels.Level.LOCAL, StorageLevels.Level.SHARED));
    }

    public static EpochManifest of(String job, long epoch, long iteration, List<PartRecord> parts, Set<StorageLevels.Level> levels) {
        return new EpochManifest(VERSION, job, epoch, iteration, parts.size(), parts,
                levels.stream().sorted().map(StorageLevels.Level::label).toList());
    }

    public PartRecord part(int rank) {
        return parts.get(rank);
    }

    /** Whether every part of this epoch is held at {@code level}. */
    public boolean holds(StorageLevels.Level level) {
        return levels.contains(level.label());
    }
}
