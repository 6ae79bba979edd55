package org.mpirunft.scheduler.cli;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jdk8.Jdk8Module;
import java.util.List;
import java.util.Map;
import org.mpirunft.scheduler.JobRecord;
import java.util.Optional;
import org.mpirunft.scheduler.JobTransition;
import org.mpirunft.scheduler.SchedulerUpdate;

/**
 * One line of {@code scheduler-node}'s output (JSON). Tests and the benchmark read these;
 * {@code monoNanos} is {@link System#nanoTime()} when the line was made, CLOCK_MONOTONIC on
 * Linux, so comparable between the processes of one machine.
 *
 * @param v          format version
 * @param event      STARTED, MEMBERSHIP, CHECKPOINT, PAUSE, STOP, TABLE, OK, ERROR, STOPPED
 * @param self       the node that printed the line
 * @param leader     the leader (view coordinator) as this node saw it then
 * @param job        the command's job (CHECKPOINT, PAUSE, STOP)
 * @param epoch      CHECKPOINT: the epoch ordered; OK of a checkpoint request: the epoch
 * @param failureId  PAUSE: the failure
 * @param placement  PAUSE: the node of each replaced rank
 * @param members    MEMBERSHIP: the view's node names, coordinator first
 * @param jobs       TABLE: the node's job table
 * @param decisionNanos TABLE: the node's decision latencies as leader
 * @param detail     free text: the membership event, the stop reason, the request answered, an error
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record NodeLine(int v, String event, String self, String leader, long monoNanos, String job, Long epoch, String failureId,
                       Map<Integer, String> placement, List<String> members, List<JobRecord> jobs, List<Long> decisionNanos,
                       String detail) {
    public static final int VERSION = 1;
    private static final ObjectMapper MAPPER = JsonMapper.builder()
            .addModule(new Jdk8Module())
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .build();

    public static NodeLine status(String event, String self, String leader, String detail) {
        return new NodeLine(VERSION, event, self, leader, System.nanoTime(), null, null, null, null, null, null, null, detail);
    }

    /** The line for a transition the job's launcher acts on: CHECKPOINT, PAUSE or STOP; empty for the others. */
    public static Optional<NodeLine> command(String self, String leader, JobTransition transition) {
        long now = System.nanoTime();
        return Optional.ofNullable(switch (transition.update()) {
            case SchedulerUpdate.CheckpointOrdered c -> new NodeLine(VERSION, "CHECKPOINT", self, leader, now, c.job(), c.epoch(), null,
                    null, null, null, null, null);
            case SchedulerUpdate.RecoveryStarted p -> new NodeLine(VERSION, "PAUSE", self, leader, now, p.job(), null, p.failureId(),
                    p.placement(), null, null, null, null);
            case SchedulerUpdate.RecoveryExtended p -> new NodeLine(VERSION, "PAUSE", self, leader, now, p.job(), null, p.failureId(),
                    p.placement(), null, null, null, null);
            case SchedulerUpdate.JobStopped s -> new NodeLine(VERSION, "STOP", self, leader, now, s.job(), null, null, null, null, null,
                    null, s.reason());
            default -> null;
        });
    }

    public static NodeLine membership(String self, String leader, String detail, List<String> members) {
        return new NodeLine(VERSION, "MEMBERSHIP", self, leader, System.nanoTime(), null, null, null, null, members, null, null, detail);
    }

    public static NodeLine table(String self, String leader, List<JobRecord> jobs, List<Long> decisionNanos) {
        return new NodeLine(VERSION, "TABLE", self, leader, System.nanoTime(), null, null, null, null, null, jobs, decisionNanos, null);
    }

    public static NodeLine answer(String self, String leader, String request, Long epoch) {
        return new NodeLine(VERSION, "OK", self, leader, System.nanoTime(), null, epoch, null, null, null, null, null, request);
    }

    public String toJson() {
        try {
            return MAPPER.writeValueAsString(this);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write a node line", e);
        }
    }

    /** Parses a line printed by {@link #toJson()}; null if the line is not one. */
    public static NodeLine parse(String line) {
        if (line == null || !line.startsWith("{")) {
            return null;
        }
        try {
            return MAPPER.readValue(line, NodeLine.class);
        } catch (JsonProcessingException e) {
            return null;
        }
    }
}
