package org.mpirunft.scheduler;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongSupplier;
import org.mpirunft.common.CheckpointSchedule;
import org.mpirunft.scheduler.config.SchedulerConfig;
import org.mpirunft.scheduler.policy.AutoInterval;

/**
 * When the leader orders a job's checkpoints: at the job's fixed interval, or at Daly's for the
 * cost the ranks measured and the MTBF ({@code auto}), counted from its last order or its
 * registration, so a new leader keeps the rhythm; or at once when asked. A job with
 * {@code every N} carries its standing order itself. One order at a time: it stays outstanding
 * until an epoch serves it. Every replica feeds the {@code auto} intervals from the entries it
 * applies, so whoever leads next has them.
 *
 * <p>Not thread-safe: the {@link SchedulerCore}'s lock guards it.
 */
final class CheckpointOrders {
    private final SchedulerConfig config;
    private final JobTable table;
    private final LongSupplier wallMillis;
    private final Proposals proposals;
    private final long startedAtMillis;
    /** Each job's {@code auto} interval, fed by the costs every replica applies. */
    private final Map<String, AutoInterval> auto = new HashMap<>();
    /** When each job registered, by the leader's clock: where its observed MTBF counts from. */
    private final Map<String, Long> jobStartedAtMillis = new HashMap<>();

    /**
     * {@code wallMillis} is this daemon's wall clock: it stamps orders, and a job's observed MTBF
     * counts from its registration, or from now for a job this replica never saw register.
     */
    CheckpointOrders(SchedulerConfig config, JobTable table, LongSupplier wallMillis, Proposals proposals) {
        this.startedAtMillis = wallMillis.getAsLong();
        this.config = config;
        this.table = table;
        this.wallMillis = wallMillis;
        this.proposals = proposals;
    }

    /** The job registered at {@code atMillis}, by the leader's clock. */
    void registered(String job, long atMillis) {
        jobStartedAtMillis.put(job, atMillis);
    }

    /** An epoch of the job committed, at {@code costNanos} (stall plus write; 0 if not measured). */
    void committed(String job, long costNanos) {
        if (costNanos > 0) {
            autoOf(job).checkpointMeasured(Duration.ofNanos(costNanos));
        }
    }

    /** The job failed (a recovery or restart was applied). */
    void failureObserved(String job) {
        // The observed MTBF counts the job's own running time, from its registration (the leader's
        // clock); a replica that never saw the registration counts from its own start. Counting
        // from the daemon's start made a job's MTBF depend on how long the cluster had been up.
        long since = jobStartedAtMillis.getOrDefault(job, startedAtMillis);
        autoOf(job).failureObserved(Duration.ofMillis(Math.max(0, wallMillis.getAsLong() - since)));
    }

    /** The job left the table. */
    void finished(String job) {
        auto.remove(job);
        jobStartedAtMillis.remove(job);
    }

    /** The interval the job's checkpoints are ordered at: fixed or Daly's; empty for {@code every N}. */
    Optional<Duration> interval(JobRecord job) {
        CheckpointSchedule schedule = job.schedule();
        if (schedule.everyIterations() > 0) {
            return Optional.empty();
        }
        return Optional.of(schedule.interval().orElseGet(() -> autoOf(job.job()).interval()));
    }

    /** See {@link SchedulerCore#checkpointNow}. */
    void orderNow(String job, long afterEpoch) {
        table.job(job).filter(j -> j.state() == JobState.RUNNING && j.orderedEpoch() <= afterEpoch && !j.orderOutstanding())
                .ifPresent(j -> proposals.propose(new SchedulerUpdate.CheckpointOrdered(SchedulerUpdate.VERSION, job, j.orderedEpoch() + 1,
                        wallMillis.getAsLong())));
    }

    /** Orders the running job's next checkpoint if its interval has passed at {@code now} (wall clock). */
    void orderIfDue(JobRecord job, long now) {
        if (job.orderOutstanding()) {
            // Ranks serve every order they have seen with one epoch, so a second order before
            // the first committed would not be a second checkpoint. It waits (the ranks may
            // still be starting, or a safe point may be far off).
            return;
        }
        // Counted from the last order, or the registration: a new leader keeps the rhythm.
        interval(job).filter(interval -> now - job.lastOrderAtMillis() >= interval.toMillis())
                .ifPresent(interval -> proposals.propose(new SchedulerUpdate.CheckpointOrdered(SchedulerUpdate.VERSION, job.job(),
                        job.orderedEpoch() + 1, now)));
    }

    private AutoInterval autoOf(String job) {
        return auto.computeIfAbsent(job, j -> new AutoInterval(config.mtbf(), config.checkpointCost()));
    }
}
