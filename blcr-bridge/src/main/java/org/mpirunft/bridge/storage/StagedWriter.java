package org.mpirunft.bridge.storage;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.mpirunft.bridge.state.Snapshot;

/**
 * Writes snapshots off the compute thread in two stages: to node-local storage first, then a
 * copy to shared storage. A part counts as durable only when both copies are on disk; the
 * returned future completes then. One writer thread per rank keeps parts in epoch order.
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

    /** Starts writing; the future yields the part as the manifest will list it. */
    public CompletableFuture<PartRecord> write(Snapshot snapshot) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                PartRecord part = local.writePart(snapshot);
                return shared.copyPart(local, snapshot.epoch(), part);
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
