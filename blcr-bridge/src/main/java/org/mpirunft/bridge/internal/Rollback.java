package org.mpirunft.bridge.internal;

import java.nio.LongBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.logging.Logger;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import org.mpirunft.bridge.NoUsableCheckpointException;
import org.mpirunft.bridge.state.RankState;
import org.mpirunft.bridge.state.Snapshot;
import org.mpirunft.bridge.storage.EpochManifest;
import org.mpirunft.bridge.ulfm.Ulfm;

/**
 * What a rank rolls back to: the newest committed epoch every rank can load, agreed
 * fault-tolerantly, or, before any commit, the state the program set up (the initial copy); and
 * putting it in place, laid out again when the epoch is of another rank count. Main thread only.
 */
final class Rollback {
    private static final Logger LOG = Logger.getLogger(Rollback.class.getName());

    private final RankView view;
    private final RankState state;
    private final CheckpointCoordinator coordinator;
    private final String job;
    /** The state the program set up, until an epoch commits; else null. */
    private Snapshot initial;

    /**
     * The agreed rollback target; {@code joinNanos} is the wait for every rank to be ready, and
     * {@code joinCpuNanos} the CPU time this rank's thread used in it.
     */
    record Selection(long epoch, long iteration, Optional<Snapshot> snapshot, long joinNanos, long joinCpuNanos,
                     long setupNanos, long transferNanos, int fromRanks) {
    }

    Rollback(RankView view, RankState state, CheckpointCoordinator coordinator, String job) {
        this.view = view;
        this.state = state;
        this.coordinator = coordinator;
        this.job = job;
    }

    /** Keeps the state the program set up, to roll back to while no epoch has committed. */
    void captureInitialIfNeeded(long first) {
        if (coordinator.committedEpoch() == 0) {
            initial = Snapshot.capture(state, 0, view.rank(), first);
        }
    }

    /** Hands the initial copy back to the coordinator once an epoch committed: no rollback goes there any more. */
    void releaseInitialOnceCommitted() {
        if (initial != null && coordinator.committedEpoch() > 0) {
            coordinator.recycle(initial);
            initial = null;
        }
    }

    /** The state the program set up, or null once an epoch committed. */
    Snapshot initial() {
        return initial;
    }

    /**
     * The newest committed epoch every rank can load, agreed fault-tolerantly; epoch 0 if none was
     * committed. A replacement brings the time its program's setup and its state read took
     * ({@code setupNanos}, {@code transferNanos}; 0 from the others), and every rank learns the
     * longest of each, for the recovery's report.
     */
    Selection select(long lastEpochUsed, long setupNanos, long transferNanos) throws MPIException {
        Intracomm world = view.world();
        int rank = view.rank();
        long start = System.nanoTime();
        long startCpu = IdleWait.cpuNanos();
        // The first collective on the repaired world that waits: survivors wait here for
        // replacements to start up, idle, so that the replacements have the cores.
        LongBuffer agreed = MPI.newLongBuffer(3).put(0, lastEpochUsed).put(1, setupNanos).put(2, transferNanos);
        IdleWait.await(world.iAllReduce(agreed, 3, MPI.LONG, MPI.MAX), world);
        long joinNanos = System.nanoTime() - start;
        long joinCpuNanos = IdleWait.cpuNanos() - startCpu;
        long highestEpochUsed = agreed.get(0);
        List<EpochManifest> candidates = coordinator.agreedCandidates(world);
        List<Long> tried = new ArrayList<>();
        int ranks = world.getSize();
        for (EpochManifest manifest : candidates) {
            // An epoch of another rank count (a relaunch with another -np) is redistributed; every
            // rank sees the same counts, so all take the same, collective or not, path.
            Optional<Snapshot> snapshot = manifest.worldSize() == ranks ? coordinator.loadable(world, manifest)
                    : coordinator.redistributed(manifest, ranks);
            tried.add(manifest.epoch());
            if (Ulfm.agree(world, snapshot.isPresent() ? 1 : 0) == 1) {
                if (rank == 0 && tried.size() > 1) {
                    LOG.warning(() -> "rank 0: epochs " + tried.subList(0, tried.size() - 1) + " cannot be loaded by every rank;"
                            + " falling back to epoch " + manifest.epoch());
                }
                coordinator.rolledBackTo(manifest.epoch(), highestEpochUsed);
                return new Selection(manifest.epoch(), manifest.iteration(), snapshot, joinNanos, joinCpuNanos, agreed.get(1),
                        agreed.get(2), manifest.worldSize());
            }
        }
        if (!candidates.isEmpty()) {
            throw new NoUsableCheckpointException(rank, job, tried);
        }
        coordinator.rolledBackTo(0, highestEpochUsed);
        return new Selection(0, -1, Optional.empty(), joinNanos, joinCpuNanos, agreed.get(1), agreed.get(2), ranks);
    }

    /**
     * Puts {@code source} (the selected epoch's snapshot, or the initial copy) in place; an epoch
     * of another rank count then tells the program, which may rebuild per-rank state.
     */
    void restore(Snapshot source, Selection target) {
        int rank = view.rank();
        source.restoreInto(state);
        int ranks = state.ranks();
        if (target.snapshot().isPresent() && target.fromRanks() != ranks) {
            if (rank == 0) {
                LOG.info(() -> "rank 0: epoch " + target.epoch() + " of " + target.fromRanks() + " ranks redistributed to " + ranks
                        + " ranks; resuming at iteration " + target.iteration());
            }
            state.resized(new RankState.Resize(target.epoch(), target.fromRanks(), ranks, rank));
        }
    }
}
