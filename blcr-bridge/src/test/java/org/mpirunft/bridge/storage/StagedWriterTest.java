package org.mpirunft.bridge.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpirunft.bridge.state.RankState;
import org.mpirunft.bridge.state.Snapshot;

/** The writer's copy to shared storage waits for the node's flush turn, and always says when it ended. */
class StagedWriterTest {
    @TempDir
    Path root;

    private final double[] field = {1, 2, 3};
    private final RankState state = new RankState().register("field", field);
    private final RecordingGate gate = new RecordingGate();
    private CheckpointStore local;
    private CheckpointStore shared;

    @BeforeEach
    void stores() {
        local = new CheckpointStore(root.resolve("local"), "job");
        shared = new CheckpointStore(root.resolve("shared"), "job");
    }

    /** A gate that records what the writer asked and lets the test open the turn. */
    private static final class RecordingGate implements FlushGate {
        final List<String> calls = new CopyOnWriteArrayList<>();
        final CountDownLatch asked = new CountDownLatch(1);
        final CountDownLatch turn = new CountDownLatch(1);
        volatile boolean discarded;

        @Override
        public boolean awaitTurn(long epoch) throws InterruptedException {
            calls.add("wait " + epoch);
            asked.countDown();
            turn.await();
            return !discarded;
        }

        @Override
        public void done(long epoch) {
            calls.add("done " + epoch);
        }

        @Override
        public void discard(long upToEpoch) {
            discarded = true;
            turn.countDown();
        }
    }

    /** A writer from {@link #local} to {@link #shared} that asks {@link #gate} for its node's turns. */
    private StagedWriter writerThroughGate() {
        StagedWriter writer = new StagedWriter(local, shared, 0);
        writer.flushThrough(gate);
        return writer;
    }

    /** Epoch 1's part, on its way through {@code writer}, once the writer asked {@link #gate} for the node's turn. */
    private CompletableFuture<PartRecord> epochOneAwaitingItsTurn(StagedWriter writer) throws InterruptedException {
        CompletableFuture<PartRecord> part = writer.write(Snapshot.capture(state, 1, 0, 10));
        assertTrue(gate.asked.await(10, TimeUnit.SECONDS), "the writer asked for a turn");
        return part;
    }

    @Test
    void theCopyToSharedStorageWaitsForTheNodesTurnWhileTheLocalPartIsWritten() throws Exception {
        try (StagedWriter writer = writerThroughGate()) {
            CompletableFuture<PartRecord> part = epochOneAwaitingItsTurn(writer);
            assertTrue(Files.exists(local.epochDirectory(1).resolve(CheckpointStore.partFileName(0))), "the local part is written first");
            assertFalse(Files.exists(shared.epochDirectory(1).resolve(CheckpointStore.partFileName(0))), "no copy before the turn");
            assertFalse(part.isDone());
            gate.turn.countDown();
            assertTrue(part.get(10, TimeUnit.SECONDS).bytes() > 3 * 8, "the whole part");
            assertTrue(Files.exists(shared.epochDirectory(1).resolve(CheckpointStore.partFileName(0))), "copied in its turn");
            assertEquals(List.of("wait 1", "done 1"), gate.calls);
            // A part for node-local storage only needs no turn.
            writer.write(Snapshot.capture(state, 2, 0, 20), EnumSet.of(StorageLevels.Level.LOCAL), null).get(10, TimeUnit.SECONDS);
            assertEquals(List.of("wait 1", "done 1"), gate.calls);
        }
    }

    @Test
    void aDiscardedEpochIsNotCopiedAndItsTurnEnds() throws Exception {
        try (StagedWriter writer = writerThroughGate()) {
            CompletableFuture<PartRecord> part = epochOneAwaitingItsTurn(writer);
            writer.discardWaits(1);
            CompletionException failed = assertThrows(CompletionException.class, part::join);
            assertInstanceOf(CheckpointWriteException.class, failed.getCause());
            assertFalse(Files.exists(shared.epochDirectory(1).resolve(CheckpointStore.partFileName(0))));
            assertEquals(List.of("wait 1", "done 1"), gate.calls, "the node's turn is told the copy ended");
        }
    }

    @Test
    void aRankWhoseLocalWriteFailedEndsItsTurnWithoutWaiting() throws Exception {
        // The local store's directory cannot be made: a file stands in its place.
        Files.writeString(root.resolve("local"), "a file where the directory should be");
        try (StagedWriter writer = writerThroughGate()) {
            assertThrows(CompletionException.class, () -> writer.write(Snapshot.capture(state, 1, 0, 10)).join());
            assertEquals(List.of("done 1"), gate.calls, "its node's turn does not wait for a part that is not there");
        }
    }

    /** The calling thread's scheduling policy from {@code /proc} (field 41 of its stat line): 0 normal, 1 SCHED_FIFO. */
    private static int schedulingPolicy() {
        try {
            String stat = Files.readString(Path.of("/proc/thread-self/stat"));
            return Integer.parseInt(stat.substring(stat.lastIndexOf(')') + 2).split(" ")[41 - 3]);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** The writer thread's policy, seen from the writer thread itself (a gate's wait runs on it). */
    private static int writerPolicy(CheckpointStore local, CheckpointStore shared) throws Exception {
        int[] policy = {-1};
        FlushGate seeing = new FlushGate() {
            @Override
            public boolean awaitTurn(long epoch) {
                policy[0] = schedulingPolicy();
                return true;
            }

            @Override
            public void done(long epoch) {
            }

            @Override
            public void discard(long upToEpoch) {
            }
        };
        try (StagedWriter writer = new StagedWriter(local, shared, 0)) {
            writer.flushThrough(seeing);
            writer.write(Snapshot.capture(new RankState().register("field", new double[] {1, 2, 3}), 1, 0, 10)).get(10, TimeUnit.SECONDS);
        }
        return policy[0];
    }

    @Test
    void theWriterRunsAtRealTimePriorityUnlessItCompresses() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(System.getProperty("os.name").startsWith("Linux"), "Linux scheduling classes");
        // The tests run as root (the simulated cluster needs it), so the writer may raise itself.
        assertEquals(1, writerPolicy(local, shared), "SCHED_FIFO");
        assertEquals(0, writerPolicy(new CheckpointStore(root.resolve("zl"), "job", PartCodec.ZSTD),
                new CheckpointStore(root.resolve("zs"), "job", PartCodec.ZSTD)), "a compressing writer stays normal");
        assertEquals(0, schedulingPolicy(), "the calling thread is left alone");
    }
}
