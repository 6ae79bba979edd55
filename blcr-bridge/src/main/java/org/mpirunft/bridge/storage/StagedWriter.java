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
 * thread per rank keeps parts in epoch order; it runs at real-time priority where allowed
 * ({@link WriterScheduling}).
 */
public final class StagedWriter implements AutoCloseable {
    private final CheckpointStore local;
    private final CheckpointStore shared;
    private final ExecutorService thread;
    private volatile FlushGate gate = FlushGate.OPEN;

    public StagedWriter(CheckpointStore local, CheckpointStore shared, int rank) {
        this.local = local;
        this.shared = shared;
        this.thread = Executors.newSingleThreadExecutor(runnable -> {
            Thread writer = new Thread(() -> {
                // A compressing writer computes for long: at real-time priority it would starve the ranks.
                if (!local.compresses() && !shared.compresses()) {
                    WriterScheduling.raiseCallingThread();
                }
                runnable.run();
            }, "checkpoint-writer-rank-" + rank);
            writer.setDaemon(true);
            return writer;
        });
    }

    /** Copies to shared storage wait for the node's turn at {@code gate} (a staggered flush). */
    public void flushThrough(FlushGate gate) {
        this.gate = gate;
    }

    /** Ends a wait for a flush turn of an epoch up to {@code upToEpoch}: it is being discarded. */
    public void discardWaits(long upToEpoch) {
        gate.discard(upToEpoch);
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
                if (!toShared) {
                    return writeTo(local, snapshot, base);
                }
                return toLocal ? flushed(snapshot, base) : inTurn(snapshot, () -> writeTo(shared, snapshot, base));
            } catch (IOException e) {
                throw new CompletionException(new CheckpointWriteException(snapshot.rank(), snapshot.epoch(), e));
            }
        }, thread);
    }

    /** Node-local first, then the copy to shared storage in the node's turn. */
    private PartRecord flushed(Snapshot snapshot, Snapshot base) throws IOException {
        PartRecord part;
        try {
            part = writeTo(local, snapshot, base);
        } catch (IOException | RuntimeException e) {
            // The node's turn must not wait for a rank that has nothing to copy.
            gate.done(snapshot.epoch());
            throw e;
        }
        return inTurn(snapshot, () -> shared.copyPart(local, snapshot.epoch(), part));
    }

    /** The part as a delta on {@code base}, or whole if there is none. */
    private static PartRecord writeTo(CheckpointStore store, Snapshot snapshot, Snapshot base) throws IOException {
        return base != null ? store.writeDelta(snapshot, base) : store.writePart(snapshot);
    }

    private interface SharedWrite {
        PartRecord run() throws IOException;
    }

    private PartRecord inTurn(Snapshot snapshot, SharedWrite write) throws IOException {
        long epoch = snapshot.epoch();
        try {
            if (!gate.awaitTurn(epoch)) {
                throw new IOException("epoch " + epoch + " was discarded while its copy waited for the node's turn to flush");
            }
            return write.run();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while waiting for the node's turn to flush epoch " + epoch, e);
        } finally {
            gate.done(epoch);
        }
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
