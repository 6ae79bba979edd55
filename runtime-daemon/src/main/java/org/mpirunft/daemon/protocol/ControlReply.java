package org.mpirunft.daemon.protocol;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import java.util.List;
import java.util.Map;
import org.mpirunft.scheduler.SchedulerUpdate;

/** The daemon's answers on the control socket, one JSON object per line, versioned. */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type")
@JsonSubTypes({
        @JsonSubTypes.Type(value = ControlReply.Ok.class, name = "ok"),
        @JsonSubTypes.Type(value = ControlReply.Failed.class, name = "failed"),
        @JsonSubTypes.Type(value = ControlReply.Launched.class, name = "launched"),
        @JsonSubTypes.Type(value = ControlReply.StatusReport.class, name = "status"),
        @JsonSubTypes.Type(value = ControlReply.JobEvent.class, name = "job-event"),
        @JsonSubTypes.Type(value = ControlReply.StepDone.class, name = "step-done"),
        @JsonSubTypes.Type(value = ControlReply.LauncherExited.class, name = "launcher-exited")})
public sealed interface ControlReply {
    int VERSION = 3;

    int version();

    record Ok(int version, String detail) implements ControlReply {
    }

    /** A refused or failed request. {@code code} is one of {@link ErrorCode}'s names. */
    record Failed(int version, ErrorCode code, String message) implements ControlReply {
    }

    record Launched(int version, String node, long pid) implements ControlReply {
    }

    /**
     * @param node      this daemon's node
     * @param role      its role (compute, spare, launcher)
     * @param joined    whether it is in the group
     * @param fenced    whether it fenced itself (expelled) and has not been merged back yet
     * @param leader    the scheduler's acting leader, empty when unknown
     * @param viewId    the group view's id
     * @param members   the view, oldest first
     * @param processes the job processes on this node
     * @param jobs      the scheduler's job table, as this daemon holds it
     * @param rankSocket where this node's ranks reach the daemon; "" from a daemon that does not say
     * @param logTerm    this daemon's term in the group's replicated log (0 without a scheduler): a
     *                   daemon whose term is above the leader's drops the leader's messages and names no leader
     * @param logVoters  the log's voters as this daemon knows them (log ids, host:port)
     */
    record StatusReport(int version, String node, String role, boolean joined, boolean fenced, String leader, long viewId,
                        List<MemberStatus> members, List<ProcessStatus> processes, List<JobStatus> jobs, String rankSocket,
                        long logTerm, List<String> logVoters)
            implements ControlReply {
        public StatusReport {
            rankSocket = rankSocket == null ? "" : rankSocket;
            logVoters = logVoters == null ? List.of() : List.copyOf(logVoters);
        }
    }

    /** @param drain why the node is drained, empty while it is in service */
    record MemberStatus(String name, String role, int slots, int slotsInUse, double loadAverage, String endpoint, String drain) {
        public MemberStatus {
            drain = drain == null ? "" : drain;
        }
    }

    record ProcessStatus(long pid, String command, String job) {
    }

    /**
     * One job as the scheduler's state machine holds it.
     *
     * @param state                    RUNNING, PAUSING, RESTARTING or STOPPED
     * @param mode                     pause, restart or full-restart
     * @param schedule                 the checkpoint schedule ({@code auto}, {@code every N}, a duration)
     * @param attempt                  launches so far
     * @param rankNodes                node of each rank
     * @param spares                   the spares of the job's allocation
     * @param committedEpoch           the job's recovery line
     * @param orderedEpoch             the last checkpoint order
     * @param failureId                the failure being repaired, empty if none
     * @param recoverySeq              how often that recovery was extended, plus one
     * @param lostRanks                its lost ranks, each with the node it was lost on
     * @param placement                where each lost rank goes
     * @param stopCause                why the job was stopped ({@code no-spare}, ...), empty if it runs
     * @param stopReason               the stop, for people
     * @param programFinished          every rank agreed the program is done
     * @param checkpointIntervalMillis the interval the scheduler orders checkpoints at now (fixed, or
     *                                 Daly's for {@code auto}), -1 for {@code every N}
     * @param owner                    the user the job belongs to ("" from a daemon that does not say)
     * @param detailed                 false when the asking user may not see the job's details: then
     *                                 only its name, owner, state, mode and attempt are filled in
     */
    record JobStatus(String job, String launcher, String state, String mode, String schedule, int attempt, List<String> rankNodes,
                     List<String> spares, long committedEpoch, long orderedEpoch, String failureId, long recoverySeq,
                     Map<Integer, String> lostRanks, Map<Integer, String> placement, String stopCause, String stopReason,
                     boolean programFinished, long checkpointIntervalMillis, String owner, boolean detailed) {
        public JobStatus {
            owner = owner == null ? "" : owner;
        }

        /** What a user who is neither the owner nor an operator sees of the job, as of another user's job in {@code squeue}. */
        public JobStatus withoutDetails() {
            return new JobStatus(job, "", state, mode, "", attempt, List.of(), List.of(), 0, 0, "", 0, Map.of(), Map.of(), "", "", false,
                    -1, owner, false);
        }
    }

    /**
     * A transition of a subscribed job: {@code update} is the scheduler's update that was applied
     * (null for the first event of a subscription, the job as it is), {@code status} the job after it.
     */
    record JobEvent(int version, String job, SchedulerUpdate update, JobStatus status) implements ControlReply {
    }

    /** A {@link PeerMessage.TransparentStep} done on {@code node} in {@code millis}; {@code part} for DUMP and STAGE, else null. */
    record StepDone(int version, String node, PeerMessage.Step step, double millis, PeerMessage.TransparentPart part)
            implements ControlReply {
    }

    /**
     * To a job's subscribers: the job's mpirun, restored by a transparent recovery (so no longer
     * mpirun-ft's child), exited with {@code status} (128 + the signal if a signal ended it).
     */
    record LauncherExited(int version, String job, long pid, int status) implements ControlReply {
    }
}
