package org.mpirunft.launcher;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import java.util.List;
import java.util.Map;

/**
 * One entry of the job's event log ({@link EventLog}): what happened, with its durations in
 * milliseconds. The log adds the format version, the wall-clock time and the job to each.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type")
@JsonSubTypes({
        @JsonSubTypes.Type(value = LauncherEvent.Launch.class, name = "launch"),
        @JsonSubTypes.Type(value = LauncherEvent.Checkpoint.class, name = "checkpoint"),
        @JsonSubTypes.Type(value = LauncherEvent.Flush.class, name = "flush"),
        @JsonSubTypes.Type(value = LauncherEvent.Failure.class, name = "failure"),
        @JsonSubTypes.Type(value = LauncherEvent.Decision.class, name = "decision"),
        @JsonSubTypes.Type(value = LauncherEvent.Pause.class, name = "pause"),
        @JsonSubTypes.Type(value = LauncherEvent.Replacement.class, name = "replacement"),
        @JsonSubTypes.Type(value = LauncherEvent.Resume.class, name = "resume"),
        @JsonSubTypes.Type(value = LauncherEvent.Shrink.class, name = "shrink"),
        @JsonSubTypes.Type(value = LauncherEvent.Restart.class, name = "restart"),
        @JsonSubTypes.Type(value = LauncherEvent.Fallback.class, name = "fallback"),
        @JsonSubTypes.Type(value = LauncherEvent.RuntimeRestart.class, name = "runtime-restart"),
        @JsonSubTypes.Type(value = LauncherEvent.Migration.class, name = "migration"),
        @JsonSubTypes.Type(value = LauncherEvent.Exit.class, name = "exit")})
public sealed interface LauncherEvent {

    /**
     * mpirun started; {@code attempt} is 1 for the launch, then one more per whole-job restart.
     * {@code launcherCpuMs} is the CPU time mpirun-ft used so far: against the exit's, it tells
     * what mpirun-ft costs while the job runs.
     */
    record Launch(int attempt, List<String> argv, List<String> rankNodes, List<String> spares, double launcherCpuMs)
            implements LauncherEvent {
    }

    /**
     * @param epoch      the order's number for {@code ordered} and {@code abandoned}, the epoch's for {@code committed}
     * @param phase      {@code ordered} (the scheduler asked for it), {@code committed} (its manifest is on shared
     *                   storage) or {@code abandoned} (the order's epoch did not commit)
     * @param durationMs for a commit: what it cost the ranks (snapshot stall and staged write); 0 otherwise
     */
    record Checkpoint(long epoch, String phase, double durationMs) implements LauncherEvent {
    }

    /**
     * @param source {@code scheduler} (a pause command), {@code mpi} (mpirun reported a lost rank)
     *               or {@code runtime} (mpirun lost a node daemon)
     */
    /**
     * A node's turn to copy epoch {@code epoch} to shared storage, when the cluster staggers
     * flushes ({@code storage.flush-writers}): {@code phase} is {@code asked}, {@code granted}
     * (the scheduler's leader let it write) or {@code done} (every rank on it ended its copy).
     */
    record Flush(long epoch, String node, String phase) implements LauncherEvent {
    }

    record Failure(String failureId, List<Integer> ranks, List<String> nodes, String source) implements LauncherEvent {
    }

    /** What mpirun-ft does about a failure: {@code pause}, {@code restart} or {@code stop}. */
    record Decision(String failureId, String action, Map<Integer, String> placement, String reason) implements LauncherEvent {
    }

    /** A pause order delivered to the ranks' nodes; {@code spares} in lost-rank order. */
    record Pause(String failureId, long orderId, List<String> nodes, List<String> spares, double deliveryMs)
            implements LauncherEvent {
    }

    /**
     * Rank {@code rank} now runs on {@code toNode}; {@code start} says how its process started:
     * {@code warm} (a warm spare, launched with the job, took the rank) or {@code spawn}.
     */
    record Replacement(String failureId, int rank, String fromNode, String toNode, String start) implements LauncherEvent {
    }

    /**
     * The ranks run again after an in-place recovery.
     *
     * @param recoveryMs    the recovery as rank 0 measured it (shrink to restored state)
     * @param sincePauseMs  from the pause order's delivery to this line; -1 if no order preceded it
     * @param split         the recovery's steps as rank 0 measured them (shrink, spawn or the warm
     *                      spares' call, merge, the wait for the replacements with their setup and
     *                      state read, agreement and restore); null if it sent none
     */
    record Resume(String failureId, List<Integer> replacedRanks, long epoch, long iteration, double recoveryMs,
                  double sincePauseMs, org.mpirunft.common.rank.RankMessage.RecoverySplit split) implements LauncherEvent {
    }

    /**
     * The job went on with fewer ranks, in place: no spare for {@code lostRanks} (numbered as
     * before) and {@code policies.when-no-spare} is {@code shrink}. The survivors keep their
     * order: {@code ranks} of them, on {@code rankNodes}.
     */
    record Shrink(String failureId, List<Integer> lostRanks, int fromRanks, int ranks, List<String> rankNodes)
            implements LauncherEvent {
    }

    /**
     * The whole job was stopped and is launched again from its last committed epoch.
     *
     * @param replacedNodes failed node to the node that takes its place
     * @param stopMs        from the decision until mpirun was gone
     */
    record Restart(String failureId, int attempt, Map<String, String> replacedNodes, double stopMs, String reason)
            implements LauncherEvent {
    }

    /** A full restart's runtime half: the node daemons of {@code nodes} left and joined again. */
    record RuntimeRestart(List<String> nodes, double durationMs) implements LauncherEvent {
    }

    /**
     * Ranks moved off a node without a rollback ({@code mpirun-ft migrate}, or a drained node).
     *
     * @param seq       the job's migration number
     * @param phase     {@code ordered} (the scheduler placed the moving ranks), {@code done} (they
     *                  run on the spares and every rank went on) or {@code abandoned} (the ranks
     *                  stayed where they were, nothing rolled back)
     * @param source    {@code operator} or {@code drain}
     * @param fromNodes each moving rank with the node it leaves
     * @param toNodes   each moving rank with its spare
     * @param iteration for {@code done}: the iteration every rank went on with; -1 otherwise
     * @param split     for {@code done}: the move's steps as the ranks measured them (reaching the
     *                  safe point, calling the spares in, the state's transfer, the spares' rejoin);
     *                  null otherwise
     */
    record Migration(long seq, String phase, String source, String reason, Map<Integer, String> fromNodes,
                     Map<Integer, String> toNodes, long iteration, org.mpirunft.common.rank.RankMessage.MigrationSplit split)
            implements LauncherEvent {
    }

    /** A pause was impossible, so the job is restarted whole instead. */
    record Fallback(String failureId, String reason) implements LauncherEvent {
    }

    /**
     * @param status         the outcome's status
     * @param exitCode       mpirun-ft's exit code
     * @param mpirunExitCode mpirun's own, which alone cannot be trusted
     * @param launcherCpuMs  the CPU time mpirun-ft's own process used, start to exit (its cost next to plain mpirun)
     */
    record Exit(String status, int exitCode, int mpirunExitCode, String reason, double durationMs, int recoveries,
                int restarts, double launcherCpuMs) implements LauncherEvent {
    }
}
