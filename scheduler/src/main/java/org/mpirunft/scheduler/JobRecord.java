package org.mpirunft.scheduler;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.mpirunft.common.CheckpointSchedule;
import org.mpirunft.common.JobOwner;

/**
 * One job in the job table: its state machine's state and what the decisions need.
 *
 * @param launcher          the node whose daemon hosts the job's mpirun-ft
 * @param rankNodes         node of each rank, by rank
 * @param spares            the spares in the job's allocation, where replacements can start in place
 * @param state             where the job is ({@link JobState})
 * @param mode              how it recovers
 * @param schedule          its checkpoint schedule
 * @param maxRestarts       whole-job relaunches allowed
 * @param attempt           launches so far (1 for the first)
 * @param committedEpoch    the job's recovery line
 * @param orderedEpoch      the last checkpoint order
 * @param servedOrder       the last order a committed epoch served; an order above it is still
 *                          outstanding, and ranks would serve a second one with the same epoch
 * @param lastOrderAtMillis wall-clock time of that order (of the registration before the first),
 *                          so a new leader keeps the rhythm
 * @param recovery          the recovery or restart under way, in PAUSING and RESTARTING
 * @param stop              why the job was stopped, in STOPPED
 * @param programFinished   every rank agreed that all iterations are done
 * @param flush             the staggered flush of the newest epoch to shared storage, under way or done
 * @param migrations        migrations ordered so far: the number of the last one
 * @param migration         the migration under way, in MIGRATING
 * @param owner             the user who registered the job: its processes run as this user, and
 *                          only this user and the operators may see its details or act on it
 * @param lostNodes         nodes the job lost since its last launch: its runtime (mpirun's node
 *                          daemons) has none there any more and cannot start a rank there, so a
 *                          pause or a migration places no rank on them even when they are back in
 *                          the group; a relaunch starts a new runtime, and they are spares again
 */
public record JobRecord(String job, String launcher, List<String> rankNodes, List<String> spares, JobState state, RecoveryMode mode,
                        CheckpointSchedule schedule, int maxRestarts, int attempt, long committedEpoch, long orderedEpoch,
                        long servedOrder, long lastOrderAtMillis, Optional<Recovery> recovery, Optional<Stop> stop, boolean programFinished,
                        Flush flush, long migrations, Optional<Migration> migration, JobOwner owner, List<String> lostNodes) {
    public JobRecord {
        // A table written before lostNodes has none.
        lostNodes = lostNodes == null ? List.of() : List.copyOf(lostNodes);
        rankNodes = List.copyOf(rankNodes);
        spares = List.copyOf(spares);
        // A table written before staggered flushes has none; one written before migrations, none either.
        flush = flush == null ? Flush.NONE : flush;
        migration = migration == null ? Optional.empty() : migration;
        // Only root could run a job before jobs had owners.
        owner = owner == null ? JobOwner.ROOT : owner;
    }

    /**
     * A migration under way (MIGRATING): ranks leave a node for spares at the ranks' next safe
     * point, their state sent from memory, and nobody rolls back.
     *
     * @param seq       the job's migration number, from 1; the ranks agree on it
     * @param source    who asked: {@code operator} ({@code mpirun-ft migrate}) or {@code drain}
     *                  (the node was drained, by the operator or its health check)
     * @param reason    for people, and for the event log
     * @param moving    each moving rank with the node it leaves
     * @param placement the spare each moving rank goes to
     */
    public record Migration(long seq, String source, String reason, Map<Integer, String> moving, Map<Integer, String> placement) {
        public Migration {
            moving = java.util.Collections.unmodifiableMap(new TreeMap<>(moving));
            placement = java.util.Collections.unmodifiableMap(new TreeMap<>(placement));
        }
    }

    /**
     * Whose turn it is to copy epoch {@code epoch}'s parts from node-local to shared storage,
     * when the cluster lets only so many nodes write at once ({@code storage.flush-writers}).
     * Nodes ask, the leader grants in the order they asked, and a node leaves {@code writing}
     * when every rank it hosts is done. Only the newest epoch is tracked: epochs commit in order,
     * so a rank asks for the next one only once the last one's copies ended.
     *
     * @param waiting nodes that asked and wait for their turn, in the order they asked
     * @param writing nodes whose turn it is
     * @param done    nodes whose ranks copied (or failed to), so a repeated request changes nothing
     */
    public record Flush(long epoch, List<String> waiting, List<String> writing, List<String> done) {
        public static final Flush NONE = new Flush(0, List.of(), List.of(), List.of());

        public Flush {
            waiting = List.copyOf(waiting);
            writing = List.copyOf(writing);
            done = List.copyOf(done);
        }

        /** Whether {@code node} asked for epoch {@code epoch}'s turn: it waits, writes or is done. */
        public boolean knows(long epoch, String node) {
            return this.epoch == epoch && (waiting.contains(node) || writing.contains(node) || done.contains(node));
        }

        /** Whether {@code node}'s request for epoch {@code epoch}'s turn is news: not stale, not asked already. */
        public boolean takesRequest(long epoch, String node) {
            return epoch >= this.epoch && !knows(epoch, node);
        }

        /** Whether {@code node}'s turn for epoch {@code epoch} can end: it asked and is not done yet. */
        public boolean takesDone(long epoch, String node) {
            return knows(epoch, node) && !done.contains(node);
        }
    }

    /**
     * A recovery (PAUSING) or restart (RESTARTING) under way.
     *
     * @param failureId the failure's identity: its lost ranks and their nodes
     * @param seq       1 when started, one more per extension
     * @param source    the source whose report started it
     * @param lostRanks each lost rank with the node it was lost on
     * @param placement the node each lost rank goes to
     */
    public record Recovery(String failureId, long seq, String source, Map<Integer, String> lostRanks,
                           Map<Integer, String> placement) {
        public Recovery {
            lostRanks = java.util.Collections.unmodifiableMap(new TreeMap<>(lostRanks));
            placement = java.util.Collections.unmodifiableMap(new TreeMap<>(placement));
        }
    }

    /** Why a job was stopped: {@code cause} is {@code no-spare}, {@code restarts-exhausted} or {@code operator}. */
    public record Stop(String cause, String reason) {
    }

    /** Whether the last checkpoint order has not committed an epoch yet. */
    public boolean orderOutstanding() {
        return orderedEpoch > servedOrder;
    }

    /** Whether migration {@code seq} is the one under way. */
    public boolean isMigrating(long seq) {
        return state == JobState.MIGRATING && migration.map(m -> m.seq() == seq).orElse(false);
    }

    public boolean stopped() {
        return state == JobState.STOPPED;
    }

    /** The failure id of a set of lost ranks: {@code rank@node}, by rank, comma-separated. */
    public static String failureIdOf(Map<Integer, String> lostRanks) {
        StringBuilder id = new StringBuilder();
        new TreeMap<>(lostRanks).forEach((rank, node) -> id.append(id.isEmpty() ? "" : ",").append(rank).append('@').append(node));
        return id.toString();
    }
}
