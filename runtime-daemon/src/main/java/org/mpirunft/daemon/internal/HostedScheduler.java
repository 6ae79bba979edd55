package org.mpirunft.daemon.internal;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.mpirunft.daemon.DaemonException;
import org.mpirunft.daemon.protocol.ControlReply;
import org.mpirunft.membership.Membership;
import org.mpirunft.scheduler.JobRecord;
import org.mpirunft.scheduler.SchedulerCommand;
import org.mpirunft.scheduler.SchedulerService;
import org.mpirunft.scheduler.config.SchedulerConfigReader;

/**
 * The scheduler this daemon hosts, behind the daemon's {@link SchedulerPort}. A client's request
 * returns once this daemon's replica of the job table shows its effect, or fails after
 * {@link #REQUEST_TIMEOUT} naming what did not happen.
 */
public final class HostedScheduler implements SchedulerPort {
    static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(20);

    private final SchedulerService service;

    private HostedScheduler(SchedulerService service) {
        this.service = service;
    }

    /** A scheduler from the cluster-wide config file, on the daemon's membership. */
    public static HostedScheduler create(Path configFile, Membership membership) {
        return new HostedScheduler(SchedulerService.create(SchedulerConfigReader.read(configFile), membership));
    }

    @Override
    public void start() {
        service.start();
    }

    @Override
    public void registerJob(String job, String launcherNode, List<String> rankNodes) {
        await(service.registerJob(job, launcherNode, rankNodes), "registering job " + job);
    }

    @Override
    public void epochCommitted(String job, long epoch, Duration cost) {
        await(service.epochCommitted(job, epoch, cost), "recording epoch " + epoch + " of " + job);
    }

    @Override
    public void recoveryCompleted(String job, String failureId, List<String> rankNodes) {
        await(service.recoveryCompleted(job, failureId), "recording the recovery " + failureId + " of " + job);
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
    public String leader() {
        return service.leader();
    }

    @Override
    public List<ControlReply.JobStatus> jobs() {
        return service.table().jobs().stream().map(HostedScheduler::status).toList();
    }

    @Override
    public void onCommand(Consumer<ControlReply.JobCommand> listener) {
        service.addCommandListener(command -> listener.accept(toReply(command)));
    }

    @Override
    public void close() {
        service.close();
    }

    private static ControlReply.JobStatus status(JobRecord job) {
        return new ControlReply.JobStatus(job.job(), job.launcher(), job.rankNodes(), job.committedEpoch(), job.orderedEpoch(),
                job.recovery().map(JobRecord.Recovery::failureId).orElse(""), job.stopReason().orElse(""));
    }

    static ControlReply.JobCommand toReply(SchedulerCommand command) {
        return switch (command) {
            case SchedulerCommand.Checkpoint c -> new ControlReply.JobCommand(ControlReply.VERSION, c.job(), "checkpoint", c.key(),
                    c.epoch(), "", Map.of(), "");
            case SchedulerCommand.Pause p -> new ControlReply.JobCommand(ControlReply.VERSION, p.job(), "pause", p.key(), 0,
                    p.failureId(), p.placement(), "");
            case SchedulerCommand.Stop s -> new ControlReply.JobCommand(ControlReply.VERSION, s.job(), "stop", s.key(), 0, "",
                    Map.of(), s.reason());
        };
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
