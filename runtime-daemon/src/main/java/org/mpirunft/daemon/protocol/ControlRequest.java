package org.mpirunft.daemon.protocol;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import java.util.List;
import java.util.Map;

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
        @JsonSubTypes.Type(value = ControlRequest.FailureReported.class, name = "failure-reported"),
        @JsonSubTypes.Type(value = ControlRequest.RestartNeeded.class, name = "restart-needed"),
        @JsonSubTypes.Type(value = ControlRequest.JobRelaunched.class, name = "job-relaunched"),
        @JsonSubTypes.Type(value = ControlRequest.JobFinished.class, name = "job-finished"),
        @JsonSubTypes.Type(value = ControlRequest.CheckpointNow.class, name = "checkpoint-now"),
        @JsonSubTypes.Type(value = ControlRequest.KillJob.class, name = "kill-job"),
        @JsonSubTypes.Type(value = ControlRequest.RestartDaemons.class, name = "restart-daemons"),
        @JsonSubTypes.Type(value = ControlRequest.LauncherStarted.class, name = "launcher-started"),
        @JsonSubTypes.Type(value = ControlRequest.Migrate.class, name = "migrate"),
        @JsonSubTypes.Type(value = ControlRequest.Drain.class, name = "drain"),
        @JsonSubTypes.Type(value = ControlRequest.Resume.class, name = "resume")})
public sealed interface ControlRequest {
    int VERSION = 2;

    int version();

    /** The daemon's view of the cluster, its jobs and its node's job processes. */
    record Status(int version) implements ControlRequest {
    }

    /**
     * From Open MPI's launch agent: start {@code command} (Open MPI's node daemon, as PRRTE's ssh
     * launcher words it) on {@code node}, for {@code job} (may be empty), as a step of the Slurm
     * allocation {@code slurmJob} when the job runs in one (else empty, and left out of the JSON,
     * which a daemon of an earlier version then still reads; absent from an older agent).
     */
    record Launch(int version, String node, String job, List<String> command,
                  @JsonInclude(JsonInclude.Include.NON_EMPTY)
                  String slurmJob) implements ControlRequest {
        public Launch {
            slurmJob = slurmJob == null ? "" : slurmJob;
        }
    }

    /**
     * A job's launcher (mpirun-ft on this node) registers the job with the scheduler.
     *
     * @param rankNodes   node of each rank
     * @param spares      the spares of the job's allocation (mpirun's host list)
     * @param mode        {@code pause}, {@code restart} or {@code full-restart}
     * @param schedule    the checkpoint schedule ({@code auto}, {@code every N}, a duration), or ""
     *                    for the cluster's default
     * @param maxRestarts whole-job relaunches allowed
     * @param checkpointDir the job's shared checkpoint directory ({@code mpirun-ft --checkpoint-dir}), where a
     *                    transparent job's images go; "" or absent: the cluster's {@code storage.shared}
     */
    record RegisterJob(int version, String job, List<String> rankNodes, List<String> spares, String mode, String schedule,
                       int maxRestarts, String checkpointDir) implements ControlRequest {
        public RegisterJob {
            checkpointDir = checkpointDir == null ? "" : checkpointDir;
        }

        public RegisterJob(int version, String job, List<String> rankNodes, List<String> spares, String mode, String schedule,
                           int maxRestarts) {
            this(version, job, rankNodes, spares, mode, schedule, maxRestarts, "");
        }
    }

    /**
     * Keep the connection open and stream the job's transitions ({@link ControlReply.JobEvent}),
     * the job as it is first.
     */
    record Subscribe(int version, String job) implements ControlRequest {
    }

    /**
     * A failure the launcher saw in Open MPI's own output: a lost rank ({@code lostRanks}, rank to
     * node) or a lost node daemon ({@code lostNodes}).
     */
    record FailureReported(int version, String job, String source, Map<Integer, String> lostRanks, List<String> lostNodes,
                           String detail) implements ControlRequest {
    }

    /** mpirun ended before the program finished: the scheduler decides a restart or a stop. */
    record RestartNeeded(int version, String job, String source, String reason) implements ControlRequest {
    }

    /** The launcher relaunched the job (attempt {@code attempt}) on {@code rankNodes}, as the scheduler planned. */
    record JobRelaunched(int version, String job, int attempt, List<String> rankNodes) implements ControlRequest {
    }

    record JobFinished(int version, String job, int exitCode) implements ControlRequest {
    }

    /** Order a checkpoint of {@code job} now, outside the periodic rhythm. */
    record CheckpointNow(int version, String job) implements ControlRequest {
    }

    /** Kill {@code job}'s processes on each of {@code nodes} (all nodes of the view if empty). */
    record KillJob(int version, String job, List<String> nodes) implements ControlRequest {
    }

    /**
     * Restart the node daemon of each of {@code nodes}: each leaves the group, and a new one
     * starts in its place and joins. The runtime restart of {@code mpirun-ft --recovery
     * full-restart}, the paper's full-restart baseline.
     */
    /**
     * From mpirun-ft: it started {@code job}'s mpirun on this node as {@code pid}. The ranks mpirun
     * starts on its own node descend from it, not from a node daemon this daemon started: they
     * are the job's too (an sbatch script, or mpirun-ft on a node that runs ranks).
     */
    record LauncherStarted(int version, String job, long pid) implements ControlRequest {
    }

    record RestartDaemons(int version, List<String> nodes) implements ControlRequest {
    }

    /**
     * Move {@code job}'s ranks off {@code node} to spares at their next safe point, nobody rolled
     * back; answered once the scheduler ordered it ({@link ControlReply.Ok} names the migration).
     */
    record Migrate(int version, String job, String node, String reason) implements ControlRequest {
    }

    /**
     * Drain {@code node}: it gets no new rank, and the ranks it has are moved to spares. The
     * node's own daemon keeps the drain until {@link Resume}.
     */
    record Drain(int version, String node, String reason) implements ControlRequest {
    }

    /** Put a drained {@code node} back in service (ranks moved off it stay where they went). */
    record Resume(int version, String node) implements ControlRequest {
    }
}
