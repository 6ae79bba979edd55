package org.mpirunft.scheduler.internal;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import java.util.List;
import org.mpirunft.scheduler.FailureReport;
import org.mpirunft.scheduler.JobRecord;
import org.mpirunft.scheduler.SchedulerUpdate;

/**
 * What the schedulers of the daemons send each other over the membership group: small
 * immutable records, JSON by {@link SchedulerCodec}. Each carries {@code v}, the format
 * version; a receiver ignores fields it does not know.
 *
 * <p>The leader's log: every update the leader proposes travels as {@link Replicated} with the
 * leader's {@code term} and its position {@code seq} in that term. A new leader (and a leader
 * whose view gained members) first collects every member's {@link StateReport}, takes the most
 * advanced table, and starts a new term with a {@link Snapshot} of it. See
 * {@link SchedulerServiceImpl}.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type")
@JsonSubTypes({
        @JsonSubTypes.Type(value = GroupMessage.Replicated.class, name = "replicated"),
        @JsonSubTypes.Type(value = GroupMessage.Snapshot.class, name = "snapshot"),
        @JsonSubTypes.Type(value = GroupMessage.StateReport.class, name = "state-report"),
        @JsonSubTypes.Type(value = GroupMessage.Request.class, name = "request"),
        @JsonSubTypes.Type(value = GroupMessage.CheckpointRequest.class, name = "checkpoint-request"),
        @JsonSubTypes.Type(value = GroupMessage.FailureRequest.class, name = "failure-request"),
        @JsonSubTypes.Type(value = GroupMessage.RestartRequest.class, name = "restart-request"),
        @JsonSubTypes.Type(value = GroupMessage.MigrationRequest.class, name = "migration-request")})
public sealed interface GroupMessage {
    int VERSION = 2;

    int v();

    /** Update number {@code seq} of the leader's term {@code term}; broadcast by the leader. */
    record Replicated(int v, long term, long seq, SchedulerUpdate update) implements GroupMessage {
    }

    /** The whole table as of ({@code term}, {@code seq}); broadcast by the leader, it replaces a replica's table. */
    record Snapshot(int v, long term, long seq, List<JobRecord> jobs) implements GroupMessage {
        public Snapshot {
            jobs = List.copyOf(jobs);
        }
    }

    /**
     * A replica's state, sent to the coordinator when the view changes ({@code viewId}), and
     * again ({@code behind}) when the replica finds it missed part of the leader's log.
     */
    record StateReport(int v, long viewId, long term, long seq, boolean behind, List<JobRecord> jobs) implements GroupMessage {
        public StateReport {
            jobs = List.copyOf(jobs);
        }
    }

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
