package org.mpirunft.bridge.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.LongBuffer;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Consumer;
import java.util.logging.Logger;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import org.mpirunft.bridge.FtConfig;
import org.mpirunft.bridge.state.DeltaPart;
import org.mpirunft.bridge.state.RankState;
import org.mpirunft.bridge.state.Redistribution;
import org.mpirunft.bridge.state.StateMismatchException;
import org.mpirunft.common.rank.RankMessage;
import org.mpirunft.bridge.state.Snapshot;
import org.mpirunft.bridge.storage.CheckpointStore;
import org.mpirunft.bridge.storage.CheckpointWriteException;
import org.mpirunft.bridge.storage.EpochManifest;
import org.mpirunft.bridge.storage.PartCodec;
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
 * keeps its manifest, and rank 0 writes it to shared storage if the epoch went there. Not
 * thread-safe: the rank's main thread owns it.
 */
public final class CheckpointCoordinator implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(CheckpointCoordinator.class.getName());
    /** Longs per rank in the commit's allgather: epoch, bytes, CRC, delta base, codec. */
    private static final int RECORD = 5;

    private final RankState state;
    private final CheckpointStore local;
    private final CheckpointStore shared;
    private final StagedWriter writer;
    private final CheckpointPolicy policy;
    private final boolean keepInMemory;
    private final StorageLevels levels;
    /** Disk parts are deltas on the previous epoch's, with a full part at least every this many epochs; 1: always full. */
    private int fullEvery = 1;
    /** The partner level; null if the job does not use it. */
    private PartnerCopies partner;
    /** The XOR level; null if the job does not use it. */
    private XorSets xor;
    /** Every rank's node, by rank, as the world is now: where the partners are. */
    private Supplier<List<String>> nodeOfRank = List::of;
    /** The levels dropped for want of nodes, each warned about once. */
    private final Set<Level> warnedDropped = EnumSet.noneOf(Level.class);
    private final String job;
    private int rank;
    /** The XOR level's set size, for a renumbered rank's new sets. */
    private int xorSetSize = FtConfig.DEFAULT_XOR_SET;

    private long lastEpoch;
    private long committedEpoch;
    private long pendingEpoch;
    private long pendingIteration;
    /** The scheduler's order the pending epoch serves, 0 if none. */
    private long pendingOrder;
    private Set<Level> pendingLevels = Set.of();
    /** The epochs this rank committed with the others, newest last: the recovery lines it knows without any disk. */
    private final TreeMap<Long, EpochManifest> committed = new TreeMap<>();
    /** Per level, the epochs it keeps: the newest two that went there. */
    private final Map<Level, List<Long>> keptAt = new EnumMap<>(Level.class);
    /** Where rank 0 reports each committed or abandoned epoch (the rank channel), if anywhere. */
    private Consumer<RankMessage> epochReports = report -> { };
    private CompletableFuture<PartRecord> pendingWrite;
    private Snapshot pendingSnapshot;
    /** A dropped snapshot whose buffers the next capture overwrites, so a checkpoint leaves no state-sized garbage. */
    private Snapshot recyclable;
    /** Snapshots a survivor can roll back to without disk: the committed one and the pending one. */
    private final TreeMap<Long, Snapshot> inMemory = new TreeMap<>();
    private final CheckpointStats stats = new CheckpointStats();
    /** A replacement's read of its part, under way while the program sets up; null if none. */
    private StateRead read;

    CheckpointCoordinator(RankState state, CheckpointStore local, CheckpointStore shared, CheckpointPolicy policy,
                          boolean keepInMemory, String job, int rank) {
        this(state, local, shared, policy, keepInMemory, StorageLevels.DEFAULT, job, rank);
    }

    CheckpointCoordinator(RankState state, CheckpointStore local, CheckpointStore shared, CheckpointPolicy policy,
                          boolean keepInMemory, StorageLevels levels, String job, int rank) {
        this.levels = levels;
        this.partner = levels.uses(Level.PARTNER) ? new PartnerCopies(rank) : null;
        this.xor = levels.uses(Level.XOR) ? new XorSets(rank, FtConfig.DEFAULT_XOR_SET) : null;
        this.state = state;
        this.local = local;
        this.shared = shared;
        this.policy = policy;
        // A rebuild from XOR parity needs every survivor's own part of the epoch.
        this.keepInMemory = keepInMemory || xor != null;
        this.job = job;
        this.rank = rank;
        this.writer = new StagedWriter(local, shared, rank);
        Optional<EpochManifest> latest = shared.latestCommitted();
        this.lastEpoch = latest.map(EpochManifest::epoch).orElse(0L);
        this.committedEpoch = lastEpoch;
        // A relaunch keeps the previous attempt's newest epoch as a fallback, as a second epoch would be.
        latest.ifPresent(m -> {
            for (Level level : Level.values()) {
                if (m.holds(level)) {
                    keptAt.computeIfAbsent(level, l -> new ArrayList<>()).add(m.epoch());
                }
            }
        });
    }

    public CheckpointStats stats() {
        return stats;
    }

    /** The size of rank {@code r}'s part of the newest committed epoch if a partner holds it, else 0: a replacement's hint. */
    long partnerCopyBytes(int r) {
        return newestOnPartner().filter(m -> partner != null && r < m.parts().size()).map(m -> m.part(r).bytes()).orElse(0L);
    }

    /** The newest committed epoch's manifest, if that epoch went to the partner level. */
    private Optional<EpochManifest> newestOnPartner() {
        return Optional.ofNullable(committed.get(committedEpoch)).filter(m -> m.holds(Level.PARTNER));
    }

    /** A replacement makes room for the partner copy of its part ({@code bytes}, 0: none) while its program sets up. */
    void prepareForPartnerCopy(long bytes) {
        if (partner != null) {
            partner.prepareRoom(bytes);
        }
    }

    /** Copies to shared storage wait for the node's turn (the scheduler's staggered flush). */
    void flushThrough(org.mpirunft.bridge.storage.FlushGate gate) {
        writer.flushThrough(gate);
    }

    /** XOR sets of about {@code nodes} nodes (the XOR level's set size), if the job uses the level. */
    void xorSetSize(int nodes) {
        xorSetSize = nodes;
        if (xor != null) {
            xor = new XorSets(rank, nodes);
        }
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
        read = null;
        if (partner != null) {
            partner = new PartnerCopies(newRank);
        }
        if (xor != null) {
            xor = new XorSets(newRank, xorSetSize);
        }
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
        if (epochLevels.contains(Level.PARTNER) && PartnerRing.holderOf(rank, nodes) < 0) {
            dropForThisEpoch(epochLevels, Level.PARTNER, "the ranks run on one node, so no partner can hold a copy");
        }
        if (epochLevels.contains(Level.XOR) && !XorSets.coversAll(nodes, xor.setSize())) {
            dropForThisEpoch(epochLevels, Level.XOR, "some ranks have no XOR set (a set needs ranks on at least " + XorSets.MIN_SET
                    + " nodes)");
        }
        boolean toPartner = epochLevels.contains(Level.PARTNER);
        boolean toXor = epochLevels.contains(Level.XOR);
        Snapshot snapshot = Snapshot.capture(state, epoch, rank, iteration, recyclable, partner != null || xor != null);
        recyclable = null;
        if (toPartner) {
            partner.useWorld(world);
            partner.start(snapshot, nodes, partnerBase());
            stats.partnerSent(partner.lastSentBytes());
        }
        if (toXor) {
            xor.useWorld(world, nodes);
            xor.start(snapshot);
            stats.partnerSent(xor.lastSentBytes());
        }
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

    /**
     * Drops a memory level the ranks' placement cannot serve from this epoch's levels, saying so
     * once per level. Every rank sees the same nodes, so every rank drops the level alike.
     */
    private void dropForThisEpoch(Set<Level> epochLevels, Level level, String why) {
        epochLevels.remove(level);
        if (warnedDropped.add(level)) {
            LOG.warning(() -> "rank " + rank + ": " + why + "; epochs go to " + (epochLevels.isEmpty() ? "no level but memory" : epochLevels)
                    + " only");
        }
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
        return chainLength(baseManifest) + 1 < fullEvery ? base : null;
    }

    /** How many deltas this rank's part of {@code manifest} is from a full part; fullEvery if the chain is not all known. */
    private int chainLength(EpochManifest manifest) {
        int length = 0;
        EpochManifest link = manifest;
        while (link.part(rank).isDelta()) {
            length++;
            link = committed.get(link.part(rank).base());
            if (link == null || length >= fullEvery) {
                return fullEvery;
            }
        }
        return length;
    }

    /** The oldest epoch {@code manifest}'s parts need on disk: the full parts their delta chains start from. */
    private long chainRoot(EpochManifest manifest) {
        long root = manifest.epoch();
        for (PartRecord part : manifest.parts()) {
            PartRecord link = part;
            while (link.isDelta()) {
                EpochManifest base = committed.get(link.base());
                if (base == null) {
                    return 0;
                }
                root = Math.min(root, base.epoch());
                link = base.part(part.rank());
            }
        }
        return root;
    }

    /** Waits for this rank's part, gathers every rank's record, and rank 0 commits the manifest. */
    private void commitPending(Intracomm world) throws MPIException {
        if (pendingLevels.contains(Level.PARTNER)) {
            // A partner lost meanwhile fails this like any MPI call: the recovery discards the epoch.
            partner.finish();
        }
        if (pendingLevels.contains(Level.XOR)) {
            xor.finish();
        }
        // Per rank: epoch, bytes (-1: not written), CRC, delta base, codec.
        long[] mine = {pendingEpoch, -1, 0, 0, 0};
        try {
            PartRecord part = pendingWrite.join();
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
        Optional<EpochManifest> manifest = manifestOf(all, size);
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
                epochReports.accept(new RankMessage.EpochCommitted(RankMessage.VERSION, job, epoch, order, epochIteration,
                        stats.lastSnapshotBytes(), stats.lastStallNanos() / 1e6, stats.lastWriteNanos() / 1e6));
            }
            dropInMemory(inMemory.headMap(epoch));
            if (partner != null) {
                partner.committed(epoch);
            }
            if (xor != null) {
                xor.committed(epoch);
            }
            keepNewest(epoch, manifest.get(), world.getRank() == 0);
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

    /** The pending epoch's manifest from every rank's record, the same on every rank; empty if a part is not whole. */
    private Optional<EpochManifest> manifestOf(long[] all, int size) {
        List<PartRecord> parts = new ArrayList<>(size);
        for (int r = 0; r < size; r++) {
            int at = RECORD * r;
            long bytes = all[at + 1];
            if (all[at] != pendingEpoch || bytes < 0) {
                return Optional.empty();
            }
            parts.add(new PartRecord(r, CheckpointStore.partFileName(r), bytes, all[at + 2], all[at + 3],
                    PartCodec.values()[(int) all[at + 4]].label()));
        }
        return Optional.of(EpochManifest.of(job, pendingEpoch, pendingIteration, parts, pendingLevels));
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
     * Of a level's epochs, oldest first, the oldest to keep: the full epoch before the one the
     * newest epoch's delta chain starts from (the fallback if a link of the chain is damaged), and
     * all after it. With full parts only, that is the newest two.
     */
    private long oldestKept(List<Long> epochs) {
        long root = chainRoot(committed.get(epochs.getLast()));
        for (int i = epochs.size() - 1; i >= 0; i--) {
            long e = epochs.get(i);
            EpochManifest manifest = committed.get(e);
            if (e < root && manifest != null && chainRoot(manifest) == e) {
                return e;
            }
        }
        return epochs.getFirst();
    }

    /**
     * Each level keeps the newest two epochs that went to it (with delta chains, see
     * {@link #oldestKept}): the newest, and one to fall back to if it is damaged. A disk level's
     * older epochs are deleted, committed or not (rank 0 deletes on shared storage); a manifest is
     * kept in memory while a level keeps its epoch.
     */
    private void keepNewest(long epoch, EpochManifest manifest, boolean rankZero) {
        for (Level level : Level.values()) {
            if (!manifest.holds(level)) {
                continue;
            }
            List<Long> kept = keptAt.computeIfAbsent(level, l -> new ArrayList<>());
            kept.add(epoch);
            long oldestKept = oldestKept(kept);
            kept.removeIf(e -> e < oldestKept);
            if (level == Level.LOCAL) {
                local.deleteEpochsBefore(oldestKept);
            } else if (level == Level.SHARED && rankZero) {
                shared.deleteEpochsBefore(oldestKept);
            }
        }
        committed.keySet().removeIf(e -> e != epoch && keptAt.values().stream().noneMatch(kept -> kept.contains(e)));
    }

    /**
     * Collective over {@code world}: the snapshot this rank would restore for {@code manifest}'s
     * epoch, from its own memory or disks ({@link #loadable(EpochManifest)}), else, if the epoch
     * has the partner level, from the rank that holds its copy, or if it has the XOR level, rebuilt
     * by its XOR set. Every rank calls it for the same epochs in the same order.
     */
    Optional<Snapshot> loadable(Intracomm world, EpochManifest manifest) throws MPIException {
        Optional<Snapshot> own = loadable(manifest);
        if (xor != null && manifest.holds(Level.XOR)) {
            Optional<Snapshot> rebuilt = xor.restore(world, manifest, own);
            return own.isPresent() ? own : rebuilt;
        }
        if (partner == null || !manifest.holds(Level.PARTNER)) {
            return own;
        }
        Optional<Snapshot> copy = partner.restore(world, manifest, own.isEmpty());
        return own.isPresent() ? own : copy;
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
        if (read != null && read.epoch() == manifest.epoch()) {
            CompletableFuture<PartRead> part = read.part();
            read = null;
            return part.join().snapshot();
        }
        return readPart(manifest);
    }

    /**
     * Starts reading this rank's part of the newest committed epoch on a thread of its own. A
     * replacement calls it as soon as it has joined, so that the read overlaps the program's own
     * setup before its loop; {@link #loadable} then waits for it. Reads nothing if no epoch is
     * committed.
     */
    void startReadingNewest() {
        List<EpochManifest> candidates = committedEpochs();
        if (candidates.isEmpty()) {
            return;
        }
        EpochManifest newest = candidates.getFirst();
        CompletableFuture<PartRead> part = new CompletableFuture<>();
        read = new StateRead(newest.epoch(), part);
        Thread.ofPlatform().daemon().name("rank-state-read").start(() -> {
            long start = System.nanoTime();
            try {
                Optional<Snapshot> snapshot = readPart(newest);
                part.complete(new PartRead(snapshot, System.nanoTime() - start));
            } catch (Throwable e) {
                part.completeExceptionally(e);
            }
        });
    }

    /**
     * Waits for the read {@link #startReadingNewest} started; returns how long the read itself
     * took, in nanoseconds, or 0 if none was started or it failed (the rollback's own load then
     * reports why).
     */
    long awaitRead() {
        StateRead started = read;
        if (started == null) {
            return 0;
        }
        try {
            return started.part().join().nanos();
        } catch (CompletionException | java.util.concurrent.CancellationException e) {
            return 0;
        }
    }

    /** A part read started ahead of the rollback: {@link #startReadingNewest}. */
    private record StateRead(long epoch, CompletableFuture<PartRead> part) {
    }

    /** What the read ahead found, and how long it took. */
    private record PartRead(Optional<Snapshot> snapshot, long nanos) {
    }

    /**
     * This rank's snapshot of {@code manifest}'s epoch, written by another rank count, rebuilt
     * for {@code ranks} ranks ({@link Redistribution}) from the old parts that hold its share,
     * read from node-local or shared storage. Empty if a part cannot be read or does not hold
     * what this rank registered (said in the log). Partner copies and XOR sets are per rank of
     * the old layout, so an epoch held only there cannot be redistributed.
     */
    Optional<Snapshot> redistributed(EpochManifest manifest, int ranks) {
        Map<Integer, Snapshot> parts = new HashMap<>();
        for (int from : Redistribution.sources(state, manifest.worldSize(), rank, ranks)) {
            Optional<Snapshot> part = readPart(manifest, from);
            if (part.isEmpty()) {
                LOG.warning(() -> "rank " + rank + ": epoch " + manifest.epoch() + " cannot be redistributed: the part of rank "
                        + from + " of " + manifest.worldSize() + " is not readable here");
                return Optional.empty();
            }
            parts.put(from, part.get());
        }
        try {
            return Optional.of(Redistribution.assemble(state, manifest.worldSize(), rank, ranks, parts));
        } catch (StateMismatchException e) {
            LOG.warning(() -> "rank " + rank + ": epoch " + manifest.epoch() + " cannot be redistributed: " + e.getMessage());
            return Optional.empty();
        }
    }

    private Optional<Snapshot> readPart(EpochManifest manifest) {
        return readPart(manifest, rank);
    }

    /** Rank {@code owner}'s part, from node-local storage, else shared storage, as the epoch went there; logs where it came from and how fast. */
    private Optional<Snapshot> readPart(EpochManifest manifest, int owner) {
        List<CheckpointStore> stores = new ArrayList<>();
        if (manifest.holds(Level.LOCAL)) {
            stores.add(local);
        }
        if (manifest.holds(Level.SHARED)) {
            stores.add(shared);
        }
        for (CheckpointStore store : stores) {
            long start = System.nanoTime();
            try {
                Snapshot part = store.loadPart(manifest, owner, this::manifestOf);
                double millis = (System.nanoTime() - start) / 1e6;
                long bytes = manifest.part(owner).bytes();
                // The benchmark reads this line: the state transfer next to its storage path's bandwidth.
                LOG.info(() -> String.format(java.util.Locale.ROOT,
                        "rank %d: state transfer epoch=%d bytes=%d ms=%.1f from=%s%s", rank, manifest.epoch(), bytes, millis,
                        store == local ? "local" : "shared", owner == rank ? "" : " (the part of rank " + owner + " of " + manifest.worldSize() + ")"));
                return Optional.of(part);
            } catch (IOException | RuntimeException e) {
                // A part missing from node-local storage is normal on a spare; a damaged one is news.
                java.util.logging.Level level = e.getMessage() != null && e.getMessage().endsWith("is missing") ? java.util.logging.Level.FINE : java.util.logging.Level.WARNING;
                LOG.log(level, () -> "rank " + rank + ": epoch " + manifest.epoch() + " in " + store.jobDirectory() + " unusable: "
                        + e.getMessage());
            }
        }
        return Optional.empty();
    }

    /** The manifest of committed epoch {@code epoch}, from memory, else from shared storage. */
    private Optional<EpochManifest> manifestOf(long epoch) {
        EpochManifest known = committed.get(epoch);
        if (known != null) {
            return Optional.of(known);
        }
        return shared.manifest(epoch);
    }

    /**
     * The committed epochs this rank knows, newest first: those it committed with the others
     * (in memory), and those on shared storage (a relaunch's, a replacement's only source).
     */
    List<EpochManifest> committedEpochs() {
        TreeMap<Long, EpochManifest> known = new TreeMap<>();
        if (levels.uses(Level.SHARED) || committed.isEmpty()) {
            shared.committedEpochs().forEach(m -> known.put(m.epoch(), m));
        }
        known.putAll(committed);
        return List.copyOf(known.descendingMap().values());
    }

    /**
     * Collective over {@code world}: the candidates for a rollback, newest first, as the rank
     * that knows the newest committed epoch knows them (lowest such rank). A replacement, or a
     * relaunch without shared storage, knows only what the survivors tell it.
     */
    List<EpochManifest> agreedCandidates(Intracomm world) throws MPIException {
        List<EpochManifest> mine = committedEpochs();
        int size = world.getSize();
        long newest = mine.isEmpty() ? 0 : mine.getFirst().epoch();
        LongBuffer best = MPI.newLongBuffer(1).put(0, newest * size + (size - 1 - rank));
        world.allReduce(best, 1, MPI.LONG, MPI.MAX);
        int root = size - 1 - (int) (best.get(0) % size);
        if (best.get(0) / size == 0) {
            return List.of();
        }
        byte[] encoded = rank == root ? CheckpointStore.encodeManifests(mine) : new byte[0];
        LongBuffer length = MPI.newLongBuffer(1).put(0, encoded.length);
        world.bcast(length, 1, MPI.LONG, root);
        ByteBuffer bytes = MPI.newByteBuffer((int) length.get(0));
        if (rank == root) {
            bytes.put(0, encoded);
        }
        world.bcast(bytes, (int) length.get(0), MPI.BYTE, root);
        byte[] received = new byte[(int) length.get(0)];
        bytes.get(0, received);
        try {
            List<EpochManifest> candidates = CheckpointStore.decodeManifests(received);
            // A replacement learns here the epochs the others committed: its delta chains and the
            // levels' retention need their manifests from now on.
            candidates.forEach(m -> committed.putIfAbsent(m.epoch(), m));
            return candidates;
        } catch (IOException e) {
            throw new IllegalStateException("rank " + rank + ": rank " + root + "'s list of committed epochs is unreadable: "
                    + e.getMessage(), e);
        }
    }

    /**
     * After the job agreed to roll back to {@code epoch} (0: the start), drop every newer attempt.
     * Numbering continues after {@code highestEpochUsed}, so a discarded attempt's late write can
     * never land in a later epoch of the same number.
     */
    void rolledBackTo(long epoch, long highestEpochUsed) {
        read = null;
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
        committed.tailMap(epoch, false).clear();
        keptAt.values().forEach(kept -> kept.removeIf(e -> e > epoch));
        if (partner != null) {
            partner.rolledBackTo(epoch);
        }
        if (xor != null) {
            xor.rolledBackTo(epoch);
        }
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
        return new Handover(lastEpoch, committedEpoch, policy.lastOrderServed(), policy.highestOrderSeen(),
                CheckpointStore.encodeManifests(List.copyOf(committed.values())));
    }

    /** A spare that took a moved rank's place goes on from its predecessor's {@link #handOver}. */
    void continueFrom(Handover handover) throws IOException {
        lastEpoch = handover.lastEpoch();
        committedEpoch = handover.committedEpoch();
        policy.continueFrom(handover.servedOrder(), handover.orderSeen());
        committed.clear();
        keptAt.clear();
        for (EpochManifest manifest : CheckpointStore.decodeManifests(handover.manifests())) {
            committed.put(manifest.epoch(), manifest);
            for (Level level : Level.values()) {
                if (manifest.holds(level)) {
                    keptAt.computeIfAbsent(level, l -> new ArrayList<>()).add(manifest.epoch());
                }
            }
        }
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
