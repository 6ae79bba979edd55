package org.mpirunft.npb.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.mpirunft.bridge.state.RankState;
import org.mpirunft.bridge.state.Snapshot;
import org.mpirunft.bridge.storage.CheckpointStore;
import org.mpirunft.bridge.storage.PartCodec;
import org.mpirunft.bridge.storage.PartRecord;
import org.mpirunft.npb.PartWriteTimes;
import org.mpirunft.npb.bench.NpbOutput.PartWrite;

/**
 * blcr-bridge's own write path with no kernel running: one thread per rank, each writes a part of
 * its rank's size with {@link CheckpointStore#writePart} to the local directory and copies it with
 * {@link CheckpointStore#copyPart} to the shared one, as a rank's writer thread does, all at once.
 * The stores' listener times them as a rank's does ({@link PartWriteTimes}), so the rates come out
 * of the same arithmetic as the run's. Against the disk probe it says what the write path itself
 * costs; against the run, what sharing the cores with the kernels costs.
 */
final class StoreProbe {
    static final String JOB = "store-probe";

    private final List<Snapshot> snapshots = new ArrayList<>();

    /** Snapshots of {@code sizes} bytes each (a double array and the header), one per writer. */
    StoreProbe(List<Long> sizes) {
        for (int rank = 0; rank < sizes.size(); rank++) {
            double[] field = new double[(int) Math.max(1, (sizes.get(rank) - 256) / Double.BYTES)];
            java.util.Arrays.setAll(field, i -> i * 1e-3);
            snapshots.add(Snapshot.capture(new RankState().register("field", field), 1, rank, 0));
        }
    }

    /**
     * One round: every writer writes and copies its part of epoch 1 under {@code local} and
     * {@code shared} (deleted again before returning); the round's writes as the stores' listener
     * timed them, as part write lines with {@code local}'s path as their local root.
     */
    List<PartWrite> measure(Path local, Path shared) throws IOException, InterruptedException {
        PartWriteTimes times = new PartWriteTimes();
        CheckpointStore localStore = new CheckpointStore(local, JOB, PartCodec.NONE, times);
        CheckpointStore sharedStore = new CheckpointStore(shared, JOB, PartCodec.NONE, times);
        try {
            Writers.together(snapshots.size(), "store-probe", "store probe", writer -> {
                PartRecord part = localStore.writePart(snapshots.get(writer));
                sharedStore.copyPart(localStore, 1, part);
            });
        } finally {
            org.mpirunft.common.FileTrees.delete(localStore.jobDirectory());
            org.mpirunft.common.FileTrees.delete(sharedStore.jobDirectory());
        }
        return times.writes().stream().map(PartWrite::of).toList();
    }
}
