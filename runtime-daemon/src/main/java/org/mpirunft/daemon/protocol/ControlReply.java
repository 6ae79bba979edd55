package org.mpirunft.daemon.protocol;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import java.util.List;
import java.util.Map;

/** The daemon's answers on the control socket, one JSON object per line, versioned. */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type")
@JsonSubTypes({
        @JsonSubTypes.Type(value = ControlReply.Ok.class, name = "ok"),
        @JsonSubTypes.Type(value = ControlReply.Failed.class, name = "failed"),
        @JsonSubTypes.Type(value = ControlReply.Launched.class, name = "launched"),
        @JsonSubTypes.Type(value = ControlReply.StatusReport.class, name = "status"),
        @JsonSubTypes.Type(value = ControlReply.JobCommand.class, name = "job-command")})
public sealed interface ControlReply {
    int VERSION = 1;

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
     */
    record StatusReport(int version, String node, String role, boolean joined, boolean fenced, String leader, long viewId,
                        List<MemberStatus> members, List<ProcessStatus> processes, List<JobStatus> jobs)
            implements ControlReply {
    }

    record MemberStatus(String name, String role, int slots, int slotsInUse, double loadAverage, String endpoint) {
    }

    record ProcessStatus(long pid, String command, String job) {
    }

    /**
     * @param rankNodes      node of each rank
     * @param committedEpoch the job's recovery line
     * @param recovery       the failure id of the recovery in progress, empty if none
     * @param stopReason     why the job was stopped, empty if it runs
     */
    record JobStatus(String job, String launcher, List<String> rankNodes, long committedEpoch, long orderedEpoch,
                     String recovery, String stopReason) {
    }

    /**
     * A scheduler command for a subscribed job. {@code key} identifies it: act on each key once.
     *
     * @param kind      checkpoint, pause or stop
     * @param epoch     the epoch to checkpoint (checkpoint)
     * @param failureId the failure being recovered (pause)
     * @param placement new node of each lost rank (pause)
     * @param reason    why the job is stopped (stop)
     */
    record JobCommand(int version, String job, String kind, String key, long epoch, String failureId,
                      Map<Integer, String> placement, String reason) implements ControlReply {
    }
}
