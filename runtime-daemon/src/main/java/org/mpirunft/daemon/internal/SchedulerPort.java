package org.mpirunft.daemon.internal;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import org.mpirunft.common.JobOwner;
import org.mpirunft.common.rank.RankMessage;
import org.mpirunft.scheduler.FailureReport;
import org.mpirunft.daemon.protocol.ControlReply;
import org.mpirunft.scheduler.JobRecord;
import org.mpirunft.scheduler.JobTransition;

/**
 * What the daemon needs of the scheduler it hosts; the seam between the two modules. Requests
 * return once this daemon's replica of the job table shows their effect.
 */
public interface SchedulerPort extends AutoCloseable {
    void start();

    void registerJob(String job, String launcherNode, List<String> rankNodes, List<String> spares, String mode, String schedule,
                     int maxRestarts, JobOwner owner);

    /**
     * {@code order}: the checkpoint order the epoch served, 0 if none. Returns once the request is
     * on its way, not once the table shows it (a bad job name still fails at once).
     */
    void epochCommitted(String job, long epoch, long order, Duration cost);

    /** The epoch taken for checkpoint order {@code order} did not commit. */
    void checkpointAbandoned(String job, long order, long epoch, String reason);

    /** {@code reporter}: the rank that saw it, null for other sources. */
    void failureReported(String job, String source, Map<Integer, String> lostRanks, List<String> lostNodes, String detail,
                         FailureReport.Reporter reporter);

    void recoveryCompleted(String job, String failureId, List<String> rankNodes, long epoch, long iteration,
                           RankMessage.RecoverySplit split);

    /** {@code reporter}: the rank that asks, null for mpirun-ft. */
    void restartNeeded(String job, String source, String reason, FailureReport.Reporter reporter);

    void stopJob(String job, String cause, String reason);

    void jobRelaunched(String job, int attempt, List<String> rankNodes);

    void programFinished(String job);

    /** This node's ranks wait to copy epoch {@code epoch} to shared storage (a staggered flush). */
    void flushRequested(String job, long epoch, String node);

    /** Every rank of the job on {@code node} ended its copy of epoch {@code epoch}. */
    void flushDone(String job, long epoch, String node);

    /** How many nodes of a job may copy to shared storage at once; 0: no limit, ranks do not ask. */
    int flushWriters();

    void jobFinished(String job);

    void checkpointNow(String job);

    /** Moves the job's ranks off {@code node} to spares; returns the migration's number once ordered. */
    long migrate(String job, String node, String reason);

    /** The ranks moved: {@code rankNodes} is where every rank runs now. */
    void migrationCompleted(String job, long seq, List<String> rankNodes, long iteration, RankMessage.MigrationSplit split);

    /** The ranks could not move and went on where they were. */
    void migrationAbandoned(String job, long seq, String reason);

    /** The cluster's shared storage (the scheduler config's {@code storage.shared}). */
    java.nio.file.Path sharedStorage();

    /** The acting leader's node name, empty when unknown. */
    String leader();

    /** This daemon's term in the group's replicated log; 0 when it keeps none. */
    default long logTerm() {
        return 0;
    }

    /** The replicated log's voters as this daemon knows them; empty when it keeps none. */
    default List<String> logVoters() {
        return List.of();
    }

    List<ControlReply.JobStatus> jobs();

    /** This daemon's replica of one job. */
    Optional<JobRecord> job(String job);

    /** The job as the control protocol shows it. */
    ControlReply.JobStatus status(JobRecord job);

    /** Every transition this daemon applies, of every job, on the membership thread. */
    void onTransition(Consumer<JobTransition> listener);

    /**
     * {@code listener} hears of each node that failed out of the view once the scheduler counts
     * it lost (a crashed daemon's node only if no daemon of it came back in time); it must not block.
     */
    default void onNodeLost(Consumer<org.mpirunft.membership.Member> listener) {
    }

    @Override
    void close();
}
