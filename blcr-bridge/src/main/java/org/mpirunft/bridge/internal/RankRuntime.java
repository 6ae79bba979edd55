package org.mpirunft.bridge.internal;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.logging.Logger;
import mpi.Intercomm;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import org.mpirunft.bridge.BridgeException;
import org.mpirunft.bridge.FtConfig;
import org.mpirunft.bridge.Iteration;
import org.mpirunft.bridge.NoUsableCheckpointException;
import org.mpirunft.bridge.RecoveryReport;
import org.mpirunft.bridge.control.PauseOrder;
import org.mpirunft.bridge.control.PauseWatcher;
import org.mpirunft.bridge.state.RankState;
import org.mpirunft.bridge.state.Snapshot;
import org.mpirunft.bridge.storage.CheckpointStore;
import org.mpirunft.bridge.storage.EpochManifest;
import org.mpirunft.bridge.ulfm.Pmix;
import org.mpirunft.bridge.ulfm.Ulfm;
import org.mpirunft.bridge.ulfm.UlfmException;

/**
 * The machinery behind {@link org.mpirunft.bridge.FtRank}: the iteration loop with safe points,
 * failure handling, world repair and rollback. Owned by the rank's main thread; the pause
 * watcher's thread only sets a flag and revokes the world.
 */
public final class RankRuntime implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(RankRuntime.class.getName());
    private static final int JOB_NAME_BYTES = 100;

    private final FtConfig config;
    private final RankState state = new RankState();
    private final String job;
    private final boolean replacement;
    private final int rank;
    private final CheckpointCoordinator coordinator;
    private final SpawnLauncher launcher;
    private final PauseWatcher pauseWatcher;
    private final List<RecoveryReport> recoveries = new ArrayList<>();

    private volatile Intracomm world;
    /** Who every rank of {@link #world} is, index = rank; guarded by pauseLock. */
    private List<Peer> peers = List.of();
    /** Between a recovery's start and its new world's peers; guarded by pauseLock. */
    private boolean recovering;
    /** Orders that arrived during a recovery, judged against the repaired world; guarded by pauseLock. */
    private final List<PauseOrder> ordersDuringRecovery = new ArrayList<>();
    /** Guards {@link #handledPauseId} and {@link #pauseRequested}, shared by the watcher and recovery. */
    private final Object pauseLock = new Object();
    /** The newest pause order a recovery has already served; guarded by pauseLock. */
    private long handledPauseId;
    private volatile boolean pauseRequested;
    private int sparesUsed;
    /** Every rank agreed that all iterations are done. */
    private volatile boolean completed;
    /** A replacement's agreed rollback target, restored when the program enters its loop. */
    private Selection joinedAt;
    private Snapshot initial;

    /** A rank's PMIx name, to declare it failed, and its node, to tell whether an order is about it. */
    record Peer(Pmix.ProcessName name, String node) {
        static final int NODE_BYTES = 64;
        static final int BYTES = Pmix.NAME_BYTES + NODE_BYTES;
    }

    /** The agreed rollback target; {@code joinNanos} is the wait for every rank to be ready. */
    private record Selection(long epoch, long iteration, Optional<Snapshot> snapshot, long joinNanos) {
    }

    public RankRuntime(FtConfig config) throws MPIException {
        this.config = config;
        Intercomm parent = Intercomm.getParent();
        this.replacement = !parent.isNull();
        WorldRepair.Repaired joined = null;
        if (replacement) {
            this.job = config.job().orElseThrow(() -> new BridgeException("a replacement rank needs " + FtConfig.JOB));
            joined = WorldRepair.asReplacement(parent);
            this.world = joined.world();
            this.sparesUsed = joined.sparesUsed();
        } else {
            this.world = MPI.COMM_WORLD;
            world.setErrhandler(MPI.ERRORS_RETURN);
            this.job = agreeOnJobName(config);
        }
        this.rank = world.getRank();
        this.peers = gatherPeers(world);
        // Loads the ULFM binding now rather than in the middle of the first recovery, and
        // fails here, plainly, if the MPI library has no ftmpi extension.
        Ulfm.isRevoked(world);
        this.coordinator = new CheckpointCoordinator(state,
                new CheckpointStore(config.localDirectory(), job), new CheckpointStore(config.sharedDirectory(), job),
                new CheckpointPolicy(config.checkpointEveryIterations(), config.checkpointInterval(), config.controlDirectory(),
                        System::nanoTime),
                config.keepInMemory(), job, rank);
        this.launcher = new SpawnLauncher(config, job);
        if (replacement) {
            long loadStart = System.nanoTime();
            joinedAt = selectEpoch(joined.lastEpoch());
            LOG.info(() -> "rank " + rank + ": replacement joined; rolling back to epoch " + joinedAt.epoch() + " in "
                    + (System.nanoTime() - loadStart) / 1_000_000 + " ms");
        }
        this.pauseWatcher = config.controlDirectory()
                .map(directory -> new PauseWatcher(directory, Duration.ofMillis(50), "rank-" + rank, this::pause).start())
                .orElse(null);
    }

    /** Whether MPI must allow the pause watcher's thread to call it. */
    public static boolean needsThreadMultiple(FtConfig config) {
        return config.controlDirectory().isPresent();
    }

    public RankState state() {
        return state;
    }

    public String job() {
        return job;
    }

    public int rank() {
        return rank;
    }

    public boolean isReplacement() {
        return replacement;
    }

    public Intracomm world() {
        return world;
    }

    public List<RecoveryReport> recoveries() {
        return List.copyOf(recoveries);
    }

    public CheckpointStats checkpointStats() {
        return coordinator.stats();
    }

    /**
     * Runs iterations {@code [first, end)} with a safe point before each, surviving failures by
     * rolling back; returns once every rank agreed that all iterations are done.
     */
    public void run(long first, long end, Iteration body) {
        long iteration = first;
        try {
            iteration = startingPoint(first);
        } catch (MPIException | UlfmException e) {
            throw new BridgeException("rank " + rank + ": cannot start: " + e.getMessage(), e);
        }
        long progress = 0;
        while (true) {
            try {
                if (pauseRequested) {
                    throw new UlfmException("pause order", Ulfm.ERR_REVOKED);
                }
                if (iteration >= end) {
                    // Fault-tolerant agreement: if anyone died at the very end, all roll back.
                    Ulfm.agree(world, 1);
                    completed = true;
                    return;
                }
                coordinator.atSafePoint(world, iteration, progress);
                if (initial != null && coordinator.committedEpoch() > 0) {
                    coordinator.recycle(initial);
                    initial = null;
                }
                body.run(world, iteration);
                iteration++;
                progress++;
            } catch (MPIException e) {
                if (!Ulfm.isFailure(e)) {
                    throw new BridgeException("rank " + rank + ": MPI error at iteration " + iteration + ": " + e.getMessage(), e);
                }
                iteration = recover(first);
                progress = 0;
            } catch (UlfmException e) {
                if (!e.isProcessFailure() && e.errorCode() != Ulfm.ERR_REVOKED) {
                    throw e;
                }
                iteration = recover(first);
                progress = 0;
            }
        }
    }

    private long startingPoint(long first) throws MPIException {
        if (replacement) {
            Selection target = joinedAt;
            joinedAt = null;
            target.snapshot().ifPresent(snapshot -> snapshot.restoreInto(state));
            captureInitialIfNeeded(first);
            return target.snapshot().isPresent() ? target.iteration() : first;
        }
        // A relaunch of a job with committed epochs resumes from them: the full-restart mode.
        if (!coordinator.committedEpochs().isEmpty()) {
            captureInitialIfNeeded(first);
            Selection target = selectEpoch(coordinator.lastEpoch());
            target.snapshot().ifPresent(snapshot -> snapshot.restoreInto(state));
            return target.snapshot().isPresent() ? target.iteration() : first;
        }
        captureInitialIfNeeded(first);
        return first;
    }

    private void captureInitialIfNeeded(long first) {
        if (coordinator.committedEpoch() == 0) {
            initial = Snapshot.capture(state, 0, rank, first);
        }
    }

    private long recover(long first) {
        long seenAt = System.currentTimeMillis();
        long start = System.nanoTime();
        Optional<PauseOrder> served;
        synchronized (pauseLock) {
            recovering = true;
            pauseRequested = false;
            // The order on file is served by this recovery, whether or not the watcher has seen
            // it: a survivor revoked by another rank's order must declare the lost ranks too, or
            // its shrink waits on a hung rank.
            Optional<PauseOrder> onFile = pauseWatcher == null ? Optional.empty() : pauseWatcher.onFile();
            onFile.filter(order -> order.id() > handledPauseId).ifPresent(this::judgeOrder);
            served = onFile.filter(order -> order.id() == handledPauseId);
        }
        try {
            WorldRepair.Repaired repaired = WorldRepair.asSurvivor(world, sparesUsed, coordinator.lastEpoch(), placedBy(served));
            world = repaired.world();
            sparesUsed = repaired.sparesUsed();
            List<Peer> repairedPeers = gatherPeers(world);
            synchronized (pauseLock) {
                peers = repairedPeers;
                recovering = false;
                // An order this repair did not answer (its rank was still in the world when the
                // shrink ended) pauses again, against the repaired world.
                List<PauseOrder> late = List.copyOf(ordersDuringRecovery);
                ordersDuringRecovery.clear();
                for (PauseOrder order : late) {
                    if (!stillLost(order).isEmpty()) {
                        declareLost(order);
                        pauseRequested = true;
                    }
                }
            }
            long loadStart = System.nanoTime();
            Selection target = selectEpoch(coordinator.lastEpoch());
            Snapshot source = target.snapshot().orElse(initial);
            if (source == null) {
                throw new BridgeException("rank " + rank + ": no state to roll back to (no checkpoint and no initial copy)");
            }
            source.restoreInto(state);
            long iteration = target.snapshot().isPresent() ? target.iteration() : first;
            long done = System.nanoTime();
            RecoveryReport report = new RecoveryReport(repaired.replacedRanks(), target.epoch(), iteration, seenAt,
                    millis(repaired.shrinkNanos()), millis(repaired.spawnNanos()), millis(repaired.mergeNanos()),
                    millis(target.joinNanos()), millis(done - loadStart - target.joinNanos()), millis(done - start));
            recoveries.add(report);
            // The lowest surviving rank reports: when rank 0 itself was replaced, its replacement
            // never ran this recovery and cannot.
            if (rank == lowestSurvivor(repaired.replacedRanks())) {
                System.out.println(report.toLine());
                System.out.flush();
            }
            return iteration;
        } catch (MPIException | UlfmException e) {
            // A failure during repair is not recovered: say so plainly rather than hang.
            throw new BridgeException("rank " + rank + ": recovery failed: " + e.getMessage(), e);
        }
    }

    /** The newest committed epoch every rank can load, agreed fault-tolerantly; epoch 0 if none was committed. */
    private Selection selectEpoch(long lastEpochUsed) throws MPIException {
        long start = System.nanoTime();
        long[] highest = {lastEpochUsed};
        // The first collective on the repaired world: survivors wait here for replacements to start up.
        world.allReduce(highest, 1, MPI.LONG, MPI.MAX);
        long joinNanos = System.nanoTime() - start;
        List<EpochManifest> candidates = coordinator.committedEpochs();
        List<Long> tried = new ArrayList<>();
        for (EpochManifest manifest : candidates) {
            Optional<Snapshot> snapshot = coordinator.loadable(manifest);
            tried.add(manifest.epoch());
            if (Ulfm.agree(world, snapshot.isPresent() ? 1 : 0) == 1) {
                coordinator.rolledBackTo(manifest.epoch(), highest[0]);
                return new Selection(manifest.epoch(), manifest.iteration(), snapshot, joinNanos);
            }
        }
        if (!candidates.isEmpty()) {
            throw new NoUsableCheckpointException(rank, job, tried);
        }
        coordinator.rolledBackTo(0, highest[0]);
        return new Selection(0, -1, Optional.empty(), joinNanos);
    }

    private static int lowestSurvivor(int[] replaced) {
        java.util.BitSet lost = new java.util.BitSet();
        for (int r : replaced) {
            lost.set(r);
        }
        return lost.nextClearBit(0);
    }

    /**
     * The scheduler's placement wins over the configured spare list: replacement {@code i} of
     * this recovery goes to the order's {@code i}-th host, the rest to the configured spares.
     */
    private WorldRepair.ReplacementLauncher placedBy(Optional<PauseOrder> order) {
        List<String> placed = order.map(PauseOrder::spares).orElse(List.of());
        if (placed.isEmpty()) {
            return launcher;
        }
        int base = sparesUsed;
        return new WorldRepair.ReplacementLauncher() {
            @Override
            public String command() {
                return launcher.command();
            }

            @Override
            public String[] arguments() {
                return launcher.arguments();
            }

            @Override
            public String hostFor(int index) {
                int i = index - base;
                return i >= 0 && i < placed.size() ? placed.get(i) : launcher.hostFor(index);
            }
        };
    }

    /**
     * Every rank's PMIx name and node, so that a survivor can name a rank the runtime declared
     * lost to its MPI library. A replacement lives in its own PMIx namespace, so they are exchanged.
     */
    private static List<Peer> gatherPeers(Intracomm world) throws MPIException {
        int size = world.getSize();
        byte[] mine = new byte[Peer.BYTES];
        System.arraycopy(Pmix.self().encode(), 0, mine, 0, Pmix.NAME_BYTES);
        byte[] node = shortHostName(MPI.getProcessorName()).getBytes(StandardCharsets.UTF_8);
        System.arraycopy(node, 0, mine, Pmix.NAME_BYTES, Math.min(node.length, Peer.NODE_BYTES));
        byte[] all = new byte[size * Peer.BYTES];
        world.allGather(mine, Peer.BYTES, MPI.BYTE, all, Peer.BYTES, MPI.BYTE);
        List<Peer> peers = new ArrayList<>(size);
        for (int r = 0; r < size; r++) {
            int offset = r * Peer.BYTES;
            int end = offset + Pmix.NAME_BYTES;
            int limit = end;
            while (limit < end + Peer.NODE_BYTES && all[limit] != 0) {
                limit++;
            }
            peers.add(new Peer(Pmix.ProcessName.decode(all, offset), new String(all, end, limit - end, StandardCharsets.UTF_8)));
        }
        return List.copyOf(peers);
    }

    private static String shortHostName(String host) {
        int dot = host.indexOf('.');
        return dot > 0 ? host.substring(0, dot) : host;
    }

    /** The order's lost ranks that still run on the node they were lost on; under pauseLock. */
    private List<Integer> stillLost(PauseOrder order) {
        List<Integer> lost = new ArrayList<>();
        order.lostRanks().forEach((r, node) -> {
            if (r < peers.size() && peers.get(r).node().equals(shortHostName(node))) {
                lost.add(r);
            }
        });
        return lost;
    }

    /** Tells this process's MPI library that the order's lost ranks terminated; under pauseLock. */
    private void declareLost(PauseOrder order) {
        for (int lost : stillLost(order)) {
            if (lost == rank) {
                continue;
            }
            try {
                Pmix.declareTerminated(peers.get(rank).name(), peers.get(lost).name());
            } catch (RuntimeException e) {
                LOG.warning(() -> "rank " + rank + ": cannot declare rank " + lost + " lost to MPI: " + e.getMessage());
            }
        }
    }

    /**
     * Takes a new order: records it as handled, leaves the job if it names this rank, declares
     * its lost ranks, and tells whether it still needs a rollback. An order about ranks that no
     * longer run where they were lost was served by an earlier recovery; under pauseLock.
     */
    private boolean judgeOrder(PauseOrder order) {
        handledPauseId = Math.max(handledPauseId, order.id());
        List<Integer> lost = stillLost(order);
        LOG.info(() -> "rank " + rank + ": pause order " + order.id() + " (" + order.reason() + "), lost " + order.lostRanks()
                + (order.lostRanks().isEmpty() || !lost.isEmpty() ? "" : ": already recovered"));
        if (lost.contains(rank)) {
            // The runtime declared this rank's node failed, and the others carry on without it.
            System.err.println("[mpirun-ft] rank " + rank + ": declared lost by pause order " + order.id() + "; leaving the job");
            System.err.flush();
            Runtime.getRuntime().halt(1);
        }
        if (!order.lostRanks().isEmpty() && lost.isEmpty()) {
            return false;
        }
        declareLost(order);
        if (recovering) {
            ordersDuringRecovery.add(order);
            return false;
        }
        return true;
    }

    /**
     * On the watcher's thread. The lost ranks are declared before the revoke, so that the
     * shrink does not wait on a hung rank. The revoke stays under the lock so it cannot hit a
     * world repaired meanwhile.
     */
    private void pause(PauseOrder order) {
        synchronized (pauseLock) {
            if (order.id() <= handledPauseId || !judgeOrder(order)) {
                return;
            }
            pauseRequested = true;
            try {
                Ulfm.revoke(world);
            } catch (RuntimeException e) {
                LOG.warning(() -> "rank " + rank + ": revoke on pause order failed: " + e.getMessage());
            }
        }
    }

    /** Bounded MPI_Finalize: MPI_Finalize can hang after a recovery, and the run is already complete. */
    @Override
    public void close() {
        if (pauseWatcher != null) {
            pauseWatcher.close();
        }
        coordinator.close();
        if (completed && rank == 0) {
            // mpirun-ft's cue that the job is done, whether or not mpirun exits by itself: it
            // may wait on a node daemon that was fenced or cut off.
            System.out.println("[mpirun-ft] finished job=" + job);
        }
        System.out.flush();
        System.err.flush();
        Duration bound = config.finalizeTimeout();
        Thread watchdog = new Thread(() -> {
            try {
                Thread.sleep(bound.toMillis());
            } catch (InterruptedException e) {
                return;
            }
            System.err.println("[mpirun-ft] rank " + rank + ": MPI_Finalize did not return within " + bound
                    + "; the run had completed, exiting");
            System.err.flush();
            Runtime.getRuntime().halt(0);
        }, "finalize-watchdog");
        watchdog.setDaemon(true);
        watchdog.start();
        try {
            MPI.Finalize();
        } catch (MPIException e) {
            LOG.warning(() -> "rank " + rank + ": MPI_Finalize failed: " + e.getMessage());
        }
        watchdog.interrupt();
    }

    private static String agreeOnJobName(FtConfig config) throws MPIException {
        if (config.job().isPresent()) {
            return config.job().get();
        }
        byte[] name = new byte[JOB_NAME_BYTES];
        if (MPI.COMM_WORLD.getRank() == 0) {
            String namespace = Optional.ofNullable(System.getenv("PMIX_NAMESPACE")).orElse("job-" + ProcessHandle.current().pid());
            byte[] sanitized = org.mpirunft.common.Names.sanitize(namespace).getBytes(StandardCharsets.US_ASCII);
            System.arraycopy(sanitized, 0, name, 0, Math.min(sanitized.length, JOB_NAME_BYTES));
        }
        MPI.COMM_WORLD.bcast(name, JOB_NAME_BYTES, MPI.BYTE, 0);
        return new String(name, StandardCharsets.US_ASCII).replace("\0", "");
    }

    private static double millis(long nanos) {
        return nanos / 1e6;
    }

    Path sharedJobDirectory() {
        return config.sharedDirectory().resolve(job);
    }
}
