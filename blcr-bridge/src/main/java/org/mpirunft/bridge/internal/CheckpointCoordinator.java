package org.mpirunft.bridge.internal;

import java.io.IOException;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.logging.Logger;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import org.mpirunft.bridge.CheckpointStats;
import org.mpirunft.bridge.RankListener;
import org.mpirunft.bridge.state.DeltaPart;
import org.mpirunft.bridge.state.RankState;
import org.mpirunft.common.rank.RankMessage;
import org.mpirunft.bridge.state.Snapshot;
import org.mpirunft.bridge.storage.CheckpointStore;
import org.mpirunft.bridge.storage.EpochManifest;
import org.mpirunft.bridge.storage.PartRecord;
import org.mpirunft.bridge.storage.StagedWriter;
import org.mpirunft.bridge.storage.StorageLevels;
import org.mpirunft.bridge.storage.StorageLevels.Level;

/**
 * Coordinated checkpoints at safe points. Every rank calls {@link #atSafePoint} at the same
 * iteration boundary, where no message is in flight. One small allreduce per safe point agrees
 * on whether to checkpoint and how far every rank's writes have got; the snapshot is the only
 * stall; the partner copy and the writes to disk go on in the background; the epoch commits once
 * every part is whole at each of the epoch's storage levels ({@link StorageLevels}): every rank
 * keeps its manifest, and rank 0 writes it to shared storage if the epoch went there. This class
 * owns the epoch under way and the snapshots in this rank's memory; the levels in other ranks'
 * memory are {@link MemoryLevels}, the commit's exchange {@link CommitRecords}, the committed
 * epochs and what each level keeps {@link CommittedEpochs}, the reads from disk {@link PartReads}.
 * Not thread-safe: the rank's main thread owns it.
 */
public final class CheckpointCoordinator implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(CheckpointCoordinator.class.getName());

    private final RankState state;
    private final CheckpointStore local;
    private final CheckpointStore shared;
    private final StagedWriter writer;
    private final CheckpointPolicy policy;
    private final boolean keepInMemory;
    private final StorageLevels levels;
    /** Disk parts are deltas on the previous epoch's, with a full part at least every this many epochs; 1: always full. */
    private int fullEvery = 1;
    /** The partner and XOR levels, in other ranks' memory. */
    private final MemoryLevels memory;
    /** Every rank's node, by rank, as the world is now: where the partners are. */
    private Supplier<List<String>> nodeOfRank = List::of;
    private final String job;
    private int rank;

    private long lastEpoch;
    private long committedEpoch;
    private long pendingEpoch;
    private long pendingIteration;
    /** The scheduler's order the pending epoch serves, 0 if none. */
    private long pendingOrder;
    private Set<Level> pendingLevels = Set.of();
    /** The epochs this rank committed with the others, and which of them each level keeps. */
    private final CommittedEpochs committed;
    /** Where rank 0 reports each committed or abandoned epoch (the rank channel), if anywhere. */
    private Consumer<RankMessage> epochReports = report -> { };
    private CompletableFuture<PartRecord> pendingWrite;
    private Snapshot pendingSnapshot;
    /** A dropped snapshot whose buffers the next capture overwrites, so a checkpoint leaves no state-sized garbage. */
    private Snapshot recyclable;
    /** Snapshots a survivor can roll back to without disk: the committed one and the pending one. */
    private final TreeMap<Long, Snapshot> inMemory = new TreeMap<>();
    private final CheckpointCounters stats = new CheckpointCounters();
    /** Reads of parts from disk, a replacement's read ahead among them. */
    private final PartReads reads;

    CheckpointCoordinator(RankState state, CheckpointStore local, CheckpointStore shared, CheckpointPolicy policy,
                          boolean keepInMemory, String job, int rank) {
        this(state, local, shared, policy, keepInMemory, StorageLevels.DEFAULT, job, rank, RankListener.NONE);
    }

    /** {@code listener}: the program's, told of every transfer of this rank's state from storage or another rank's memory. */
    CheckpointCoordinator(RankState state, CheckpointStore local, CheckpointStore shared, CheckpointPolicy policy,
                          boolean keepInMemory, StorageLevels levels, String job, int rank, RankListener listener) {
        this.levels = levels;
        this.memory = new MemoryLevels(levels, rank, listener);
        this.state = state;
        this.local = local;
        this.shared = shared;
        this.policy = policy;
        // A rebuild from XOR parity needs every survivor's own part of the epoch.
        this.keepInMemory = keepInMemory || memory.usesXor();
        this.job = job;
        this.rank = rank;
        this.writer = new StagedWriter(local, shared, rank);
        Optional<EpochManifest> latest = shared.latestCommitted();
        this.lastEpoch = latest.map(EpochManifest::epoch).orElse(0L);
        this.committedEpoch = lastEpoch;
        this.committed = new CommittedEpochs(local, shared, levels, latest);
        this.reads = new PartReads(state, local, shared, committed, rank, listener);
    }

    CheckpointCounters stats() {
        return stats;
    }

    /** The size of rank {@code r}'s part of the newest committed epoch if a partner holds it, else 0: a replacement's hint. */
    long partnerCopyBytes(int r) {
        return newestOnPartner().filter(m -> memory.usesPartner() && r < m.parts().size()).map(m -> m.part(r).bytes()).orElse(0L);
    }

    /** The newest committed epoch's manifest, if that epoch went to the partner level. */
    private Optional<EpochManifest> newestOnPartner() {
        return Optional.ofNullable(committed.get(committedEpoch)).filter(m -> m.holds(Level.PARTNER));
    }

    /** A replacement makes room for the partner copy of its part ({@code bytes}, 0: none) while its program sets up. */
    void prepareForPartnerCopy(long bytes) {
        memory.prepareForPartnerCopy(bytes);
    }

    /** Copies to shared storage wait for the node's turn (the scheduler's staggered flush). */
    void flushThrough(org.mpirunft.bridge.storage.FlushGate gate) {
        writer.flushThrough(gate);
    }

    /** XOR sets of about {@code nodes} nodes (the XOR level's set size), if the job uses the level. */
    void xorSetSize(int nodes) {
        memory.xorSetSize(nodes);
    }

    /**
     * The job shrank (no spare for a lost rank) and this rank is {@code newRank} of the
     * survivors now. What this rank holds in memory is its old rank's: its snapshots (a delta on
     * one would be applied to the new rank's base on disk) and its partner and XOR copies, whose
     * sets changed. They are dropped; the epochs of the old layout are redistributed from disk
     * ({@link #redistributed}), and the next epoch's parts are full.
     */
    void renumber(int newRank) {
        rank = newRank;
        inMemory.clear();
        reads.renumber(newRank);
        memory.renumber(newRank);
    }

    /** Incremental disk parts: a full part at least every {@code epochs} epochs, deltas in between; 1: always full. */
    void fullEvery(int epochs) {
        this.fullEvery = epochs;
    }

    /** Where every rank runs, by rank, read at each checkpoint: the partner level's ring is over the nodes. */
    void nodesFrom(Supplier<List<String>> nodes) {
        this.nodeOfRank = nodes;
    }

    /** Rank 0 hands each committed or abandoned epoch to {@code listener} (the rank channel's report). */
    void reportEpochsTo(Consumer<RankMessage> listener) {
        this.epochReports = listener;
    }

    /** The scheduler's checkpoint order from the channel's thread. */
    void ordered(long order) {
        policy.ordered(order);
    }

    public long committedEpoch() {
        return committedEpoch;
    }

    /** Runs the safe-point protocol before {@code iteration}; true if a checkpoint was taken. */
    boolean atSafePoint(Intracomm world, long iteration, long progress) throws MPIException {
        return atSafePoint(world, iteration, progress, new long[0], agreed -> false);
    }

    /**
     * As {@link #atSafePoint(Intracomm, long, long)}, and agrees on {@code alsoAgreed} in the same
     * allreduce: each value is replaced by its maximum over the ranks (the migration's numbers),
     * so that a safe point stays one collective. If {@code movesHere} says, from those agreed
     * values (the same on every rank), that ranks move at this safe point, the epoch under way,
     * one taken here included, commits before this returns (its parts must not leave with a
     * moving rank): no epoch is pending then.
     */
    boolean atSafePoint(Intracomm world, long iteration, long progress, long[] alsoAgreed, Predicate<long[]> movesHere)
            throws MPIException {
        int wanted = policy.wantedAt(iteration, progress) ? 1 : 0;
        long durable = pendingWrite != null && pendingWrite.isDone() ? pendingEpoch : committedEpoch;
        // MAX over {wanted, -durable, order seen, -order served}: anyone wanting a checkpoint, the
        // least durable epoch, the newest order any rank saw, the oldest any rank served.
        long[] agreed = new long[4 + alsoAgreed.length];
        agreed[0] = wanted;
        agreed[1] = -durable;
        agreed[2] = policy.highestOrderSeen();
        agreed[3] = -policy.lastOrderServed();
        System.arraycopy(alsoAgreed, 0, agreed, 4, alsoAgreed.length);
        world.allReduce(agreed, agreed.length, MPI.LONG, MPI.MAX);
        System.arraycopy(agreed, 4, alsoAgreed, 0, alsoAgreed.length);
        boolean moving = movesHere.test(alsoAgreed);
        long order = policy.served(agreed[2], -agreed[3]);
        boolean checkpoint = agreed[0] == 1 || order > 0;
        long everyoneDurable = -agreed[1];
        if (pendingEpoch != 0 && (everyoneDurable == pendingEpoch || checkpoint)) {
            // A new checkpoint waits for the previous one: epochs commit in order.
            commitPending(world);
        }
        if (checkpoint) {
            takeCheckpoint(world, iteration, order);
        }
        if (moving && pendingEpoch != 0) {
            // Ranks move here: the epoch under way (one taken just now too) commits first, its
            // writes waited for, since a moving rank's part must not leave with it.
            commitPending(world);
        }
        return checkpoint;
    }

    private void takeCheckpoint(Intracomm world, long iteration, long order) throws MPIException {
        long start = System.nanoTime();
        long epoch = ++lastEpoch;
        Set<Level> epochLevels = EnumSet.noneOf(Level.class);
        epochLevels.addAll(levels.levelsOf(epoch));
        List<String> nodes = nodeOfRank.get();
        memory.dropUnservable(epochLevels, nodes);
        Snapshot snapshot = Snapshot.capture(state, epoch, rank, iteration, recyclable, memory.usesPartner() || memory.usesXor());
        recyclable = null;
        memory.start(world, snapshot, epochLevels, nodes, epochLevels.contains(Level.PARTNER) ? partnerBase() : null, stats);
        long stall = System.nanoTime() - start;
        stats.snapshotTaken(snapshot.sizeInBytes(), stall);
        if (keepInMemory) {
            inMemory.put(epoch, snapshot);
        }
        pendingEpoch = epoch;
        pendingIteration = iteration;
        pendingOrder = order;
        pendingSnapshot = snapshot;
        pendingLevels = Set.copyOf(epochLevels);
        long writeStart = System.nanoTime();
        pendingWrite = writer.write(snapshot, epochLevels, deltaBase(snapshot, epochLevels)).whenComplete((part, failure) -> {
            if (failure == null) {
                stats.partWritten(System.nanoTime() - writeStart, part.bytes());
            }
        });
        policy.checkpointTaken();
    }

    /** This rank's snapshot of the last committed epoch if it went to the partner level: what the next copy can be a change on. */
    private Snapshot partnerBase() {
        Snapshot base = inMemory.get(committedEpoch);
        return newestOnPartner().isPresent() && base != null && !base.isRecycled() ? base : null;
    }

    /**
     * The snapshot this epoch's disk part can be a delta on: the last committed epoch's, if this
     * rank still holds it in memory, it went to every disk level this epoch goes to, has the same
     * layout, and the chain back to a full part is shorter than {@code fullEvery}. Null: a full part.
     * It stays in memory until this epoch commits (its write is waited for first).
     */
    private Snapshot deltaBase(Snapshot next, Set<Level> epochLevels) {
        if (fullEvery <= 1 || !(epochLevels.contains(Level.LOCAL) || epochLevels.contains(Level.SHARED))) {
            return null;
        }
        Snapshot base = inMemory.get(committedEpoch);
        EpochManifest baseManifest = committed.get(committedEpoch);
        if (base == null || baseManifest == null || base.isRecycled() || !DeltaPart.sameLayout(next, base)) {
            return null;
        }
        for (Level level : epochLevels) {
            if (level != Level.PARTNER && level != Level.XOR && !baseManifest.holds(level)) {
                return null;
            }
        }
        return committed.chainLength(baseManifest, rank, fullEvery) + 1 < fullEvery ? base : null;
    }

    /** Waits for this rank's part, gathers every rank's record ({@link CommitRecords}), and rank 0 commits the manifest. */
    private void commitPending(Intracomm world) throws MPIException {
        memory.finish(pendingLevels);
        Optional<EpochManifest> manifest = CommitRecords.gather(world, rank, pendingWrite, job, pendingEpoch, pendingIteration,
                pendingLevels);
        int[] committed = {0};
        if (world.getRank() == 0) {
            committed[0] = manifest.isPresent() && writeManifest(manifest.get()) ? 1 : 0;
        }
        world.bcast(committed, 1, MPI.INT, 0);
        long epoch = pendingEpoch;
        long order = pendingOrder;
        long epochIteration = pendingIteration;
        Snapshot written = pendingSnapshot;
        pendingEpoch = 0;
        pendingWrite = null;
        pendingSnapshot = null;
        if (!keepInMemory) {
            recycle(written);
        }
        if (committed[0] == 1) {
            committedEpoch = epoch;
            this.committed.put(epoch, manifest.orElseThrow());
            stats.epochCommitted(epoch);
            if (world.getRank() == 0) {
                CheckpointStats last = stats.snapshot();
                epochReports.accept(new RankMessage.EpochCommitted(RankMessage.VERSION, job, epoch, order, epochIteration,
                        last.lastSnapshotBytes(), last.lastStallNanos() / 1e6, last.lastWriteNanos() / 1e6));
            }
            dropInMemory(inMemory.headMap(epoch));
            memory.committed(epoch);
            this.committed.keepNewest(epoch, manifest.get(), world.getRank() == 0);
        } else {
            recycle(inMemory.remove(epoch));
            LOG.warning(() -> "rank " + rank + ": epoch " + epoch + " did not commit; epoch " + committedEpoch + " stays the recovery line");
            if (world.getRank() == 0) {
                // The order is over without an epoch; the scheduler's next one comes at its interval.
                epochReports.accept(new RankMessage.EpochAbandoned(RankMessage.VERSION, job, epoch, order,
                        "a part or the manifest of epoch " + epoch + " could not be written (the ranks' warnings say which)"));
            }
        }
    }

    /** Rank 0: the manifest goes to shared storage if the epoch did; it commits the epoch. */
    private boolean writeManifest(EpochManifest manifest) {
        if (!manifest.holds(Level.SHARED)) {
            return true;
        }
        try {
            shared.commit(manifest);
            return true;
        } catch (IOException | RuntimeException e) {
            LOG.warning(() -> "rank 0: cannot commit epoch " + pendingEpoch + ": " + e.getMessage());
            return false;
        }
    }

    /**
     * Collective over {@code world}: the snapshot this rank would restore for {@code manifest}'s
     * epoch, from its own memory or disks ({@link #loadable(EpochManifest)}), else, if the epoch
     * has the partner level, from the rank that holds its copy, or if it has the XOR level, rebuilt
     * by its XOR set. Every rank calls it for the same epochs in the same order.
     */
    Optional<Snapshot> loadable(Intracomm world, EpochManifest manifest) throws MPIException {
        return memory.restore(world, manifest, loadable(manifest));
    }

    /**
     * The snapshot this rank would restore for {@code manifest}'s epoch: from memory, else from
     * node-local storage, else from shared storage, each checked against the manifest's CRC.
     */
    Optional<Snapshot> loadable(EpochManifest manifest) {
        Snapshot cached = inMemory.get(manifest.epoch());
        if (cached != null && cached.rank() == rank) {
            return Optional.of(cached);
        }
        return reads.load(manifest);
    }

    /**
     * Starts reading this rank's part of the newest committed epoch on a thread of its own. A
     * replacement calls it as soon as it has joined, so that the read overlaps the program's own
     * setup before its loop; {@link #loadable} then waits for it. Reads nothing if no epoch is
     * committed.
     */
    void startReadingNewest() {
        reads.startReadingNewest();
    }

    /**
     * Waits for the read {@link #startReadingNewest} started; returns how long the read itself
     * took, in nanoseconds, or 0 if none was started or it failed (the rollback's own load then
     * reports why).
     */
    long awaitRead() {
        return reads.awaitRead();
    }

    /**
     * This rank's snapshot of {@code manifest}'s epoch, written by another rank count, rebuilt
     * for {@code ranks} ranks from the old parts that hold its share ({@link PartReads#redistributed}).
     */
    Optional<Snapshot> redistributed(EpochManifest manifest, int ranks) {
        return reads.redistributed(manifest, ranks);
    }

    /**
     * The committed epochs this rank knows, newest first: those it committed with the others
     * (in memory), and those on shared storage (a relaunch's, a replacement's only source).
     */
    List<EpochManifest> committedEpochs() {
        return committed.known();
    }

    /**
     * Collective over {@code world}: the candidates for a rollback, newest first, as the rank
     * that knows the newest committed epoch knows them (lowest such rank). A replacement, or a
     * relaunch without shared storage, knows only what the survivors tell it.
     */
    List<EpochManifest> agreedCandidates(Intracomm world) throws MPIException {
        return committed.agreedCandidates(world, rank);
    }

    /**
     * After the job agreed to roll back to {@code epoch} (0: the start), drop every newer attempt.
     * Numbering continues after {@code highestEpochUsed}, so a discarded attempt's late write can
     * never land in a later epoch of the same number.
     */
    void rolledBackTo(long epoch, long highestEpochUsed) {
        reads.dropReadAhead();
        if (pendingWrite != null) {
            // An unfinished write is of an epoch that is being discarded; a copy waiting for its
            // node's turn to flush would wait for a turn the recovery took away.
            writer.discardWaits(lastEpoch);
            pendingWrite.exceptionally(failure -> null).join();
        }
        pendingWrite = null;
        pendingEpoch = 0;
        if (!keepInMemory && pendingSnapshot != null) {
            recycle(pendingSnapshot);
        }
        pendingSnapshot = null;
        pendingLevels = Set.of();
        dropInMemory(inMemory.tailMap(epoch, false));
        committed.rolledBackTo(epoch);
        memory.rolledBackTo(epoch);
        local.deleteEpochsAfter(epoch);
        if (rank == 0) {
            shared.deleteEpochsAfter(epoch);
        }
        lastEpoch = Math.max(epoch, highestEpochUsed);
        committedEpoch = epoch;
    }

    /**
     * Offers a snapshot nobody reads or writes any more (the rank's initial copy, say) for the
     * next capture to overwrite. One is kept: the next capture needs no more.
     */
    void recycle(Snapshot snapshot) {
        if (snapshot != null && !snapshot.isRecycled()
                && (recyclable == null || snapshot.sizeInBytes() > recyclable.sizeInBytes())) {
            recyclable = snapshot;
        }
    }

    private void dropInMemory(SortedMap<Long, Snapshot> dropped) {
        dropped.values().forEach(this::recycle);
        dropped.clear();
    }

    /**
     * What a rank that moves to a spare hands its successor, so that the spare takes part in the
     * next safe points exactly as this rank would have: the epoch numbering, the recovery line and
     * the manifests this rank committed, and where the scheduler's orders stand. Only when no
     * epoch is pending (a safe point that moves ranks commits it).
     */
    Handover handOver() {
        return new Handover(lastEpoch, committedEpoch, policy.lastOrderServed(), policy.highestOrderSeen(), committed.encoded());
    }

    /** A spare that took a moved rank's place goes on from its predecessor's {@link #handOver}. */
    void continueFrom(Handover handover) throws IOException {
        lastEpoch = handover.lastEpoch();
        committedEpoch = handover.committedEpoch();
        policy.continueFrom(handover.servedOrder(), handover.orderSeen());
        committed.continueFrom(handover.manifests());
    }

    /**
     * The coordinator's state a moving rank hands over ({@link #handOver}); {@code manifests} as
     * {@link CheckpointStore#encodeManifests} writes them.
     */
    record Handover(long lastEpoch, long committedEpoch, long servedOrder, long orderSeen, byte[] manifests) {
        static final int LONGS = 5;

        /** The numbers and the manifests' length, for one small message before the manifests. */
        long[] numbers() {
            return new long[] {lastEpoch, committedEpoch, servedOrder, orderSeen, manifests.length};
        }

        static Handover of(long[] numbers, byte[] manifests) {
            return new Handover(numbers[0], numbers[1], numbers[2], numbers[3], manifests);
        }
    }

    /** The highest epoch number this rank has used, committed or not. */
    long lastEpoch() {
        return lastEpoch;
    }

    @Override
    public void close() {
        writer.close();
    }
}
