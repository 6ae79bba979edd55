package org.mpirunft.scheduler;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import java.util.List;
import java.util.Map;
import org.mpirunft.common.CheckpointSchedule;
import org.mpirunft.common.JobOwner;
import org.mpirunft.common.rank.RankMessage;

/**
 * A change to the job table: a transition of one job's state machine ({@link JobState}).
 * Updates are proposed by the leader only, replicated to every daemon and applied in one order
 * everywhere, so every daemon holds the same table; applying is deterministic and idempotent (a
 * repeated or stale update changes nothing). Each carries a format version.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type")
@JsonSubTypes({
        @JsonSubTypes.Type(value = SchedulerUpdate.JobRegistered.class, name = "job-registered"),
        @JsonSubTypes.Type(value = SchedulerUpdate.CheckpointOrdered.class, name = "checkpoint-ordered"),
        @JsonSubTypes.Type(value = SchedulerUpdate.EpochCommitted.class, name = "epoch-committed"),
        @JsonSubTypes.Type(value = SchedulerUpdate.CheckpointAbandoned.class, name = "checkpoint-abandoned"),
        @JsonSubTypes.Type(value = SchedulerUpdate.RecoveryStarted.class, name = "recovery-started"),
        @JsonSubTypes.Type(value = SchedulerUpdate.RecoveryExtended.class, name = "recovery-extended"),
        @JsonSubTypes.Type(value = SchedulerUpdate.RecoveryCompleted.class, name = "recovery-completed"),
        @JsonSubTypes.Type(value = SchedulerUpdate.RestartStarted.class, name = "restart-started"),
        @JsonSubTypes.Type(value = SchedulerUpdate.JobRelaunched.class, name = "job-relaunched"),
        @JsonSubTypes.Type(value = SchedulerUpdate.JobStopped.class, name = "job-stopped"),
        @JsonSubTypes.Type(value = SchedulerUpdate.ProgramFinished.class, name = "program-finished"),
        @JsonSubTypes.Type(value = SchedulerUpdate.JobFinished.class, name = "job-finished"),
        @JsonSubTypes.Type(value = SchedulerUpdate.FlushRequested.class, name = "flush-requested"),
        @JsonSubTypes.Type(value = SchedulerUpdate.FlushGranted.class, name = "flush-granted"),
        @JsonSubTypes.Type(value = SchedulerUpdate.FlushDone.class, name = "flush-done"),
        @JsonSubTypes.Type(value = SchedulerUpdate.MigrationStarted.class, name = "migration-started"),
        @JsonSubTypes.Type(value = SchedulerUpdate.MigrationCompleted.class, name = "migration-completed"),
        @JsonSubTypes.Type(value = SchedulerUpdate.MigrationAbandoned.class, name = "migration-abandoned")})
public sealed interface SchedulerUpdate {
    int VERSION = 4;

    int version();

    String job();

    /**
     * A new job, RUNNING. Stamped with the leader's clock: the checkpoint rhythm starts here.
     *
     * @param launcher    the node whose daemon hosts the job's mpirun-ft
     * @param rankNodes   node of each rank, by rank
     * @param spares      the spares in the job's allocation (mpirun's host list), the only nodes a
     *                    replacement can be spawned on in place; empty: any spare of the view
     * @param mode        how it recovers
     * @param schedule    its checkpoint schedule; only the scheduler orders its checkpoints
     * @param maxRestarts whole-job relaunches allowed before the job is stopped
     * @param owner       the user who registered it (absent in an older update: root)
     */
    record JobRegistered(int version, String job, String launcher, List<String> rankNodes, List<String> spares, RecoveryMode mode,
                         CheckpointSchedule schedule, int maxRestarts, long atMillis, JobOwner owner) implements SchedulerUpdate {
        public JobRegistered {
            owner = owner == null ? JobOwner.ROOT : owner;
        }
    }

    /** Checkpoint order number {@code epoch} (increasing per job); one order commits one epoch. */
    record CheckpointOrdered(int version, String job, long epoch, long atMillis) implements SchedulerUpdate {
    }

    /**
     * The job committed checkpoint {@code epoch}: its new recovery line.
     *
     * @param order     the checkpoint order it served ({@link CheckpointOrdered#epoch}), 0 if none
     *                  (an {@code every N} checkpoint)
     * @param costNanos what the checkpoint cost the ranks (stall and write), for the {@code auto}
     *                  interval; 0 when not measured
     */
    record EpochCommitted(int version, String job, long epoch, long order, long costNanos) implements SchedulerUpdate {
    }

    /**
     * The epoch the ranks took for checkpoint order {@code order} did not commit (a part or the
     * manifest could not be written): the order is over, the recovery line stays where it was,
     * and the next order comes at the next interval.
     *
     * @param epoch  the epoch that did not commit
     * @param reason what rank 0 saw
     */
    record CheckpointAbandoned(int version, String job, long order, long epoch, String reason) implements SchedulerUpdate {
    }

    /**
     * RUNNING to PAUSING: a failure is repaired in place.
     *
     * @param failureId the failure's identity: its lost ranks and their nodes ({@code 2@node3,3@node4})
     * @param source    the source whose report started it ({@link FailureReport#source})
     * @param lostRanks each lost rank with the node it was lost on
     * @param placement the node each lost rank's replacement starts on
     */
    record RecoveryStarted(int version, String job, String failureId, String source, Map<Integer, String> lostRanks,
                           Map<Integer, String> placement, String detail) implements SchedulerUpdate {
    }

    /**
     * PAUSING to PAUSING: the recovery under way now covers more (another failure during it, or a
     * spare chosen for it was lost before the ranks resumed). {@code lostRanks} and
     * {@code placement} are complete, not a difference; {@code failureId} is the id of the whole
     * and {@code seq} counts the extensions.
     */
    record RecoveryExtended(int version, String job, String failureId, long seq, String source, Map<Integer, String> lostRanks,
                            Map<Integer, String> placement, String detail) implements SchedulerUpdate {
    }

    /**
     * PAUSING to RUNNING: the ranks resumed; {@code rankNodes} is where every rank runs now, as the
     * ranks reported it, {@code epoch} and {@code iteration} where they resumed, {@code split}
     * where the recovery's time went (null when not measured).
     */
    record RecoveryCompleted(int version, String job, String failureId, List<String> rankNodes, long epoch, long iteration,
                             RankMessage.RecoverySplit split) implements SchedulerUpdate {
    }

    /**
     * To RESTARTING: the whole job is relaunched (restart mode, or a pause that cannot work).
     *
     * @param rankNodes the new plan: every rank's node, lost ranks moved to their placement
     * @param reason    for people, and for the event log
     */
    record RestartStarted(int version, String job, String failureId, String source, Map<Integer, String> lostRanks,
                          Map<Integer, String> placement, List<String> rankNodes, String reason) implements SchedulerUpdate {
    }

    /** RESTARTING to RUNNING: the launcher relaunched the job as attempt {@code attempt}, on {@code rankNodes}. */
    record JobRelaunched(int version, String job, int attempt, List<String> rankNodes) implements SchedulerUpdate {
    }

    /**
     * To STOPPED, for good; checkpoints are kept.
     *
     * @param cause {@code no-spare}, {@code restarts-exhausted} or {@code operator}
     */
    record JobStopped(int version, String job, String cause, String reason) implements SchedulerUpdate {
    }

    /** Every rank agreed that all iterations are done; what remains is the exit. */
    record ProgramFinished(int version, String job) implements SchedulerUpdate {
    }

    /** The launcher reported the job's end; it leaves the table and its nodes are free. */
    record JobFinished(int version, String job) implements SchedulerUpdate {
    }

    /** The ranks on {@code node} have epoch {@code epoch} on node-local storage and ask for their turn to copy it to shared storage. */
    record FlushRequested(int version, String job, long epoch, String node) implements SchedulerUpdate {
    }

    /** The leader's grant: {@code node}'s ranks copy epoch {@code epoch} to shared storage now. */
    record FlushGranted(int version, String job, long epoch, String node) implements SchedulerUpdate {
    }

    /** Every rank on {@code node} ended its copy of epoch {@code epoch}: the turn passes on. */
    record FlushDone(int version, String job, long epoch, String node) implements SchedulerUpdate {
    }

    /**
     * RUNNING to MIGRATING: the ranks of {@code moving} leave their nodes for {@code placement} at
     * the next safe point ({@link JobRecord.Migration}).
     */
    record MigrationStarted(int version, String job, long seq, String source, String reason, Map<Integer, String> moving,
                            Map<Integer, String> placement) implements SchedulerUpdate {
    }

    /**
     * MIGRATING to RUNNING: the ranks moved; {@code rankNodes} is where every rank runs now, as the
     * ranks reported it, {@code iteration} the one they went on with, {@code split} where the
     * time went (null when not measured).
     */
    record MigrationCompleted(int version, String job, long seq, List<String> rankNodes, long iteration,
                              RankMessage.MigrationSplit split) implements SchedulerUpdate {
    }

    /**
     * MIGRATING to RUNNING without the move: the ranks could not bring the spares in (a spare was
     * lost, say) and went on where they were, with nothing rolled back; a drained node's ranks are
     * moved again later.
     */
    record MigrationAbandoned(int version, String job, long seq, String reason) implements SchedulerUpdate {
    }
}
