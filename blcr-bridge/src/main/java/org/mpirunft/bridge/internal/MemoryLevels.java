package org.mpirunft.bridge.internal;

import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.logging.Logger;
import mpi.Intracomm;
import mpi.MPIException;
import org.mpirunft.bridge.FtConfig;
import org.mpirunft.bridge.RankListener;
import org.mpirunft.bridge.state.Snapshot;
import org.mpirunft.bridge.storage.EpochManifest;
import org.mpirunft.bridge.storage.StorageLevels;
import org.mpirunft.bridge.storage.StorageLevels.Level;

/**
 * The storage levels {@link CheckpointCoordinator} keeps in other ranks' memory: the partner
 * level ({@link PartnerCopies}) and the XOR level ({@link XorSets}), for a job that uses them.
 * Owns whether the ranks' placement can serve them for an epoch, their transfers at the
 * checkpoint and the commit, what they keep after a commit or a rollback, and a restore from them.
 * Both are per rank, so a rank renumbered by a shrink starts them afresh. Not thread-safe: the
 * rank's main thread owns it.
 */
final class MemoryLevels {
    private static final Logger LOG = Logger.getLogger(MemoryLevels.class.getName());

    /** The partner level; null if the job does not use it. */
    private PartnerCopies partner;
    /** The XOR level; null if the job does not use it. */
    private XorSets xor;
    private int rank;
    /** The XOR level's set size, for a renumbered rank's new sets. */
    private int xorSetSize = FtConfig.DEFAULT_XOR_SET;
    /** The levels dropped for want of nodes, each warned about once. */
    private final Set<Level> warnedDropped = EnumSet.noneOf(Level.class);

    /** The program's, told of each restore from another rank's memory; each level is given it. */
    private final RankListener listener;

    MemoryLevels(StorageLevels levels, int rank, RankListener listener) {
        this.partner = levels.uses(Level.PARTNER) ? new PartnerCopies(rank, listener) : null;
        this.xor = levels.uses(Level.XOR) ? new XorSets(rank, FtConfig.DEFAULT_XOR_SET, listener) : null;
        this.rank = rank;
        this.listener = listener;
    }

    /** Whether the job uses the partner level. */
    boolean usesPartner() {
        return partner != null;
    }

    /** Whether the job uses the XOR level. */
    boolean usesXor() {
        return xor != null;
    }

    /** XOR sets of about {@code nodes} nodes (the XOR level's set size), if the job uses the level. */
    void xorSetSize(int nodes) {
        xorSetSize = nodes;
        if (xor != null) {
            xor = new XorSets(rank, nodes, listener);
        }
    }

    /** This rank is {@code newRank} of the survivors now: the copies it holds and its sets are its old rank's, and are dropped. */
    void renumber(int newRank) {
        rank = newRank;
        if (partner != null) {
            partner = new PartnerCopies(newRank, listener);
        }
        if (xor != null) {
            xor = new XorSets(newRank, xorSetSize, listener);
        }
    }

    /** A replacement makes room for the partner copy of its part ({@code bytes}, 0: none) while its program sets up. */
    void prepareForPartnerCopy(long bytes) {
        if (partner != null) {
            partner.prepareRoom(bytes);
        }
    }

    /**
     * Removes from {@code epochLevels} a memory level the ranks' placement ({@code nodes}, by rank)
     * cannot serve. Every rank sees the same nodes, so every rank drops the level alike.
     */
    void dropUnservable(Set<Level> epochLevels, List<String> nodes) {
        if (epochLevels.contains(Level.PARTNER) && PartnerRing.holderOf(rank, nodes) < 0) {
            dropForThisEpoch(epochLevels, Level.PARTNER, "the ranks run on one node, so no partner can hold a copy");
        }
        if (epochLevels.contains(Level.XOR) && !XorSets.coversAll(nodes, xor.setSize())) {
            dropForThisEpoch(epochLevels, Level.XOR, "some ranks have no XOR set (a set needs ranks on at least " + XorSets.MIN_SET
                    + " nodes)");
        }
    }

    /** Drops {@code level} from this epoch's levels, saying so once per level. */
    private void dropForThisEpoch(Set<Level> epochLevels, Level level, String why) {
        epochLevels.remove(level);
        if (warnedDropped.add(level)) {
            LOG.warning(() -> "rank " + rank + ": " + why + "; epochs go to " + (epochLevels.isEmpty() ? "no level but memory" : epochLevels)
                    + " only");
        }
    }

    /**
     * At the safe point of a checkpoint: starts the transfers of {@code snapshot} to the memory
     * levels among {@code epochLevels}, and counts what this rank sent. {@code partnerBase}: what
     * the partner copy can be a change on, or null.
     */
    void start(Intracomm world, Snapshot snapshot, Set<Level> epochLevels, List<String> nodes, Snapshot partnerBase,
               CheckpointCounters stats) throws MPIException {
        if (epochLevels.contains(Level.PARTNER)) {
            partner.useWorld(world);
            partner.start(snapshot, nodes, partnerBase);
            stats.partnerSent(partner.lastSentBytes());
        }
        if (epochLevels.contains(Level.XOR)) {
            xor.useWorld(world, nodes);
            xor.start(snapshot);
            stats.partnerSent(xor.lastSentBytes());
        }
    }

    /** At the commit of an epoch that went to {@code epochLevels}: waits for their transfers. */
    void finish(Set<Level> epochLevels) throws MPIException {
        if (epochLevels.contains(Level.PARTNER)) {
            // A partner lost meanwhile fails this like any MPI call: the recovery discards the epoch.
            partner.finish();
        }
        if (epochLevels.contains(Level.XOR)) {
            xor.finish();
        }
    }

    /** Epoch {@code epoch} committed: what the levels held of older epochs is of no use any more. */
    void committed(long epoch) {
        if (partner != null) {
            partner.committed(epoch);
        }
        if (xor != null) {
            xor.committed(epoch);
        }
    }

    /** The job rolled back to {@code epoch}: what the levels held of newer epochs is dropped. */
    void rolledBackTo(long epoch) {
        if (partner != null) {
            partner.rolledBackTo(epoch);
        }
        if (xor != null) {
            xor.rolledBackTo(epoch);
        }
    }

    /**
     * Collective over {@code world}: {@code own} (this rank's snapshot from its memory or disks)
     * if present, else, if the epoch has the partner level, the copy from the rank that holds it,
     * or if it has the XOR level, the part rebuilt by its XOR set. Every rank calls it for the
     * same epochs in the same order.
     */
    Optional<Snapshot> restore(Intracomm world, EpochManifest manifest, Optional<Snapshot> own) throws MPIException {
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
}
