package org.mpirunft.bridge.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpirunft.bridge.RankListener;
import org.mpirunft.bridge.state.RankState;
import org.mpirunft.bridge.state.Snapshot;
import org.mpirunft.bridge.storage.CheckpointStore;
import org.mpirunft.bridge.storage.EpochManifest;
import org.mpirunft.bridge.storage.PartRecord;
import org.mpirunft.bridge.storage.StorageLevels;

/** A replacement's read of its part, started before the program's setup and taken at the rollback. */
class CheckpointCoordinatorReadTest {
    @TempDir
    Path root;

    @Test
    void theRollbackTakesThePartReadAheadAndDoesNotReadItAgain() throws Exception {
        CheckpointStore shared = new CheckpointStore(root.resolve("shared"), "job1");
        long[] saved = {7, 8, 9};
        PartRecord other = shared.writePart(Snapshot.capture(new RankState().register("x", new long[] {1, 2, 3}), 3, 0, 30));
        PartRecord part = shared.writePart(Snapshot.capture(new RankState().register("x", saved), 3, 1, 30));
        shared.commit(EpochManifest.of("job1", 3, 30, List.of(other, part)));
        EpochManifest manifest = shared.latestCommitted().orElseThrow();
        try (CheckpointCoordinator coordinator = coordinator(shared, 1)) {
            readAheadThenRollBack(coordinator, shared, manifest, saved);
        }
    }

    private static void readAheadThenRollBack(CheckpointCoordinator coordinator, CheckpointStore shared, EpochManifest manifest,
                                              long[] saved) throws Exception {
        coordinator.startReadingNewest();
        long readNanos = coordinator.awaitRead();
        assertTrue(readNanos > 0, "the read's own time is known before the agreement: " + readNanos);
        // Gone from storage after the read-ahead: only the part read ahead can be restored now.
        Files.delete(shared.epochDirectory(3).resolve(CheckpointStore.partFileName(1)));

        Optional<Snapshot> loaded = coordinator.loadable(manifest);
        assertTrue(loaded.isPresent(), "the rollback used the part read ahead");
        long[] restored = new long[3];
        loaded.get().restoreInto(new RankState().register("x", restored));
        assertArrayEquals(saved, restored);
        assertEquals(Optional.empty(), coordinator.loadable(manifest), "taken once; a second load reads storage again");
    }

    @Test
    void theReadAheadIsToldToTheProgramsListenerWithWhereItCameFrom() throws Exception {
        CheckpointStore shared = new CheckpointStore(root.resolve("shared"), "job1");
        PartRecord other = shared.writePart(Snapshot.capture(new RankState().register("x", new long[] {1, 2, 3}), 3, 0, 30));
        PartRecord part = shared.writePart(Snapshot.capture(new RankState().register("x", new long[] {7, 8, 9}), 3, 1, 30));
        shared.commit(EpochManifest.of("job1", 3, 30, List.of(other, part)));
        List<RankListener.StateTransfer> told = new CopyOnWriteArrayList<>();
        RankListener listener = new RankListener() {
            @Override
            public void stateTransferred(StateTransfer transfer) {
                told.add(transfer);
            }
        };
        try (CheckpointCoordinator coordinator = new CheckpointCoordinator(new RankState(),
                new CheckpointStore(root.resolve("local"), "job1"), shared, CheckpointPolicy.own(0, Optional.empty(), System::nanoTime),
                false, StorageLevels.DEFAULT, "job1", 1, listener)) {
            coordinator.startReadingNewest();
            long readNanos = coordinator.awaitRead();
            assertEquals(1, told.size(), told.toString());
            RankListener.StateTransfer read = told.getFirst();
            assertEquals(List.of(1L, 3L, 1L, part.bytes()), List.of((long) read.rank(), read.epoch(), (long) read.owner(), read.bytes()));
            assertEquals(RankListener.StateTransfer.Source.SHARED, read.from(), "the epoch went to shared storage only");
            assertTrue(read.nanos() > 0 && read.nanos() <= readNanos, read + " within the read's " + readNanos + " ns");
        }
    }

    @Test
    void withNothingCommittedNothingIsRead() {
        try (CheckpointCoordinator coordinator = coordinator(new CheckpointStore(root.resolve("shared"), "job1"), 0)) {
            coordinator.startReadingNewest();
            assertEquals(0, coordinator.awaitRead());
        }
    }

    private CheckpointCoordinator coordinator(CheckpointStore shared, int rank) {
        return new CheckpointCoordinator(new RankState(), new CheckpointStore(root.resolve("local"), "job1"), shared,
                CheckpointPolicy.own(0, Optional.empty(), System::nanoTime), false, "job1", rank);
    }
}
