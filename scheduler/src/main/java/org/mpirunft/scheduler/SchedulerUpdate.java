package org.mpirunft.scheduler;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import java.util.List;
import java.util.Map;

/**
 * A change to the job table. Updates are replicated to every daemon and applied in one order
 * everywhere, so every daemon holds the same table; applying is deterministic and idempotent
 * (a repeated update changes nothing). Each carries a format version.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type")
@JsonSubTypes({
        @JsonSubTypes.Type(value = SchedulerUpdate.JobRegistered.class, name = "job-registered"),
        @JsonSubTypes.Type(value = SchedulerUpdate.CheckpointOrdered.class, name = "checkpoint-ordered"),
        @JsonSubTypes.Type(value = SchedulerUpdate.EpochCommitted.class, name = "epoch-committed"),
        @JsonSubTypes.Type(value = SchedulerUpdate.RecoveryStarted.class, name = "recovery-started"),
        @JsonSubTypes.Type(value = SchedulerUpdate.RecoveryCompleted.class, name = "recovery-completed"),
        @JsonSubTypes.Type(value = SchedulerUpdate.JobStopped.class, name = "job-stopped"),
        @JsonSubTypes.Type(value = SchedulerUpdate.JobFinished.class, name = "job-finished")})
public sealed interface SchedulerUpdate {
    int VERSION = 1;

    int version();

    String job();

    record JobRegistered(int version, String job, String launcher, List<String> rankNodes, long atMillis)
            implements SchedulerUpdate {
    }

    record CheckpointOrdered(int version, String job, long epoch, long atMillis) implements SchedulerUpdate {
    }

    /**
     * The job committed checkpoint {@code epoch}: its new recovery line.
     *
     * @param costNanos what the checkpoint cost, for the {@code auto} interval; 0 when not measured
     */
    record EpochCommitted(int version, String job, long epoch, long costNanos) implements SchedulerUpdate {
    }

    record RecoveryStarted(int version, String job, String failureId, List<Integer> lostRanks, Map<Integer, String> placement)
            implements SchedulerUpdate {
    }

    /** The launcher reports the ranks running again; their nodes become the job's. */
    record RecoveryCompleted(int version, String job, String failureId) implements SchedulerUpdate {
    }

    record JobStopped(int version, String job, String reason) implements SchedulerUpdate {
    }

    record JobFinished(int version, String job) implements SchedulerUpdate {
    }
}
