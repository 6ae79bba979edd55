package org.mpirunft.bridge.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.logging.Logger;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import org.mpirunft.bridge.storage.CheckpointStore;
import org.mpirunft.bridge.storage.EpochManifest;
import org.mpirunft.bridge.storage.PartCodec;
import org.mpirunft.bridge.storage.PartRecord;
import org.mpirunft.bridge.storage.StorageLevels.Level;

/**
 * The exchange at the heart of {@link CheckpointCoordinator}'s commit: every rank's record of its
 * part of the epoch (written or not, its size, CRC, delta base and codec) goes to every rank in
 * one allgather, so that every rank makes the same manifest from them, or none if a part is not
 * whole.
 */
final class CommitRecords {
    private static final Logger LOG = Logger.getLogger(CommitRecords.class.getName());
    /** Longs per rank in the commit's allgather: epoch, bytes, CRC, delta base, codec. */
    private static final int RECORD = 5;

    private CommitRecords() {
    }

    /**
     * Collective over {@code world}: waits for this rank's {@code write} of its part of
     * {@code epoch}, gathers every rank's record, and returns the epoch's manifest, the same on
     * every rank; empty if a part is not whole.
     */
    static Optional<EpochManifest> gather(Intracomm world, int rank, CompletableFuture<PartRecord> write, String job, long epoch,
                                          long iteration, Set<Level> levels) throws MPIException {
        // Per rank: epoch, bytes (-1: not written), CRC, delta base, codec.
        long[] mine = {epoch, -1, 0, 0, 0};
        try {
            PartRecord part = write.join();
            mine[1] = part.bytes();
            mine[2] = part.crc32c();
            mine[3] = part.base();
            mine[4] = PartCodec.ofLabel(part.codec()).ordinal();
        } catch (CompletionException e) {
            LOG.warning(() -> "rank " + rank + ": " + e.getCause().getMessage());
        }
        int size = world.getSize();
        long[] all = new long[RECORD * size];
        world.allGather(mine, RECORD, MPI.LONG, all, RECORD, MPI.LONG);
        List<PartRecord> parts = new ArrayList<>(size);
        for (int r = 0; r < size; r++) {
            int at = RECORD * r;
            long bytes = all[at + 1];
            if (all[at] != epoch || bytes < 0) {
                return Optional.empty();
            }
            parts.add(new PartRecord(r, CheckpointStore.partFileName(r), bytes, all[at + 2], all[at + 3],
                    PartCodec.values()[(int) all[at + 4]].label()));
        }
        return Optional.of(EpochManifest.of(job, epoch, iteration, parts, levels));
    }
}
