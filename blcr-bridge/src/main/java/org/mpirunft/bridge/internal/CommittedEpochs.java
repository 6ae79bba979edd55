package org.mpirunft.bridge.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.LongBuffer;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import org.mpirunft.bridge.storage.CheckpointStore;
import org.mpirunft.bridge.storage.EpochManifest;
import org.mpirunft.bridge.storage.PartRecord;
import org.mpirunft.bridge.storage.StorageLevels;
import org.mpirunft.bridge.storage.StorageLevels.Level;

/**
 * The epochs a rank committed with the others, as {@link CheckpointCoordinator} knows them: their
 * manifests (the recovery lines it knows without any disk), which of them each storage level keeps
 * (the newest two, with delta chains the full epochs they need), the deletion of older ones on
 * node-local and shared storage, and the list of candidates for a rollback that every rank
 * agrees on. Not thread-safe: the rank's main thread owns it, but for a replacement's read ahead
 * ({@link PartReads}), which looks manifests up on a thread of its own while the program sets up.
 */
final class CommittedEpochs {
    private final CheckpointStore local;
    private final CheckpointStore shared;
    private final StorageLevels levels;
    /** The epochs this rank committed with the others, newest last: the recovery lines it knows without any disk. */
    private final TreeMap<Long, EpochManifest> committed = new TreeMap<>();
    /** Per level, the epochs it keeps: the newest two that went there. */
    private final Map<Level, List<Long>> keptAt = new EnumMap<>(Level.class);

    /** {@code latest}: the newest epoch on shared storage when the rank starts, a relaunch's fallback. */
    CommittedEpochs(CheckpointStore local, CheckpointStore shared, StorageLevels levels, Optional<EpochManifest> latest) {
        this.local = local;
        this.shared = shared;
        this.levels = levels;
        // A relaunch keeps the previous attempt's newest epoch as a fallback, as a second epoch would be.
        latest.ifPresent(this::keptAtItsLevels);
    }

    /** Each level {@code manifest}'s epoch went to keeps it. */
    private void keptAtItsLevels(EpochManifest manifest) {
        for (Level level : Level.values()) {
            if (manifest.holds(level)) {
                keptAt.computeIfAbsent(level, l -> new ArrayList<>()).add(manifest.epoch());
            }
        }
    }

    /** The manifest of committed epoch {@code epoch} if this rank committed it (or learnt it), else null. */
    EpochManifest get(long epoch) {
        return committed.get(epoch);
    }

    /** Epoch {@code epoch} committed with {@code manifest}; {@link #keepNewest} then settles what the levels keep. */
    void put(long epoch, EpochManifest manifest) {
        committed.put(epoch, manifest);
    }

    /** The manifest of committed epoch {@code epoch}, from memory, else from shared storage. */
    Optional<EpochManifest> manifestOf(long epoch) {
        EpochManifest known = committed.get(epoch);
        if (known != null) {
            return Optional.of(known);
        }
        return shared.manifest(epoch);
    }

    /**
     * The committed epochs this rank knows, newest first: those it committed with the others
     * (in memory), and those on shared storage (a relaunch's, a replacement's only source).
     */
    List<EpochManifest> known() {
        TreeMap<Long, EpochManifest> known = new TreeMap<>();
        if (levels.uses(Level.SHARED) || committed.isEmpty()) {
            shared.committedEpochs().forEach(m -> known.put(m.epoch(), m));
        }
        known.putAll(committed);
        return List.copyOf(known.descendingMap().values());
    }

    /**
     * Collective over {@code world}: the candidates for a rollback, newest first, as the rank
     * that knows the newest committed epoch knows them (lowest such rank). A replacement, or a
     * relaunch without shared storage, knows only what the survivors tell it. {@code rank} is
     * this rank's number in {@code world}.
     */
    List<EpochManifest> agreedCandidates(Intracomm world, int rank) throws MPIException {
        List<EpochManifest> mine = known();
        int size = world.getSize();
        long newest = mine.isEmpty() ? 0 : mine.getFirst().epoch();
        LongBuffer best = MPI.newLongBuffer(1).put(0, newest * size + (size - 1 - rank));
        world.allReduce(best, 1, MPI.LONG, MPI.MAX);
        int root = size - 1 - (int) (best.get(0) % size);
        if (best.get(0) / size == 0) {
            return List.of();
        }
        byte[] encoded = rank == root ? CheckpointStore.encodeManifests(mine) : new byte[0];
        LongBuffer length = MPI.newLongBuffer(1).put(0, encoded.length);
        world.bcast(length, 1, MPI.LONG, root);
        ByteBuffer bytes = MPI.newByteBuffer((int) length.get(0));
        if (rank == root) {
            bytes.put(0, encoded);
        }
        world.bcast(bytes, (int) length.get(0), MPI.BYTE, root);
        byte[] received = new byte[(int) length.get(0)];
        bytes.get(0, received);
        try {
            List<EpochManifest> candidates = CheckpointStore.decodeManifests(received);
            // A replacement learns here the epochs the others committed: its delta chains and the
            // levels' retention need their manifests from now on.
            candidates.forEach(m -> committed.putIfAbsent(m.epoch(), m));
            return candidates;
        } catch (IOException e) {
            throw new IllegalStateException("rank " + rank + ": rank " + root + "'s list of committed epochs is unreadable: "
                    + e.getMessage(), e);
        }
    }

    /** How many deltas rank {@code rank}'s part of {@code manifest} is from a full part; {@code fullEvery} if the chain is not all known. */
    int chainLength(EpochManifest manifest, int rank, int fullEvery) {
        int length = 0;
        EpochManifest link = manifest;
        while (link.part(rank).isDelta()) {
            length++;
            link = committed.get(link.part(rank).base());
            if (link == null || length >= fullEvery) {
                return fullEvery;
            }
        }
        return length;
    }

    /** The oldest epoch {@code manifest}'s parts need on disk: the full parts their delta chains start from. */
    private long chainRoot(EpochManifest manifest) {
        long root = manifest.epoch();
        for (PartRecord part : manifest.parts()) {
            PartRecord link = part;
            while (link.isDelta()) {
                EpochManifest base = committed.get(link.base());
                if (base == null) {
                    return 0;
                }
                root = Math.min(root, base.epoch());
                link = base.part(part.rank());
            }
        }
        return root;
    }

    /**
     * Of a level's epochs, oldest first, the oldest to keep: the full epoch before the one the
     * newest epoch's delta chain starts from (the fallback if a link of the chain is damaged), and
     * all after it. With full parts only, that is the newest two.
     */
    private long oldestKept(List<Long> epochs) {
        long root = chainRoot(committed.get(epochs.getLast()));
        for (int i = epochs.size() - 1; i >= 0; i--) {
            long e = epochs.get(i);
            EpochManifest manifest = committed.get(e);
            if (e < root && manifest != null && chainRoot(manifest) == e) {
                return e;
            }
        }
        return epochs.getFirst();
    }

    /**
     * Each level keeps the newest two epochs that went to it (with delta chains, see
     * {@link #oldestKept}): the newest, and one to fall back to if it is damaged. A disk level's
     * older epochs are deleted, committed or not (rank 0 deletes on shared storage); a manifest is
     * kept in memory while a level keeps its epoch.
     */
    void keepNewest(long epoch, EpochManifest manifest, boolean rankZero) {
        for (Level level : Level.values()) {
            if (!manifest.holds(level)) {
                continue;
            }
            List<Long> kept = keptAt.computeIfAbsent(level, l -> new ArrayList<>());
            kept.add(epoch);
            long oldestKept = oldestKept(kept);
            kept.removeIf(e -> e < oldestKept);
            if (level == Level.LOCAL) {
                local.deleteEpochsBefore(oldestKept);
            } else if (level == Level.SHARED && rankZero) {
                shared.deleteEpochsBefore(oldestKept);
            }
        }
        committed.keySet().removeIf(e -> e != epoch && keptAt.values().stream().noneMatch(kept -> kept.contains(e)));
    }

    /** The job rolled back to {@code epoch}: newer epochs are forgotten (their files are the coordinator's to delete). */
    void rolledBackTo(long epoch) {
        committed.tailMap(epoch, false).clear();
        keptAt.values().forEach(kept -> kept.removeIf(e -> e > epoch));
    }

    /** The manifests this rank committed, for a spare that takes its place: {@link CheckpointStore#encodeManifests}. */
    byte[] encoded() {
        return CheckpointStore.encodeManifests(List.copyOf(committed.values()));
    }

    /** A spare that took a moved rank's place knows what its predecessor committed ({@link #encoded}), and nothing else. */
    void continueFrom(byte[] manifests) throws IOException {
        committed.clear();
        keptAt.clear();
        for (EpochManifest manifest : CheckpointStore.decodeManifests(manifests)) {
            committed.put(manifest.epoch(), manifest);
            keptAtItsLevels(manifest);
        }
    }
}
