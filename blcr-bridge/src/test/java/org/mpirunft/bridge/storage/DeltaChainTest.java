package org.mpirunft.bridge.storage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpirunft.bridge.state.CorruptPartException;
import org.mpirunft.bridge.state.DeltaPart;
import org.mpirunft.bridge.state.RankState;
import org.mpirunft.bridge.state.Snapshot;

/** Incremental parts on disk: deltas of the changed blocks, composed back to the state, checked block by block. */
class DeltaChainTest {
    @TempDir
    Path dir;

    private final double[] field = new double[3 * DeltaPart.BLOCK_BYTES / 8 + 1000];
    private final int[] constant = new int[DeltaPart.BLOCK_BYTES / 4];
    private final RankState state = new RankState().register("field", field).register("constant", constant);
    private final Map<Long, EpochManifest> manifests = new HashMap<>();

    @Test
    void aDeltaHoldsOnlyTheChangedBlocksAndTheChainRestoresTheState() throws IOException {
        CheckpointStore store = new CheckpointStore(dir, "job1");
        for (int i = 0; i < field.length; i++) {
            field[i] = i * 0.5;
        }
        java.util.Arrays.fill(constant, 7);
        Snapshot first = Snapshot.capture(state, 1, 0, 10);
        commit(store, 1, 10, store.writePart(first));
        field[5] = -1; // block 0
        state.scalars().setLong("step", 2);
        Snapshot second = Snapshot.capture(state, 2, 0, 20);
        PartRecord delta = store.writeDelta(second, first);
        commit(store, 2, 20, delta);
        field[field.length - 1] = -2; // the field's last, short block
        Snapshot third = Snapshot.capture(state, 3, 0, 30);
        PartRecord delta3 = store.writeDelta(third, second);
        commit(store, 3, 30, delta3);

        assertEquals(1, delta.base());
        assertTrue(delta.bytes() < DeltaPart.BLOCK_BYTES + 4096, "one block of five, and the table: " + delta.bytes());
        assertTrue(delta3.bytes() < 8000 + 4096, "one short block: " + delta3.bytes());

        double[] expected = field.clone();
        java.util.Arrays.fill(field, 0);
        java.util.Arrays.fill(constant, 0);
        Snapshot restored = store.loadPart(manifests.get(3L), 0, this::manifest);
        assertEquals(3, restored.epoch());
        assertEquals(30, restored.iteration());
        restored.restoreInto(state);
        assertArrayEquals(expected, field);
        assertEquals(7, constant[constant.length - 1]);
        assertEquals(2, state.scalars().getLong("step", -1));
    }

    @Test
    void aDamagedLinkRefusesEveryEpochOnItAndTheFullEpochStillLoads() throws IOException {
        CheckpointStore store = new CheckpointStore(dir, "job1");
        Snapshot first = Snapshot.capture(state, 1, 0, 10);
        commit(store, 1, 10, store.writePart(first));
        field[0] = 1;
        Snapshot second = Snapshot.capture(state, 2, 0, 20);
        commit(store, 2, 20, store.writeDelta(second, first));
        field[1] = 1;
        commit(store, 3, 30, store.writeDelta(Snapshot.capture(state, 3, 0, 30), second));

        // One byte of epoch 2's changed block flipped on disk.
        try (FileChannel file = FileChannel.open(store.epochDirectory(2).resolve(CheckpointStore.partFileName(0)), StandardOpenOption.WRITE,
                StandardOpenOption.READ)) {
            ByteBuffer b = ByteBuffer.allocate(1);
            file.read(b, 200);
            b.put(0, (byte) (b.get(0) ^ 1)).position(0);
            file.write(b, 200);
        }
        CorruptPartException e = assertThrows(CorruptPartException.class, () -> store.loadPart(manifests.get(3L), 0, this::manifest));
        assertTrue(e.getMessage().contains("CRC32C"), e.getMessage());
        assertEquals(1, store.loadPart(manifests.get(1L), 0, this::manifest).epoch(), "the full epoch the chain starts from");
    }

    @Test
    void aDeltaAppliedToAnotherStateThanItsBaseIsRefusedByItsBlockChecksums() throws IOException {
        CheckpointStore store = new CheckpointStore(dir, "job1");
        Snapshot first = Snapshot.capture(state, 1, 0, 10);
        field[0] = 1;
        commit(store, 2, 20, store.writeDelta(Snapshot.capture(state, 2, 0, 20), first));
        // A base of epoch 1 that is whole by its own CRC, but not the state the delta was made on.
        field[DeltaPart.BLOCK_BYTES / 8] = 99;
        commit(store, 1, 10, store.writePart(Snapshot.capture(state, 1, 0, 10)));
        CorruptPartException e = assertThrows(CorruptPartException.class, () -> store.loadPart(manifests.get(2L), 0, this::manifest));
        assertTrue(e.getMessage().startsWith("block 1 of rank 0 epoch 2 (on epoch 1) has CRC32C"), e.getMessage());
    }

    @Test
    void compressedPartsAndDeltasRestoreTheSameStateAndAreCheckedBeforeTheyAreDecompressed() throws IOException {
        CheckpointStore plain = new CheckpointStore(dir.resolve("plain"), "job1");
        CheckpointStore zstd = new CheckpointStore(dir.resolve("zstd"), "job1", PartCodec.ZSTD);
        for (int i = 0; i < field.length; i++) {
            field[i] = i % 100; // compressible, as many solvers' fields are not quite
        }
        Snapshot first = Snapshot.capture(state, 1, 0, 10);
        PartRecord full = zstd.writePart(first);
        PartRecord fullPlain = plain.writePart(first);
        commit(zstd, 1, 10, full);
        field[7] = 0.25;
        Snapshot second = Snapshot.capture(state, 2, 0, 20);
        commit(zstd, 2, 20, zstd.writeDelta(second, first));
        assertEquals("zstd", full.codec());
        assertTrue(full.bytes() * 4 < fullPlain.bytes(), full.bytes() + " compressed bytes against " + fullPlain.bytes());

        double[] expected = field.clone();
        java.util.Arrays.fill(field, 0);
        java.util.Arrays.fill(constant, 0);
        zstd.loadPart(manifests.get(2L), 0, this::manifest).restoreInto(state);
        assertArrayEquals(expected, field);

        try (FileChannel file = FileChannel.open(zstd.epochDirectory(1).resolve(CheckpointStore.partFileName(0)), StandardOpenOption.WRITE,
                StandardOpenOption.READ)) {
            ByteBuffer b = ByteBuffer.allocate(1);
            file.read(b, 50);
            b.put(0, (byte) (b.get(0) ^ 1)).position(0);
            file.write(b, 50);
        }
        CorruptPartException e = assertThrows(CorruptPartException.class, () -> zstd.loadPart(manifests.get(1L), 0, this::manifest));
        assertTrue(e.getMessage().startsWith("part CRC32C is"), e.getMessage());
    }

    private void commit(CheckpointStore store, long epoch, long iteration, PartRecord part) throws IOException {
        EpochManifest manifest = EpochManifest.of("job1", epoch, iteration, List.of(part), java.util.EnumSet.of(StorageLevels.Level.SHARED));
        store.commit(manifest);
        manifests.put(epoch, manifest);
    }

    private Optional<EpochManifest> manifest(long epoch) {
        return Optional.ofNullable(manifests.get(epoch));
    }
}
