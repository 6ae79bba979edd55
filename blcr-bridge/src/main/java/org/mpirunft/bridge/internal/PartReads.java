package org.mpirunft.bridge.internal;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.logging.Logger;
import org.mpirunft.bridge.RankListener;
import org.mpirunft.bridge.RankListener.StateTransfer.Source;
import org.mpirunft.bridge.state.RankState;
import org.mpirunft.bridge.state.Redistribution;
import org.mpirunft.bridge.state.Snapshot;
import org.mpirunft.bridge.state.StateMismatchException;
import org.mpirunft.bridge.storage.CheckpointStore;
import org.mpirunft.bridge.storage.EpochManifest;
import org.mpirunft.bridge.storage.StorageLevels.Level;

/**
 * Reads of committed parts from disk for {@link CheckpointCoordinator}: this rank's part from
 * node-local storage, else shared storage, as the epoch went there (each read told to the
 * program's listener: where from and how fast); a replacement's read of its part ahead of the
 * rollback, while its program sets up; and the parts another rank count wrote, redistributed for
 * this one. Not thread-safe: the rank's main thread owns it; the read ahead runs on a thread of
 * its own.
 */
final class PartReads {
    private static final Logger LOG = Logger.getLogger(PartReads.class.getName());

    /** This rank's number, which a shrink changes: whose part a read is for. */
    private int rank;
    /** A replacement's read of its part, under way while the program sets up; null if none. */
    private StateRead read;
    private final RankState state;
    private final CheckpointStore local;
    private final CheckpointStore shared;
    private final CommittedEpochs epochs;

    /** The program's, told of each part read. */
    private final RankListener listener;

    PartReads(RankState state, CheckpointStore local, CheckpointStore shared, CommittedEpochs epochs, int rank, RankListener listener) {
        this.listener = listener;
        this.state = state;
        this.local = local;
        this.shared = shared;
        this.epochs = epochs;
        this.rank = rank;
    }

    /** This rank is {@code newRank} now (the job shrank): a part read ahead is its old rank's, and is dropped. */
    void renumber(int newRank) {
        rank = newRank;
        read = null;
    }

    /** The job rolled back: a part read ahead is of no use any more. */
    void dropReadAhead() {
        read = null;
    }

    /**
     * This rank's part of {@code manifest}'s epoch: the one read ahead if it is of that epoch
     * (taken once), else from node-local storage, else from shared storage, each checked against
     * the manifest's CRC.
     */
    Optional<Snapshot> load(EpochManifest manifest) {
        if (read != null && read.epoch() == manifest.epoch()) {
            CompletableFuture<PartRead> part = read.part();
            read = null;
            return part.join().snapshot();
        }
        return readPart(manifest, rank);
    }

    /**
     * Starts reading this rank's part of the newest committed epoch on a thread of its own. A
     * replacement calls it as soon as it has joined, so that the read overlaps the program's own
     * setup before its loop; {@link #load} then waits for it. Reads nothing if no epoch is
     * committed.
     */
    void startReadingNewest() {
        List<EpochManifest> candidates = epochs.known();
        if (candidates.isEmpty()) {
            return;
        }
        EpochManifest newest = candidates.getFirst();
        CompletableFuture<PartRead> part = new CompletableFuture<>();
        read = new StateRead(newest.epoch(), part);
        Thread.ofPlatform().daemon().name("rank-state-read").start(() -> {
            long start = System.nanoTime();
            try {
                Optional<Snapshot> snapshot = readPart(newest, rank);
                part.complete(new PartRead(snapshot, System.nanoTime() - start));
            } catch (Throwable e) {
                part.completeExceptionally(e);
            }
        });
    }

    /**
     * Waits for the read {@link #startReadingNewest} started; returns how long the read itself
     * took, in nanoseconds, or 0 if none was started or it failed (the rollback's own load then
     * reports why).
     */
    long awaitRead() {
        StateRead started = read;
        if (started == null) {
            return 0;
        }
        try {
            return started.part().join().nanos();
        } catch (CompletionException | java.util.concurrent.CancellationException e) {
            return 0;
        }
    }

    /** A part read started ahead of the rollback: {@link #startReadingNewest}. */
    private record StateRead(long epoch, CompletableFuture<PartRead> part) {
    }

    /** What the read ahead found, and how long it took. */
    private record PartRead(Optional<Snapshot> snapshot, long nanos) {
    }

    /**
     * This rank's snapshot of {@code manifest}'s epoch, written by another rank count, rebuilt
     * for {@code ranks} ranks ({@link Redistribution}) from the old parts that hold its share,
     * read from node-local or shared storage. Empty if a part cannot be read or does not hold
     * what this rank registered (said in the log). Partner copies and XOR sets are per rank of
     * the old layout, so an epoch held only there cannot be redistributed.
     */
    Optional<Snapshot> redistributed(EpochManifest manifest, int ranks) {
        Map<Integer, Snapshot> parts = new HashMap<>();
        for (int from : Redistribution.sources(state, manifest.worldSize(), rank, ranks)) {
            Optional<Snapshot> part = readPart(manifest, from);
            if (part.isEmpty()) {
                LOG.warning(() -> "rank " + rank + ": epoch " + manifest.epoch() + " cannot be redistributed: the part of rank "
                        + from + " of " + manifest.worldSize() + " is not readable here");
                return Optional.empty();
            }
            parts.put(from, part.get());
        }
        try {
            return Optional.of(Redistribution.assemble(state, manifest.worldSize(), rank, ranks, parts));
        } catch (StateMismatchException e) {
            LOG.warning(() -> "rank " + rank + ": epoch " + manifest.epoch() + " cannot be redistributed: " + e.getMessage());
            return Optional.empty();
        }
    }

    /**
     * Rank {@code owner}'s part, from node-local storage, else shared storage, as the epoch went
     * there; tells the listener where it came from and how fast.
     */
    private Optional<Snapshot> readPart(EpochManifest manifest, int owner) {
        List<CheckpointStore> stores = new ArrayList<>();
        if (manifest.holds(Level.LOCAL)) {
            stores.add(local);
        }
        if (manifest.holds(Level.SHARED)) {
            stores.add(shared);
        }
        for (CheckpointStore store : stores) {
            long start = System.nanoTime();
            try {
                Snapshot part = store.loadPart(manifest, owner, epochs::manifestOf);
                RankListener.StateTransfer read = new RankListener.StateTransfer(rank, manifest.epoch(), owner,
                        manifest.part(owner).bytes(), System.nanoTime() - start, store == local ? Source.LOCAL : Source.SHARED);
                listener.stateTransferred(read);
                LOG.fine(() -> String.format(java.util.Locale.ROOT, "rank %d: read the part of rank %d of epoch %d (%d bytes) from %s in %.1f ms",
                        rank, owner, read.epoch(), read.bytes(), read.from().label(), read.nanos() / 1e6));
                return Optional.of(part);
            } catch (IOException | RuntimeException e) {
                // A part missing from node-local storage is normal on a spare; a damaged one is news.
                java.util.logging.Level level = e.getMessage() != null && e.getMessage().endsWith("is missing") ? java.util.logging.Level.FINE : java.util.logging.Level.WARNING;
                LOG.log(level, () -> "rank " + rank + ": epoch " + manifest.epoch() + " in " + store.jobDirectory() + " unusable: "
                        + e.getMessage());
            }
        }
        return Optional.empty();
    }
}
