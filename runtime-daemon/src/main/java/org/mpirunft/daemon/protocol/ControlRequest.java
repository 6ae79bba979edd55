package org.mpirunft.daemon.protocol;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import java.util.List;

/**
 * What a local client (mpirun-ft, the launch agent, an operator) asks its node's daemon over the
 * control socket: one JSON object per line, each answered by one {@link ControlReply} line
 * ({@link Subscribe} is answered by a stream). Every request carries the protocol version.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type")
@JsonSubTypes({
        @JsonSubTypes.Type(value = ControlRequest.Status.class, name = "status"),
        @JsonSubTypes.Type(value = ControlRequest.Launch.class, name = "launch"),
        @JsonSubTypes.Type(value = ControlRequest.RegisterJob.class, name = "register-job"),
        @JsonSubTypes.Type(value = ControlRequest.Subscribe.class, name = "subscribe"),
        @JsonSubTypes.Type(value = ControlRequest.EpochCommitted.class, name = "epoch-committed"),
        @JsonSubTypes.Type(value = ControlRequest.RecoveryCompleted.class, name = "recovery-completed"),
        @JsonSubTypes.Type(value = ControlRequest.JobFinished.class, name = "job-finished"),
        @JsonSubTypes.Type(value = ControlRequest.CheckpointNow.class, name = "checkpoint-now"),
        @JsonSubTypes.Type(value = ControlRequest.DeliverRankControl.class, name = "deliver-rank-control"),
        @JsonSubTypes.Type(value = ControlRequest.KillJob.class, name = "kill-job"),
        @JsonSubTypes.Type(value = ControlRequest.RestartDaemons.class, name = "restart-daemons")})
public sealed interface ControlRequest {
    int VERSION = 1;

    int version();

    /** The daemon's view of the cluster, its jobs and its node's job processes. */
    record Status(int version) implements ControlRequest {
    }

    /**
     * From Open MPI's launch agent: start {@code command} (Open MPI's node daemon, as PRRTE's ssh
     * launcher words it) on {@code node}, for {@code job} (may be empty).
     */
    record Launch(int version, String node, String job, List<String> command) implements ControlRequest {
    }

    /** A job's launcher (mpirun-ft on this node) registers the job with the scheduler. */
    record RegisterJob(int version, String job, List<String> rankNodes) implements ControlRequest {
    }

    /** Keep the connection open and stream the scheduler's commands for {@code job}. */
    record Subscribe(int version, String job) implements ControlRequest {
    }

    record EpochCommitted(int version, String job, long epoch, long costMillis) implements ControlRequest {
    }

    /** The ranks run again after a pause; {@code rankNodes} is the job's new rank-to-node table. */
    record RecoveryCompleted(int version, String job, String failureId, List<String> rankNodes) implements ControlRequest {
    }

    record JobFinished(int version, String job, int exitCode) implements ControlRequest {
    }

    /** Order a checkpoint of {@code job} now, outside the periodic rhythm. */
    record CheckpointNow(int version, String job) implements ControlRequest {
    }

    /**
     * Write {@code file} (a rank control file such as {@code pause.json}) with {@code content}
     * into the job's rank control directory on each of {@code nodes}, through their daemons.
     */
    record DeliverRankControl(int version, String job, List<String> nodes, String file, String content)
            implements ControlRequest {
    }

    /** Kill {@code job}'s processes on each of {@code nodes} (all nodes of the view if empty). */
    record KillJob(int version, String job, List<String> nodes) implements ControlRequest {
    }

    /**
     * Restart the node daemon of each of {@code nodes}: each leaves the group, and a new one
     * starts in its place and joins. The runtime restart of {@code mpirun-ft --recovery
     * full-restart}, the paper's full-restart baseline.
     */
    record RestartDaemons(int version, List<String> nodes) implements ControlRequest {
    }
}
