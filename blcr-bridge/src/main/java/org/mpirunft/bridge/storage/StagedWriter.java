package org.mpirunft.bridge.storage;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.mpirunft.bridge.state.Snapshot;

/**
 * Writes snapshots off the compute thread to the disk levels of their epoch: node-local
 * storage first, then a copy to shared storage. A part counts as durable only when every copy
 * its epoch asks for is on disk; the returned future completes then. An epoch of no disk level
 * (a partner copy only) gets its CRC computed here, off the compute thread too. One writer
 * thread per rank keeps parts in epoch order.
 */
public final class StagedWriter implements AutoCloseable {
    private final CheckpointStore local;
    private final CheckpointStore shared;
    private final ExecutorService thread;

    public StagedWriter(CheckpointStore local, CheckpointStore shared, int rank) {
        this.local = local;
        this.shared = shared;
        this.thread = Executors.newSingleThreadExecutor(runnable -> {
            Thread writer = new Thread(runnable, "checkpoint-writer-rank-" + rank);
            writer.setDaemon(true);
            return writer;
        });
    }

    /** Starts writing to node-local and shared storage; the future yields the part as the manifest will list it. */
    public CompletableFuture<PartRecord> write(Snapshot snapshot) {
        return write(snapshot, java.util.EnumSet.of(StorageLevels.Level.LOCAL, StorageLevels.Level.SHARED), null);
    }


    /**
     * Starts writing to the disk levels among {@code levels}; as a delta on {@code base} if it is
     * not null (the caller keeps {@code base} live until the future completes).
     */
    public CompletableFuture<PartRecord> write(Snapshot snapshot, java.util.Set<StorageLevels.Level> levels, Snapshot base) {
        boolean toLocal = levels.contains(StorageLevels.Level.LOCAL);
        boolean toShared = levels.contains(StorageLevels.Level.SHARED);
        return CompletableFuture.supplyAsync(() -> {
            try {
                if (!toLocal && !toShared) {
                    return new PartRecord(snapshot.rank(), CheckpointStore.partFileName(snapshot.rank()), snapshot.sizeInBytes(),
                            snapshot.crc32c());
                }
                CheckpointStore first = toLocal ? local : shared;
                PartRecord part = base != null ? first.writeDelta(snapshot, base) : first.writePart(snapshot);
                return toLocal && toShared ? shared.copyPart(local, snapshot.epoch(), part) : part;
            } catch (IOException e) {
                throw new CompletionException(new CheckpointWriteException(snapshot.rank(), snapshot.epoch(), e));
            }
        }, thread);
    }

    @Override
    public void close() {
        thread.shutdown();
        try {
            thread.awaitTermination(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
