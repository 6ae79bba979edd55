package org.mpirunft.common.rank;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The rank control channel: one Unix-socket connection from each rank to its own node's daemon,
 * one JSON object per line ({@link RankWire}). Orders travel scheduler, then the daemons of the
 * job's nodes, then the ranks; reports travel back the same way. Nothing on this channel goes
 * through a file, mpirun's output or the launcher.
 *
 * <p>The conversation: the rank connects at {@code FtRank.init} and sends {@link Hello}; the
 * daemon checks the peer's credentials (the connecting process must be a process of the named
 * job on this node) and answers {@link Welcome}, or {@link Refused} and closes. From then on the
 * daemon pushes orders ({@link CheckpointOrder}, {@link PauseOrder}, {@link StopOrder}) as the
 * job's replicated state machine produces them, and the rank sends reports
 * ({@link EpochCommitted}, {@link EpochAbandoned}, {@link FailureSeen}, {@link RecoveryDone}, {@link RecoveryFailed},
 * {@link Finished}) whenever it has one. Reports are not answered; their effect comes back as
 * orders. Under a staggered flush ({@link Welcome#flushWriters}) a rank asks for its node's turn
 * to write to shared storage ({@link FlushWanted}), waits for {@link FlushGrant}, and says when
 * it is done ({@link FlushDone}). A {@link MigrationOrder} moves ranks to spares at a safe point
 * without a rollback; the ranks answer {@link MigrationDone} or {@link MigrationFailed}. Every message carries {@link #VERSION}; a peer of another version is refused.
 *
 * <p>An idle warm spare is on the channel too ({@link Hello#spareOf}): it hears only the calls
 * that name it ({@link SpareCall}), the job's end ({@link JobEnding}) and {@link StopOrder}, so
 * the recovery's rendezvous needs no service of PRRTE's (its data server). Version 5: the spare.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type")
@JsonSubTypes({
        @JsonSubTypes.Type(value = RankMessage.Hello.class, name = "hello"),
        @JsonSubTypes.Type(value = RankMessage.EpochCommitted.class, name = "epoch-committed"),
        @JsonSubTypes.Type(value = RankMessage.EpochAbandoned.class, name = "epoch-abandoned"),
        @JsonSubTypes.Type(value = RankMessage.FailureSeen.class, name = "failure-seen"),
        @JsonSubTypes.Type(value = RankMessage.RecoveryDone.class, name = "recovery-done"),
        @JsonSubTypes.Type(value = RankMessage.RecoveryFailed.class, name = "recovery-failed"),
        @JsonSubTypes.Type(value = RankMessage.Finished.class, name = "finished"),
        @JsonSubTypes.Type(value = RankMessage.Leaving.class, name = "leaving"),
        @JsonSubTypes.Type(value = RankMessage.FlushWanted.class, name = "flush-wanted"),
        @JsonSubTypes.Type(value = RankMessage.FlushDone.class, name = "flush-done"),
        @JsonSubTypes.Type(value = RankMessage.FlushGrant.class, name = "flush-grant"),
        @JsonSubTypes.Type(value = RankMessage.Welcome.class, name = "welcome"),
        @JsonSubTypes.Type(value = RankMessage.Refused.class, name = "refused"),
        @JsonSubTypes.Type(value = RankMessage.CheckpointOrder.class, name = "checkpoint"),
        @JsonSubTypes.Type(value = RankMessage.PauseOrder.class, name = "pause"),
        @JsonSubTypes.Type(value = RankMessage.StopOrder.class, name = "stop"),
        @JsonSubTypes.Type(value = RankMessage.MigrationOrder.class, name = "migrate"),
        @JsonSubTypes.Type(value = RankMessage.MigrationDone.class, name = "migration-done"),
        @JsonSubTypes.Type(value = RankMessage.MigrationFailed.class, name = "migration-failed"),
        @JsonSubTypes.Type(value = RankMessage.SpareCall.class, name = "spare-call"),
        @JsonSubTypes.Type(value = RankMessage.JobEnding.class, name = "job-ending")})
public sealed interface RankMessage {
    int VERSION = 5;

    int version();

    // ---- rank -> daemon ----

    /**
     * The first message of a connection.
     *
     * @param job         the job the rank belongs to
     * @param rank        its rank in the job's world; {@link #NO_RANK} for an idle warm spare
     * @param pid         its process id, checked against the connection's peer credentials
     * @param replacement whether it was spawned to replace a lost rank
     * @param spareOf     for an idle warm spare, its rank in the launch's {@code MPI_COMM_WORLD}
     *                    (the name a {@link SpareCall} calls it by); {@link #NO_RANK} for a rank.
     *                    A spare that took a rank says hello again, as that rank, on a new connection.
     */
    record Hello(int version, String job, int rank, long pid, boolean replacement, int spareOf) implements RankMessage {
        public static final int NO_RANK = -1;

        public Hello(int version, String job, int rank, long pid, boolean replacement) {
            this(version, job, rank, pid, replacement, NO_RANK);
        }

        /** The hello of an idle warm spare, {@code worldRank} in the launch's world. */
        public static Hello ofSpare(String job, long pid, int worldRank) {
            return new Hello(VERSION, job, NO_RANK, pid, false, worldRank);
        }

        public boolean fromSpare() {
            return spareOf >= 0;
        }
    }

    /**
     * Sent by the rank that committed an epoch (rank 0), once its manifest is on shared storage.
     *
     * @param epoch        the committed epoch, the job's new recovery line
     * @param orderedEpoch the scheduler's order it answers, 0 if it was taken on the rank's own
     *                     settings (no order)
     * @param iteration    the safe point it was taken at
     * @param bytes        this rank's part size
     * @param stallMillis  the compute stall of the snapshot on this rank
     * @param writeMillis  the staged write of this rank's part (local, then shared)
     */
    record EpochCommitted(int version, String job, long epoch, long orderedEpoch, long iteration, long bytes,
                          double stallMillis, double writeMillis) implements RankMessage {
    }

    /**
     * Sent by rank 0 when an epoch did not commit (a part or the manifest could not be written):
     * the order it answered is over without a new recovery line.
     *
     * @param epoch        the epoch that did not commit
     * @param orderedEpoch the scheduler's order it answered, 0 if none
     * @param reason       what rank 0 saw
     */
    record EpochAbandoned(int version, String job, long epoch, long orderedEpoch, String reason) implements RankMessage {
    }

    /**
     * A rank saw ranks fail (ULFM's {@code PROC_FAILED}, after its shrink): it reports them and
     * asks for their placement. The answer is a {@link PauseOrder} whose lost ranks include these
     * (or a {@link StopOrder}). Reports of a failure already being repaired change nothing.
     *
     * @param rank      the reporting rank
     * @param lostRanks each lost rank with the node it ran on
     */
    record FailureSeen(int version, String job, int rank, Map<Integer, String> lostRanks) implements RankMessage {
        public FailureSeen {
            lostRanks = sorted(lostRanks);
        }
    }

    /**
     * Sent by the lowest surviving rank once the repaired world resumed.
     *
     * @param failureId     the failure the recovery answered ({@link PauseOrder#failureId}), empty
     *                      if no order named one
     * @param replacedRanks the ranks that run on new nodes now
     * @param rankNodes     every rank's node in the repaired world, by rank
     * @param epoch         the epoch rolled back to (0: the start)
     * @param iteration     the iteration resumed at
     * @param seenAtMillis  wall-clock time the failure reached this rank
     * @param split         where the time went
     */
    record RecoveryDone(int version, String job, String failureId, List<Integer> replacedRanks, List<String> rankNodes,
                        long epoch, long iteration, long seenAtMillis, RecoverySplit split) implements RankMessage {
        public RecoveryDone {
            replacedRanks = List.copyOf(replacedRanks);
            rankNodes = List.copyOf(rankNodes);
        }
    }

    /**
     * Milliseconds of each recovery step: shrink, spawn (or the call of warm spares), merge, wait
     * for replacements (their start-up or join, then the program's setup, which their state read
     * overlaps), of that wait the longest setup and the longest state read, epoch agreement and
     * restore, total; and the ranks that warm spares took in this recovery (a replacement of any
     * other rank was spawned).
     */
    record RecoverySplit(double shrinkMillis, double spawnMillis, double mergeMillis, double joinMillis, double setupMillis,
                         double transferMillis, double loadMillis, double totalMillis, List<Integer> warmRanks) {
        public RecoverySplit {
            warmRanks = warmRanks == null ? List.of() : List.copyOf(warmRanks);
        }
    }

    /**
     * The in-place recovery failed on this rank.
     *
     * @param restartable whether a whole-job restart from the checkpoints may still work (false when
     *                    no committed epoch can be loaded, or the job cannot shrink)
     * @param cause       for a job that stops: {@code no-checkpoint}, or {@code no-spare} (no spare,
     *                    and the program's state cannot be redistributed over fewer ranks); absent
     *                    (an older rank) means {@code no-checkpoint}
     */
    record RecoveryFailed(int version, String job, int rank, String reason, boolean restartable, String cause) implements RankMessage {
        public static final String NO_CHECKPOINT = "no-checkpoint";
        public static final String NO_SPARE = "no-spare";

        public RecoveryFailed {
            cause = cause == null || cause.isEmpty() ? NO_CHECKPOINT : cause;
        }

        public RecoveryFailed(int version, String job, int rank, String reason, boolean restartable) {
            this(version, job, rank, reason, restartable, NO_CHECKPOINT);
        }
    }

    /** Rank 0: every rank agreed that all iterations are done; what follows is the bounded exit. */
    record Finished(int version, String job) implements RankMessage {
    }

    /**
     * Any rank, last on its channel: it ends on purpose ({@code reason}: its run completed, it
     * moved to another node, a shrink left it out). A rank whose channel ends without it, and
     * whose process is gone, died: its daemon reports it as a failure.
     */
    record Leaving(int version, String job, int rank, String reason) implements RankMessage {
    }

    /**
     * The rank's part of {@code epoch} is on node-local storage and waits for its node's turn to
     * be copied to shared storage (sent only when {@link Welcome#flushWriters} is above 0).
     */
    record FlushWanted(int version, String job, int rank, long epoch) implements RankMessage {
    }

    /** The rank's copy of {@code epoch} to shared storage ended (written or failed): its node's turn can end. */
    record FlushDone(int version, String job, int rank, long epoch) implements RankMessage {
    }

    /**
     * Sent by the lowest rank that stayed, once the moved ranks' spares took their numbers and
     * every rank went on.
     *
     * @param seq        the migration's number ({@link MigrationOrder#seq})
     * @param movedRanks the ranks that run on spares now
     * @param rankNodes  every rank's node after the move, by rank
     * @param iteration  the iteration every rank went on with: the one after the safe point it moved at
     * @param split      where the time went
     */
    record MigrationDone(int version, String job, long seq, List<Integer> movedRanks, List<String> rankNodes, long iteration,
                         MigrationSplit split) implements RankMessage {
        public MigrationDone {
            movedRanks = List.copyOf(movedRanks);
            rankNodes = List.copyOf(rankNodes);
        }
    }

    /**
     * Milliseconds of each step of a migration, and the state moved. {@code reachMillis}: from the
     * order's arrival at the reporting rank to the safe point every rank agreed to move at;
     * {@code callMillis}: the spares called, connected and merged in; {@code transferMillis}: the
     * moving ranks' state sent from their memory to the spares (the longest); {@code rejoinMillis}:
     * from the new world to the spares' first step in it (their program's setup);
     * {@code totalMillis}: from the agreed safe point to the first step; {@code bytes}: the state
     * moved, over all moving ranks.
     */
    record MigrationSplit(double reachMillis, double callMillis, double transferMillis, double rejoinMillis, double totalMillis,
                          long bytes) {
    }

    /**
     * The ranks could not carry out migration {@code seq} and went on where they were, nothing
     * rolled back (a spare did not answer, say). Sent by the lowest rank. A failure of a rank
     * during the move is not this: it is reported as a failure, and the job pauses.
     */
    record MigrationFailed(int version, String job, long seq, String reason) implements RankMessage {
    }

    /**
     * The call of warm spares into a repair or a migration. The survivors' root reports it on its
     * channel; its daemon sends it to the daemon of each called spare's node, which gives it to
     * those spares alone (so it carries the spares' nodes). Each spare then answers the root on
     * {@code MPI_COMM_WORLD} with {@code nonce}, the root says go (or gives the call up), and the
     * spares come in one at a time over a communicator of two made at init, the root's and the
     * spare's, with {@code tag} (and up, one per spare). No PMIx publish, lookup or connect is on
     * that path.
     *
     * @param callId    names the call in logs: the failure or migration, and the attempt
     * @param nonce     tells this call's messages on {@code MPI_COMM_WORLD} from those of calls given up
     * @param group     the called spares' world ranks, in the order of the ranks they take
     * @param nodes     each called spare's node, by world rank
     * @param rootRank  the survivors' root, its rank in the launch's {@code MPI_COMM_WORLD}
     * @param tag       the tag of the first spare's intercommunicator; the next spare's is one more
     */
    record SpareCall(int version, String job, String callId, long nonce, List<Integer> group, Map<Integer, String> nodes,
                     int rootRank, int tag) implements RankMessage {
        public SpareCall {
            group = List.copyOf(group);
            nodes = nodes == null ? Map.of() : java.util.Collections.unmodifiableMap(new TreeMap<>(nodes));
        }

        /** Whether this call names the spare with world rank {@code worldRank}. */
        public boolean calls(int worldRank) {
            return group.contains(worldRank);
        }
    }

    // ---- daemon -> rank ----

    /**
     * The job's program finished (every rank agreed that all iterations are done): an idle warm
     * spare finalizes MPI with the ranks and leaves. Sent to spares only.
     */
    record JobEnding(int version, String job) implements RankMessage {
    }

    /**
     * The answer to {@link Hello}.
     *
     * @param node         the daemon's node
     * @param scheduled    whether the scheduler orders this job's checkpoints (mpirun-ft registered
     *                     it); false for a job the scheduler does not know (plain mpirun launched
     *                     through the daemons): the rank then uses its own settings
     * @param orderedEpoch the scheduler's last checkpoint order for the job
     * @param servedOrder  the last order an epoch committed for (or abandoned): the orders after it
     *                     are still to be served, also by a rank that connects after they were given
     *                     (the first ranks of a job, or a replacement while an order was outstanding)
     * @param everyIterations a standing order to checkpoint at every iteration that is a multiple
     *                     of it (the job's schedule is {@code every N}), 0 for none. When
     *                     {@code scheduled}, a rank checkpoints only on the scheduler's orders: its
     *                     own interval settings are off.
     */
    record Welcome(int version, String job, String node, boolean scheduled, long orderedEpoch, long servedOrder,
                   int everyIterations, int flushWriters) implements RankMessage {
    }

    /** The connection is refused; the daemon closes it after this. */
    record Refused(int version, String reason) implements RankMessage {
    }

    /**
     * Checkpoint at the next safe point. Ranks agree on the highest order seen, so one order
     * commits exactly one epoch whatever moment each rank receives it.
     *
     * @param epoch the order's number, increasing per job
     */
    record CheckpointOrder(int version, String job, long epoch) implements RankMessage {
    }

    /**
     * Roll back in place: revoke, shrink, replace the lost ranks on their placement, agree on the
     * newest epoch every rank can load. It is how the scheduler's placement reaches the ranks for
     * every failure, and how a failure MPI does not see (a hung node, a cut link) reaches them at
     * all. A rank named lost that still runs leaves the job.
     *
     * @param failureId identifies the failure by its lost ranks and their nodes; the same failure
     *                  reported by several sources has one id
     * @param seq       increases when the recovery is extended (more lost ranks, a spare replaced)
     * @param lostRanks each lost rank with the node it was lost on (a rank that runs elsewhere now
     *                  was already replaced: the order is old news for it)
     * @param placement the node each lost rank's replacement starts on
     */
    record PauseOrder(int version, String job, String failureId, long seq, Map<Integer, String> lostRanks,
                      Map<Integer, String> placement) implements RankMessage {
        public PauseOrder {
            lostRanks = sorted(lostRanks);
            placement = sorted(placement);
        }
    }

    /**
     * Move ranks to spares at the next safe point every rank reaches with this order: each
     * moving rank sends its state from memory to the spare placed for it, which takes its rank
     * number, and every rank goes on from the same iteration. An order with no moving rank ends
     * migration {@code seq}: withdrawn before the ranks moved (the job paused meanwhile, or the
     * spare was lost), or recorded after they did (the moved ranks' old processes may leave).
     *
     * @param seq       the job's migration number, from 1
     * @param moving    each moving rank with the node it leaves
     * @param placement the spare each moving rank goes to
     */
    record MigrationOrder(int version, String job, long seq, Map<Integer, String> moving, Map<Integer, String> placement)
            implements RankMessage {
        public MigrationOrder {
            moving = sorted(moving);
            placement = sorted(placement);
        }

        /** Whether this order ends migration {@code seq} instead of ordering it. */
        public boolean withdraws() {
            return moving.isEmpty();
        }
    }

    /** This node's turn to copy the parts of {@code epoch} to shared storage. */
    record FlushGrant(int version, String job, long epoch) implements RankMessage {
    }

    /** The job is stopped (no spare left, or stopped by the operator); ranks exit quietly, checkpoints are kept. */
    record StopOrder(int version, String job, String reason) implements RankMessage {
    }

    private static Map<Integer, String> sorted(Map<Integer, String> map) {
        return map == null ? Map.of() : java.util.Collections.unmodifiableMap(new TreeMap<>(map));
    }
}
