package org.mpirunft.bridge.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpirunft.bridge.state.CorruptPartException;
import org.mpirunft.bridge.state.RankState;
import org.mpirunft.bridge.state.Snapshot;
import org.mpirunft.common.BadValueException;

class CheckpointStoreTest {
    @TempDir
    Path root;

    @Test
    void aJobIdThatIsNotANameCannotLeaveTheRoot() {
        for (String job : new String[] {"..", "a/b", ".hidden", ""}) {
            assertThrows(BadValueException.class, () -> new CheckpointStore(root, job), job);
        }
    }

    @Test
    void anEpochIsCommittedOnlyOnceItsManifestIsWritten() throws IOException {
        CheckpointStore store = new CheckpointStore(root, "job1");
        List<PartRecord> parts = writeEpoch(store, 1, 3);
        assertTrue(store.committedEpochs().isEmpty(), "parts alone are no recovery line");
        store.commit(EpochManifest.of("job1", 1, 10, parts));
        assertEquals(List.of(1L), store.committedEpochs().stream().map(EpochManifest::epoch).toList());
    }

    @Test
    void aCrashBeforeTheManifestLeavesThePreviousEpochTheRecoveryLine() throws IOException {
        CheckpointStore store = new CheckpointStore(root, "job1");
        store.commit(EpochManifest.of("job1", 1, 10, writeEpoch(store, 1, 2)));
        writeEpoch(store, 2, 2);
        // A writer killed mid-way leaves a temporary file and no manifest.
        Files.writeString(store.epochDirectory(2).resolve("manifest.json.tmp"), "{\"version\":1,");
        assertEquals(1, store.latestCommitted().orElseThrow().epoch());
    }

    @Test
    void aDamagedManifestIsIgnoredNotTrusted() throws IOException {
        CheckpointStore store = new CheckpointStore(root, "job1");
        store.commit(EpochManifest.of("job1", 1, 10, writeEpoch(store, 1, 2)));
        store.commit(EpochManifest.of("job1", 2, 20, writeEpoch(store, 2, 2)));
        Path manifest = store.epochDirectory(2).resolve("manifest.json");
        Files.writeString(manifest, Files.readString(manifest).substring(0, 20));
        assertEquals(1, store.latestCommitted().orElseThrow().epoch());
    }

    @Test
    void refusesToCommitWhenAPartIsMissing() throws IOException {
        CheckpointStore store = new CheckpointStore(root, "job1");
        List<PartRecord> parts = writeEpoch(store, 1, 2);
        Files.delete(store.epochDirectory(1).resolve(parts.get(1).file()));
        IOException e = assertThrows(IOException.class, () -> store.commit(EpochManifest.of("job1", 1, 10, parts)));
        assertTrue(e.getMessage().contains("missing"), e.getMessage());
        assertTrue(store.committedEpochs().isEmpty());
    }

    @Test
    void loadDetectsCorruptionAndTruncation() throws IOException {
        CheckpointStore store = new CheckpointStore(root, "job1");
        EpochManifest manifest = EpochManifest.of("job1", 1, 10, writeEpoch(store, 1, 2));
        store.commit(manifest);
        assertEquals(10, store.loadPart(manifest, 0).iteration());

        Path part0 = store.epochDirectory(1).resolve(manifest.part(0).file());
        byte[] bytes = Files.readAllBytes(part0);
        bytes[bytes.length - 1] ^= 0x40;
        Files.write(part0, bytes);
        assertThrows(CorruptPartException.class, () -> store.loadPart(manifest, 0));

        Path part1 = store.epochDirectory(1).resolve(manifest.part(1).file());
        Files.write(part1, java.util.Arrays.copyOf(Files.readAllBytes(part1), 50));
        assertThrows(CorruptPartException.class, () -> store.loadPart(manifest, 1));

        Files.delete(part1);
        CorruptPartException missing = assertThrows(CorruptPartException.class, () -> store.loadPart(manifest, 1));
        assertTrue(missing.getMessage().contains("missing"), missing.getMessage());
    }

    @Test
    void retentionDeletesOlderAndNewerEpochs() throws IOException {
        CheckpointStore store = new CheckpointStore(root, "job1");
        for (long epoch = 1; epoch <= 4; epoch++) {
            store.commit(EpochManifest.of("job1", epoch, epoch * 10, writeEpoch(store, epoch, 1)));
        }
        store.deleteEpochsBefore(2);
        store.deleteEpochsAfter(3);
        assertEquals(List.of(3L, 2L), store.committedEpochs().stream().map(EpochManifest::epoch).toList());
        assertFalse(Files.exists(store.epochDirectory(1)));
        assertFalse(Files.exists(store.epochDirectory(4)));
    }

    @Test
    void stagedWriterPutsThePartLocallyThenOnSharedStorage() throws Exception {
        CheckpointStore local = new CheckpointStore(root.resolve("local"), "job1");
        CheckpointStore shared = new CheckpointStore(root.resolve("shared"), "job1");
        double[] x = new double[100_000];
        java.util.Arrays.fill(x, 2.5);
        Snapshot snapshot = Snapshot.capture(new RankState().register("x", x), 1, 0, 5);
        try (StagedWriter writer = new StagedWriter(local, shared, 0)) {
            PartRecord part = writer.write(snapshot).join();
            assertEquals(snapshot.sizeInBytes(), part.bytes());
            for (CheckpointStore store : List.of(local, shared)) {
                Path file = store.epochDirectory(1).resolve(part.file());
                assertEquals(part.bytes(), Files.size(file), "part in " + store.jobDirectory());
            }
            shared.commit(EpochManifest.of("job1", 1, 5, List.of(part)));
            java.util.Arrays.fill(x, 0);
            shared.loadPart(shared.latestCommitted().orElseThrow(), 0).restoreInto(new RankState().register("x", x));
            assertEquals(2.5, x[99_999]);
        }
    }

    @Test
    void stagedWriterReportsAFailedWriteWithRankAndEpoch() throws Exception {
        Path blocked = root.resolve("not-a-directory");
        Files.writeString(blocked, "a file where the store's directory should be");
        CheckpointStore local = new CheckpointStore(blocked, "job1");
        CheckpointStore shared = new CheckpointStore(root.resolve("shared"), "job1");
        try (StagedWriter writer = new StagedWriter(local, shared, 3)) {
            CompletionException e = assertThrows(CompletionException.class,
                    () -> writer.write(Snapshot.capture(new RankState().register("x", new int[4]), 9, 3, 0)).join());
            CheckpointWriteException cause = (CheckpointWriteException) e.getCause();
            assertEquals(3, cause.rank());
            assertEquals(9, cause.epoch());
        }
    }

    @Test
    void manifestsValidateTheirShape() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new EpochManifest(2, "job1", 1, 0, 2, List.of(new PartRecord(0, "rank-000000.part", 1, 1)), List.of("shared")));
        assertTrue(e.getMessage().contains("lists 1 parts for 2 ranks"), e.getMessage());
        IllegalArgumentException version = assertThrows(IllegalArgumentException.class,
                () -> new EpochManifest(3, "job1", 1, 0, 0, List.of(), List.of("shared")));
        assertTrue(version.getMessage().contains("version 3"), version.getMessage());
    }

    @Test
    void aPartLargerThanOneWriteSliceIsWrittenWholeAndReadsBack() throws IOException {
        // Heap chunks go to the file in slices (WRITE_SLICE_BYTES); a 3.5-slice array crosses several.
        double[] field = new double[(int) (3.5 * CheckpointStore.WRITE_SLICE_BYTES / Double.BYTES)];
        for (int i = 0; i < field.length; i++) {
            field[i] = i * 0.5;
        }
        for (PartCodec codec : PartCodec.values()) {
            CheckpointStore store = new CheckpointStore(root, "sliced-" + codec.ordinal(), codec);
            Snapshot snapshot = Snapshot.capture(new RankState().register("field", field), 1, 0, 10);
            PartRecord part = store.writePart(snapshot);
            store.commit(EpochManifest.of(store.jobDirectory().getFileName().toString(), 1, 10, List.of(part)));
            double[] back = new double[field.length];
            store.loadPart(store.latestCommitted().orElseThrow(), 0).restoreInto(new RankState().register("field", back));
            assertTrue(java.util.Arrays.equals(field, back), codec + ": every slice arrived in order");
            if (codec == PartCodec.NONE) {
                assertEquals(snapshot.sizeInBytes(), part.bytes());
            }
        }
    }

    @Test
    void everyPartWriteAndCopyIsToldToTheListenerOnItsThreadWithItsLevelsRoot() throws IOException {
        Path localRoot = root.resolve("local");
        Path sharedRoot = root.resolve("shared");
        List<String> calls = new ArrayList<>();
        List<PartWrite> told = new ArrayList<>();
        PartWriteListener listener = new PartWriteListener() {
            @Override
            public void partWriteStarting(PartWrite.Op op, int rank, long epoch) {
                calls.add("starting " + op.label() + " " + rank + " " + epoch + " on " + Thread.currentThread().getName());
            }

            @Override
            public void partWritten(PartWrite write) {
                calls.add("written " + write.op().label() + " on " + Thread.currentThread().getName());
                told.add(write);
            }
        };
        CheckpointStore local = new CheckpointStore(localRoot, "timed", PartCodec.NONE, listener);
        CheckpointStore shared = new CheckpointStore(sharedRoot, "timed", PartCodec.NONE, listener);
        String thread = Thread.currentThread().getName();
        PartRecord part = local.writePart(Snapshot.capture(new RankState().register("data", new long[1000]), 7, 3, 70));
        shared.copyPart(local, 7, part);
        assertEquals(List.of("starting write 3 7 on " + thread, "written write on " + thread, "starting copy 3 7 on " + thread,
                "written copy on " + thread), calls, "each write bracketed on the thread that does it");
        PartWrite write = told.get(0);
        PartWrite copy = told.get(1);
        assertEquals(List.of(localRoot, sharedRoot), List.of(write.root(), copy.root()));
        for (PartWrite timing : told) {
            assertEquals(3, timing.rank());
            assertEquals(7, timing.epoch());
            assertEquals(part.bytes(), timing.bytes());
            assertTrue(timing.totalNanos() >= timing.dataNanos() && timing.dataNanos() > 0, timing.toString());
            assertTrue(Math.abs(timing.startMicros() / 1000 - System.currentTimeMillis()) < 60_000, "wall clock micros: " + timing);
        }
        assertTrue(copy.startMicros() >= write.startMicros());
    }

    private static List<PartRecord> writeEpoch(CheckpointStore store, long epoch, int ranks) throws IOException {
        List<PartRecord> parts = new ArrayList<>();
        for (int rank = 0; rank < ranks; rank++) {
            long[] data = {epoch, rank, 12345};
            parts.add(store.writePart(Snapshot.capture(new RankState().register("data", data), epoch, rank, epoch * 10)));
        }
        return parts;
    }
}
