package org.mpirunft.daemon.internal;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.mpirunft.common.JobOwner;
import org.mpirunft.daemon.DaemonException;
import org.mpirunft.daemon.protocol.ControlReply;
import org.mpirunft.membership.Membership;
import org.mpirunft.common.CheckpointSchedule;
import org.mpirunft.common.rank.RankMessage;
import org.mpirunft.scheduler.FailureReport;
import org.mpirunft.scheduler.JobRecord;
import org.mpirunft.scheduler.JobTransition;
import org.mpirunft.scheduler.RecoveryMode;
import org.mpirunft.scheduler.SchedulerService;
import org.mpirunft.scheduler.config.SchedulerConfig;
import org.mpirunft.scheduler.config.SchedulerConfigReader;

/**
 * The scheduler this daemon hosts, behind the daemon's {@link SchedulerPort}. A client's request
 * returns once this daemon's replica of the job table shows its effect, or fails after
 * {@link #REQUEST_TIMEOUT} naming what did not happen; an epoch's commit alone is not awaited
 * (see {@link #epochCommitted}).
 */
public final class HostedScheduler implements SchedulerPort {
    private static final java.util.logging.Logger LOG = java.util.logging.Logger.getLogger(HostedScheduler.class.getName());
    static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(20);

    private final SchedulerService service;
    private final Path sharedStorage;

    private HostedScheduler(SchedulerService service, Path sharedStorage) {
        this.service = service;
        this.sharedStorage = sharedStorage;
    }

    /** A scheduler from the cluster-wide config file, on the daemon's membership. */
    public static HostedScheduler create(Path configFile, Membership membership) {
        SchedulerConfig config = SchedulerConfigReader.read(configFile);
        return new HostedScheduler(SchedulerService.create(config, membership), config.sharedStorage());
    }

    @Override
    public Path sharedStorage() {
        return sharedStorage;
    }

    @Override
    public void start() {
        service.start();
    }

    @Override
    public void registerJob(String job, String launcherNode, List<String> rankNodes, List<String> spares, String mode,
                            String schedule, int maxRestarts, JobOwner owner) {
        RecoveryMode recoveryMode = RecoveryMode.ofWord(mode);
        Optional<CheckpointSchedule> checkpoints = schedule == null || schedule.isBlank() ? Optional.empty()
                : Optional.of(CheckpointSchedule.parse("schedule", schedule));
        await(service.registerJob(job, launcherNode, rankNodes, spares, recoveryMode, checkpoints, maxRestarts, owner), "registering job " + job);
    }

    /**
     * Not awaited, unlike the other requests: a rank reports an epoch every few iterations on the
     * channel that also brings its failure and end reports, and a reader that waited for each
     * commit to come back (one round trip to the leader, more when a request waits for the next
     * tick) fell behind the program, until the rank's end came after mpirun's (seen in
     * SplitBrainIT: a relaunch of a job that was done). The scheduler repeats the request until
     * the table shows the epoch or a newer one, for at most {@link #REQUEST_TIMEOUT}; then it is
     * logged and dropped (the next epoch's report supersedes it).
     */
    @Override
    public void epochCommitted(String job, long epoch, long order, Duration cost) {
        service.epochCommitted(job, epoch, order, cost).orTimeout(REQUEST_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
                .whenComplete((ok, failure) -> {
                    if (failure != null) {
                        LOG.warning(() -> "recording epoch " + epoch + " of " + job + " did not happen within " + REQUEST_TIMEOUT
                                + ": " + failure);
                    }
                });
    }

    @Override
    public void checkpointAbandoned(String job, long order, long epoch, String reason) {
        await(service.checkpointAbandoned(job, order, epoch, reason), "recording that order " + order + " of " + job + " did not commit");
    }

    @Override
    public void failureReported(String job, String source, Map<Integer, String> lostRanks, List<String> lostNodes, String detail,
                                FailureReport.Reporter reporter) {
        await(service.failureReported(job, new FailureReport(source, lostRanks, lostNodes, detail, reporter)),
                "reporting the failure of " + lostRanks + lostNodes + " in " + job);
    }

    @Override
    public void recoveryCompleted(String job, String failureId, List<String> rankNodes, long epoch, long iteration,
                                  RankMessage.RecoverySplit split) {
        await(service.recoveryCompleted(job, failureId, rankNodes, epoch, iteration, split),
                "recording the recovery " + failureId + " of " + job);
    }

    @Override
    public void restartNeeded(String job, String source, String reason, FailureReport.Reporter reporter) {
        await(service.restartNeeded(job, source, reason, reporter), "asking for a decision about " + job);
    }

    @Override
    public void stopJob(String job, String cause, String reason) {
        await(service.stopJob(job, cause, reason), "stopping " + job);
    }

    @Override
    public void jobRelaunched(String job, int attempt, List<String> rankNodes) {
        await(service.jobRelaunched(job, attempt, rankNodes), "recording the relaunch of " + job);
    }

    @Override
    public void flushRequested(String job, long epoch, String node) {
        await(service.flushRequested(job, epoch, node), "asking for " + node + "'s turn to flush epoch " + epoch + " of " + job);
    }

    @Override
    public void flushDone(String job, long epoch, String node) {
        await(service.flushDone(job, epoch, node), "ending " + node + "'s turn to flush epoch " + epoch + " of " + job);
    }

    @Override
    public int flushWriters() {
        return service.flushWriters();
    }

    @Override
    public void programFinished(String job) {
        await(service.programFinished(job), "recording the end of " + job + "'s program");
    }

    @Override
    public void jobFinished(String job) {
        await(service.jobFinished(job), "recording the end of " + job);
    }

    @Override
    public void checkpointNow(String job) {
        await(service.checkpointNow(job), "ordering a checkpoint of " + job);
    }

    @Override
    public long migrate(String job, String node, String reason) {
        return await(service.migrate(job, node, reason), "moving the ranks of " + job + " off " + node);
    }

    @Override
    public void migrationCompleted(String job, long seq, List<String> rankNodes, long iteration, RankMessage.MigrationSplit split) {
        await(service.migrationCompleted(job, seq, rankNodes, iteration, split), "recording migration " + seq + " of " + job);
    }

    @Override
    public void migrationAbandoned(String job, long seq, String reason) {
        await(service.migrationAbandoned(job, seq, reason), "recording that migration " + seq + " of " + job + " was given up");
    }

    @Override
    public String leader() {
        return service.leader();
    }

    @Override
    public long logTerm() {
        return service.logTerm();
    }

    @Override
    public List<String> logVoters() {
        return service.logVoters();
    }

    @Override
    public List<ControlReply.JobStatus> jobs() {
        return service.table().jobs().stream().map(this::status).toList();
    }

    @Override
    public Optional<JobRecord> job(String job) {
        return service.table().job(job);
    }

    @Override
    public ControlReply.JobStatus status(JobRecord job) {
        Optional<JobRecord.Recovery> recovery = job.recovery();
        return new ControlReply.JobStatus(job.job(), job.launcher(), job.state().name(), job.mode().word(), job.schedule().toString(),
                job.attempt(), job.rankNodes(), job.spares(), job.committedEpoch(), job.orderedEpoch(),
                recovery.map(JobRecord.Recovery::failureId).orElse(""), recovery.map(JobRecord.Recovery::seq).orElse(0L),
                recovery.map(JobRecord.Recovery::lostRanks).orElse(Map.of()), recovery.map(JobRecord.Recovery::placement).orElse(Map.of()),
                job.stop().map(JobRecord.Stop::cause).orElse(""), job.stop().map(JobRecord.Stop::reason).orElse(""),
                job.programFinished(), service.checkpointInterval(job.job()).map(Duration::toMillis).orElse(-1L), job.owner().name(), true);
    }

    @Override
    public void onTransition(Consumer<JobTransition> listener) {
        service.addTransitionListener(listener);
    }

    @Override
    public void onNodeLost(Consumer<org.mpirunft.membership.Member> listener) {
        service.addNodeLostListener(listener);
    }

    @Override
    public void close() {
        service.close();
    }

    private static <T> T await(CompletableFuture<T> future, String what) {
        try {
            return future.get(REQUEST_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new DaemonException(what + " took longer than " + REQUEST_TIMEOUT + " (no scheduler leader answered)");
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException runtime && cause.getMessage() != null) {
                throw new IllegalArgumentException(what + ": " + runtime.getMessage(), runtime);
            }
            throw new DaemonException(what + " failed: " + cause, cause);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new DaemonException(what + " was interrupted", e);
        }
    }
}
