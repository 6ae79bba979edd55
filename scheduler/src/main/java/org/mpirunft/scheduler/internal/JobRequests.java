package org.mpirunft.scheduler.internal;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Predicate;
import org.mpirunft.common.CheckpointSchedule;
import org.mpirunft.common.JobOwner;
import org.mpirunft.common.rank.RankMessage;
import org.mpirunft.scheduler.FailureReport;
import org.mpirunft.scheduler.JobRecord;
import org.mpirunft.scheduler.JobState;
import org.mpirunft.scheduler.JobTable;
import org.mpirunft.scheduler.RecoveryMode;
import org.mpirunft.scheduler.SchedulerException;
import org.mpirunft.scheduler.SchedulerService;
import org.mpirunft.scheduler.SchedulerUpdate;
import org.mpirunft.scheduler.UnknownJobException;
import org.mpirunft.scheduler.config.SchedulerConfig;

/**
 * The requests of {@link SchedulerService}, one method each: it checks its arguments, makes the
 * update or message that asks the leader for the change, and says when this daemon's table shows
 * it done, which completes the caller's future. How the request travels, and is repeated until
 * then, is {@link PendingRequests}'s; the leader's answer is {@code SchedulerCore}'s.
 */
final class JobRequests {
    /** Sends {@code message} to the leader, again each tick, until {@code check} sees its effect in this daemon's table. */
    @FunctionalInterface
    interface Sender {
        void request(GroupMessage message, PendingRequests.Check check, CompletableFuture<?> future);
    }

    private final SchedulerConfig config;
    /** The job in this daemon's table; throws if the service is not started or the job is unknown. */
    private final Function<String, JobRecord> knownJob;
    /** {@code SchedulerCore.migrationRefusal}, on this daemon's table. */
    private final BiFunction<String, String, Optional<String>> migrationRefusal;
    private final Sender sender;

    JobRequests(SchedulerConfig config, Function<String, JobRecord> knownJob, BiFunction<String, String, Optional<String>> migrationRefusal,
                Sender sender) {
        this.config = config;
        this.knownJob = knownJob;
        this.migrationRefusal = migrationRefusal;
        this.sender = sender;
    }

    CompletableFuture<Void> registerJob(String job, String launcherNode, List<String> rankNodes, List<String> spares,
                                        RecoveryMode mode, Optional<CheckpointSchedule> schedule, int maxRestarts, JobOwner owner) {
        requireName("job", job);
        Objects.requireNonNull(owner, "owner");
        requireName("launcherNode", launcherNode);
        if (Objects.requireNonNull(rankNodes, "rankNodes").isEmpty()) {
            throw new IllegalArgumentException("job '" + job + "' needs at least one rank node");
        }
        rankNodes.forEach(n -> requireName("rank node", n));
        Objects.requireNonNull(mode, "mode");
        if (maxRestarts < 0) {
            throw new IllegalArgumentException("maxRestarts must be >= 0, got " + maxRestarts);
        }
        // The cluster's interval stands in for a job that names none: one knob per job, set at registration.
        CheckpointSchedule resolved = schedule.orElseGet(() -> config.checkpointInterval().map(CheckpointSchedule::every)
                .orElse(CheckpointSchedule.AUTO));
        return proposeUntil(new SchedulerUpdate.JobRegistered(SchedulerUpdate.VERSION, job, launcherNode, List.copyOf(rankNodes),
                List.copyOf(spares), mode, resolved, maxRestarts, 0, owner), table -> table.job(job).isPresent());
    }

    CompletableFuture<Void> epochCommitted(String job, long epoch, long order, Duration checkpointCost) {
        Objects.requireNonNull(checkpointCost, "checkpointCost");
        requireJob(job);
        return proposeUntil(new SchedulerUpdate.EpochCommitted(SchedulerUpdate.VERSION, job, epoch, order,
                Math.max(0, checkpointCost.toNanos())), table -> table.job(job).map(j -> j.committedEpoch() >= epoch).orElse(true));
    }

    CompletableFuture<Void> checkpointAbandoned(String job, long order, long epoch, String reason) {
        Objects.requireNonNull(reason, "reason");
        requireJob(job);
        return proposeUntil(new SchedulerUpdate.CheckpointAbandoned(SchedulerUpdate.VERSION, job, order, epoch, reason),
                table -> table.job(job).map(j -> j.servedOrder() >= order).orElse(true));
    }

    CompletableFuture<Void> flushRequested(String job, long epoch, String node) {
        requireName("node", node);
        requireJob(job);
        // Done once the table knows the request; or a newer epoch, or a recovery, made it moot.
        return proposeUntil(new SchedulerUpdate.FlushRequested(SchedulerUpdate.VERSION, job, epoch, node),
                table -> table.job(job).map(j -> j.flush().epoch() > epoch || j.flush().knows(epoch, node) || !j.state().isLive())
                        .orElse(true));
    }

    CompletableFuture<Void> flushDone(String job, long epoch, String node) {
        requireName("node", node);
        requireJob(job);
        return proposeUntil(new SchedulerUpdate.FlushDone(SchedulerUpdate.VERSION, job, epoch, node),
                table -> table.job(job).map(j -> j.flush().epoch() != epoch || j.flush().done().contains(node)).orElse(true));
    }

    CompletableFuture<Void> failureReported(String job, FailureReport report) {
        Objects.requireNonNull(report, "report");
        requireJob(job);
        return requestUntil(new GroupMessage.FailureRequest(GroupMessage.VERSION, job, report), table -> handled(table, job, report));
    }

    /**
     * Whether the table shows {@code report} dealt with: the job is gone or stopped, or every
     * rank it names is being repaired or runs elsewhere now, and no spare it names is still
     * promised to the job.
     */
    static boolean handled(JobTable table, String job, FailureReport report) {
        Optional<JobRecord> record = table.job(job);
        if (record.isEmpty() || record.get().stopped()) {
            return true;
        }
        JobRecord j = record.get();
        if (report.isStaleFor(j)) {
            return true;
        }
        Set<Integer> repairing = j.recovery().map(r -> r.lostRanks().keySet()).orElse(Set.of());
        Set<String> promised = new HashSet<>(j.recovery().map(r -> r.placement().values()).orElse(List.of()));
        for (Map.Entry<Integer, String> lost : report.lostRanks().entrySet()) {
            int rank = lost.getKey();
            boolean stillThere = rank < j.rankNodes().size() && j.rankNodes().get(rank).equals(lost.getValue());
            if (stillThere && !repairing.contains(rank) || promised.contains(lost.getValue())) {
                return false;
            }
        }
        for (String node : report.lostNodes()) {
            for (int rank = 0; rank < j.rankNodes().size(); rank++) {
                if (j.rankNodes().get(rank).equals(node) && !repairing.contains(rank)) {
                    return false;
                }
            }
            if (promised.contains(node)) {
                return false;
            }
        }
        return true;
    }

    CompletableFuture<Void> recoveryCompleted(String job, String failureId, List<String> rankNodes, long epoch, long iteration,
                                              RankMessage.RecoverySplit split) {
        Objects.requireNonNull(failureId, "failureId");
        requireJob(job);
        return proposeUntil(new SchedulerUpdate.RecoveryCompleted(SchedulerUpdate.VERSION, job, failureId, List.copyOf(rankNodes),
                epoch, iteration, split), table -> !table.job(job).map(j -> j.state() == JobState.PAUSING).orElse(false));
    }

    CompletableFuture<Void> restartNeeded(String job, String source, String reason, FailureReport.Reporter reporter) {
        int attempt = requireJob(job).attempt();
        return requestUntil(new GroupMessage.RestartRequest(GroupMessage.VERSION, job, source, reason, reporter), table -> table.job(job)
                .map(j -> j.stopped() || j.state() == JobState.RESTARTING || j.attempt() > attempt
                        || FailureReport.Reporter.isStale(reporter, j)).orElse(true));
    }

    CompletableFuture<Void> jobRelaunched(String job, int attempt, List<String> rankNodes) {
        requireJob(job);
        return proposeUntil(new SchedulerUpdate.JobRelaunched(SchedulerUpdate.VERSION, job, attempt, List.copyOf(rankNodes)),
                table -> table.job(job).map(j -> j.state() != JobState.RESTARTING).orElse(true));
    }

    CompletableFuture<Void> programFinished(String job) {
        requireJob(job);
        return proposeUntil(new SchedulerUpdate.ProgramFinished(SchedulerUpdate.VERSION, job),
                table -> table.job(job).map(JobRecord::programFinished).orElse(true));
    }

    CompletableFuture<Void> stopJob(String job, String cause, String reason) {
        requireJob(job);
        return proposeUntil(new SchedulerUpdate.JobStopped(SchedulerUpdate.VERSION, job, cause, reason),
                table -> table.job(job).map(JobRecord::stopped).orElse(true));
    }

    CompletableFuture<Void> jobFinished(String job) {
        requireName("job", job);
        return proposeUntil(new SchedulerUpdate.JobFinished(SchedulerUpdate.VERSION, job), table -> table.job(job).isEmpty());
    }

    CompletableFuture<Long> checkpointNow(String job) {
        CompletableFuture<Long> future = new CompletableFuture<>();
        JobRecord known = requireJob(job);
        // An outstanding order is a checkpoint still to come: it answers this request.
        long after = known.orderOutstanding() ? known.servedOrder() : known.orderedEpoch();
        sender.request(new GroupMessage.CheckpointRequest(GroupMessage.VERSION, job, after), table -> {
            Optional<JobRecord> record = table.job(job);
            if (record.isEmpty() || record.get().stopped()) {
                return Optional.of(() -> future.completeExceptionally(gone(job, record)));
            }
            long ordered = record.get().orderedEpoch();
            return ordered > after ? Optional.of(() -> future.complete(ordered)) : Optional.empty();
        }, future);
        return future;
    }

    CompletableFuture<Long> migrate(String job, String node, String reason) {
        requireName("node", node);
        JobRecord known = requireJob(job);
        Optional<String> refusal = migrationRefusal.apply(job, node);
        if (refusal.isPresent()) {
            return CompletableFuture.failedFuture(new SchedulerException(refusal.get()));
        }
        long after = known.migrations();
        CompletableFuture<Long> future = new CompletableFuture<>();
        sender.request(new GroupMessage.MigrationRequest(GroupMessage.VERSION, job, node, reason == null ? "" : reason), table -> {
            Optional<JobRecord> record = table.job(job);
            if (record.isEmpty() || record.get().stopped()) {
                return Optional.of(() -> future.completeExceptionally(gone(job, record)));
            }
            // Done once a migration after the request moves the node's ranks, or none is left there.
            Optional<JobRecord.Migration> ordered = record.get().migration().filter(m -> m.seq() > after && m.moving().containsValue(node));
            if (ordered.isPresent()) {
                return Optional.of(() -> future.complete(ordered.get().seq()));
            }
            if (!record.get().rankNodes().contains(node)) {
                long last = record.get().migrations();
                return Optional.of(() -> future.complete(last));
            }
            return Optional.empty();
        }, future);
        return future;
    }

    CompletableFuture<Void> migrationCompleted(String job, long seq, List<String> rankNodes, long iteration,
                                               RankMessage.MigrationSplit split) {
        requireJob(job);
        return proposeUntil(new SchedulerUpdate.MigrationCompleted(SchedulerUpdate.VERSION, job, seq, List.copyOf(rankNodes), iteration,
                split), table -> !table.job(job).map(j -> j.isMigrating(seq)).orElse(false));
    }

    CompletableFuture<Void> migrationAbandoned(String job, long seq, String reason) {
        requireJob(job);
        return proposeUntil(new SchedulerUpdate.MigrationAbandoned(SchedulerUpdate.VERSION, job, seq, reason),
                table -> !table.job(job).map(j -> j.isMigrating(seq)).orElse(false));
    }

    /** Why a request about {@code job} cannot be answered: the job left the table, or was stopped. */
    private static RuntimeException gone(String job, Optional<JobRecord> record) {
        return record.isEmpty() ? new UnknownJobException(job) : new SchedulerException("job '" + job + "' was stopped: "
                + record.get().stop().map(JobRecord.Stop::reason).orElse(""));
    }

    /** Asks the leader for {@code update} until this daemon's table shows {@code done}; the future completes then. */
    private CompletableFuture<Void> proposeUntil(SchedulerUpdate update, Predicate<JobTable> done) {
        return requestUntil(new GroupMessage.Request(GroupMessage.VERSION, update), done);
    }

    /** Sends {@code message} to the leader, again each tick, until this daemon's table shows {@code done}. */
    private CompletableFuture<Void> requestUntil(GroupMessage message, Predicate<JobTable> done) {
        CompletableFuture<Void> future = new CompletableFuture<>();
        sender.request(message, table -> done.test(table) ? Optional.of(() -> future.complete(null)) : Optional.empty(), future);
        return future;
    }

    private JobRecord requireJob(String job) {
        requireName("job", job);
        return knownJob.apply(job);
    }

    private static void requireName(String what, String value) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(what + " must be a non-empty name, got '" + value + "'");
        }
    }
}
