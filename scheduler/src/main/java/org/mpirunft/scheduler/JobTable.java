package org.mpirunft.scheduler;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * The jobs the cluster runs: each rank's node, the recovery line, the recovery in progress.
 * Changed only by {@link #apply}, which every daemon calls with the same updates in the same
 * order; an update that does not fit (unknown job, a recovery already under way, a repeat) is
 * ignored the same way everywhere. Not thread-safe: the scheduler owns it.
 */
public final class JobTable {
    private final Map<String, JobRecord> jobs = new TreeMap<>();

    public JobTable() {
    }

    public JobTable(Collection<JobRecord> records) {
        for (JobRecord record : records) {
            jobs.put(record.job(), record);
        }
    }

    public Collection<JobRecord> jobs() {
        return List.copyOf(jobs.values());
    }

    public Optional<JobRecord> job(String job) {
        return Optional.ofNullable(jobs.get(job));
    }

    /** Nodes that hold a rank of a live job or are promised to a recovery: never placed on again. */
    public Set<String> bookedNodes() {
        Set<String> booked = new HashSet<>();
        for (JobRecord job : jobs.values()) {
            if (job.stopped()) {
                continue;
            }
            booked.addAll(job.rankNodes());
            job.recovery().ifPresent(recovery -> booked.addAll(recovery.placement().values()));
        }
        return booked;
    }

    /** Replaces every job with {@code records}: a replica installing a newer table. */
    void replaceAll(Collection<JobRecord> records) {
        jobs.clear();
        for (JobRecord record : records) {
            jobs.put(record.job(), record);
        }
    }

    /** Applies {@code update}; true if the table changed. */
    public boolean apply(SchedulerUpdate update) {
        JobRecord job = jobs.get(update.job());
        JobRecord changed = switch (update) {
            case SchedulerUpdate.JobRegistered u -> job != null ? null
                    : new JobRecord(u.job(), u.launcher(), u.rankNodes(), 0, 0, u.atMillis(), Optional.empty(), Optional.empty());
            case SchedulerUpdate.CheckpointOrdered u -> job == null || job.stopped() || u.epoch() <= job.orderedEpoch() ? null
                    : job.withOrder(u.epoch(), u.atMillis());
            case SchedulerUpdate.EpochCommitted u -> job == null || u.epoch() <= job.committedEpoch() ? null
                    : job.withCommitted(u.epoch());
            case SchedulerUpdate.RecoveryStarted u -> job == null || job.stopped() || job.recovery().isPresent() ? null
                    : job.withRecovery(Optional.of(new JobRecord.Recovery(u.failureId(), u.lostRanks(), u.placement())), job.rankNodes());
            case SchedulerUpdate.RecoveryCompleted u -> job == null || job.recovery().isEmpty()
                    || !job.recovery().get().failureId().equals(u.failureId()) ? null : completed(job);
            case SchedulerUpdate.JobStopped u -> job == null || job.stopped() ? null : job.stoppedBecause(u.reason());
            case SchedulerUpdate.JobFinished u -> null;
        };
        if (update instanceof SchedulerUpdate.JobFinished) {
            return jobs.remove(update.job()) != null;
        }
        if (changed == null) {
            return false;
        }
        jobs.put(changed.job(), changed);
        return true;
    }

    private static JobRecord completed(JobRecord job) {
        List<String> nodes = new ArrayList<>(job.rankNodes());
        job.recovery().get().placement().forEach(nodes::set);
        return job.withRecovery(Optional.empty(), nodes);
    }
}
