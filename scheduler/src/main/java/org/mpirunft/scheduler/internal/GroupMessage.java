package org.mpirunft.scheduler.internal;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import org.mpirunft.scheduler.FailureReport;
import org.mpirunft.scheduler.SchedulerUpdate;

/**
 * What the schedulers of the daemons send each other over the membership group: small
 * immutable records, JSON by {@link SchedulerCodec}. Each carries {@code v}, the format
 * version; a receiver ignores fields it does not know.
 *
 * <p>These are requests to the leader. The leader's decisions travel on the group's replicated
 * log as {@link LogEntry}s, not as messages. See {@link SchedulerServiceImpl}.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type")
@JsonSubTypes({
        @JsonSubTypes.Type(value = GroupMessage.Request.class, name = "request"),
        @JsonSubTypes.Type(value = GroupMessage.CheckpointRequest.class, name = "checkpoint-request"),
        @JsonSubTypes.Type(value = GroupMessage.FailureRequest.class, name = "failure-request"),
        @JsonSubTypes.Type(value = GroupMessage.RestartRequest.class, name = "restart-request"),
        @JsonSubTypes.Type(value = GroupMessage.MigrationRequest.class, name = "migration-request")})
public sealed interface GroupMessage {
    int VERSION = 3;

    int v();

    /** A daemon asks the leader for {@code update} (registration, commit, completion, finish). */
    record Request(int v, SchedulerUpdate update) implements GroupMessage {
    }

    /** A daemon asks the leader for a checkpoint of {@code job} after epoch {@code afterEpoch}. */
    record CheckpointRequest(int v, String job, long afterEpoch) implements GroupMessage {
    }

    /** A daemon passes on a failure one of its sources saw; the leader judges it ({@code SchedulerCore.failureReported}). */
    record FailureRequest(int v, String job, FailureReport report) implements GroupMessage {
    }

    /**
     * A daemon passes on that the job cannot go on in place; the leader restarts or stops it.
     * {@code reporter} is the rank that said so, null when mpirun-ft did.
     */
    record RestartRequest(int v, String job, String source, String reason, FailureReport.Reporter reporter) implements GroupMessage {
    }

    /** The operator asks the leader to move {@code job}'s ranks off {@code node} ({@code mpirun-ft migrate}). */
    record MigrationRequest(int v, String job, String node, String reason) implements GroupMessage {
    }
}
