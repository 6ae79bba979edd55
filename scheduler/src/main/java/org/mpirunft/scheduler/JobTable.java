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
 * The jobs the cluster runs, each with its state machine's state ({@link JobState}). Changed
 * only by {@link #apply}, which every daemon calls with the same updates in the same order; an
 * update that does not fit the job's state (a recovery started twice, a completion of another
 * recovery, a repeat) is ignored the same way everywhere. Not thread-safe: the scheduler owns it.
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

    /** Nodes that hold a rank of a live job or are promised to a recovery, restart or migration: never placed on again. */
    public Set<String> bookedNodes() {
        Set<String> booked = new HashSet<>();
        for (JobRecord job : jobs.values()) {
            if (job.stopped()) {
                continue;
            }
            booked.addAll(job.rankNodes());
            job.recovery().ifPresent(recovery -> booked.addAll(recovery.placement().values()));
            job.migration().ifPresent(migration -> booked.addAll(migration.placement().values()));
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

    /**
     * Applies {@code update}; returns the job as it is after it, or empty if the update did not
     * fit and nothing changed. For {@link SchedulerUpdate.JobFinished} it returns the record the
     * job had when it left the table.
     */
    public Optional<JobRecord> apply(SchedulerUpdate update) {
        JobRecord job = jobs.get(update.job());
        if (update instanceof SchedulerUpdate.JobFinished) {
            return Optional.ofNullable(jobs.remove(update.job()));
        }
        JobRecord changed = job == null ? registered(update) : switch (update) {
            case SchedulerUpdate.JobRegistered u -> null;
            case SchedulerUpdate.CheckpointOrdered u -> job.state() != JobState.RUNNING || u.epoch() <= job.orderedEpoch() ? null
                    : with(job).orderedEpoch(u.epoch()).lastOrderAtMillis(u.atMillis()).build();
            case SchedulerUpdate.EpochCommitted u -> u.epoch() <= job.committedEpoch() ? null
                    : with(job).committedEpoch(u.epoch()).servedOrder(Math.max(job.servedOrder(), u.order())).build();
            case SchedulerUpdate.CheckpointAbandoned u -> u.order() <= job.servedOrder() ? null
                    : with(job).servedOrder(u.order()).build();
            // A failure during a migration drops the move: the pause rolls back whatever it did.
            case SchedulerUpdate.RecoveryStarted u -> job.state() != JobState.RUNNING && job.state() != JobState.MIGRATING ? null
                    : with(job).state(JobState.PAUSING).flush(JobRecord.Flush.NONE).migration(null)
                    .recovery(new JobRecord.Recovery(u.failureId(), 1, u.source(), u.lostRanks(), u.placement())).build();
            case SchedulerUpdate.RecoveryExtended u -> job.state() != JobState.PAUSING || u.seq() <= job.recovery().orElseThrow().seq()
                    ? null : with(job).recovery(new JobRecord.Recovery(u.failureId(), u.seq(), u.source(), u.lostRanks(), u.placement()))
                    .build();
            case SchedulerUpdate.RecoveryCompleted u -> job.state() != JobState.PAUSING
                    || !job.recovery().orElseThrow().failureId().equals(u.failureId()) ? null
                    : with(job).state(JobState.RUNNING).rankNodes(ranNodesAfter(job, u.rankNodes(), job.recovery().orElseThrow().placement()))
                    .spares(sparesAfter(job, job.recovery().orElseThrow())).lost(job.recovery().orElseThrow()).recovery(null).build();
            case SchedulerUpdate.RestartStarted u -> !job.state().isLive()
                    || job.state() == JobState.RESTARTING && job.recovery().orElseThrow().failureId().equals(u.failureId()) ? null
                    : with(job).state(JobState.RESTARTING).rankNodes(u.rankNodes()).flush(JobRecord.Flush.NONE).migration(null)
                    .recovery(new JobRecord.Recovery(u.failureId(), 1, u.source(), u.lostRanks(), u.placement())).build();
            case SchedulerUpdate.JobRelaunched u -> job.state() != JobState.RESTARTING ? null
                    : with(job).state(JobState.RUNNING).rankNodes(u.rankNodes()).attempt(u.attempt()).recovery(null)
                    .programFinished(false).relaunched().build();
            case SchedulerUpdate.JobStopped u -> job.stopped() ? null
                    : with(job).state(JobState.STOPPED).recovery(null).migration(null).stop(new JobRecord.Stop(u.cause(), u.reason())).build();
            case SchedulerUpdate.ProgramFinished u -> job.programFinished() ? null : with(job).programFinished(true).build();
            case SchedulerUpdate.JobFinished u -> null;
            case SchedulerUpdate.FlushRequested u -> !job.state().takesCheckpoints() || !job.flush().takesRequest(u.epoch(), u.node()) ? null
                    : with(job).flush(u.epoch() > job.flush().epoch()
                    ? new JobRecord.Flush(u.epoch(), List.of(u.node()), List.of(), List.of())
                    : new JobRecord.Flush(u.epoch(), plus(job.flush().waiting(), u.node()), job.flush().writing(), job.flush().done()))
                    .build();
            case SchedulerUpdate.FlushGranted u -> u.epoch() != job.flush().epoch() || !job.flush().waiting().contains(u.node()) ? null
                    : with(job).flush(new JobRecord.Flush(u.epoch(), minus(job.flush().waiting(), u.node()),
                    plus(job.flush().writing(), u.node()), job.flush().done())).build();
            case SchedulerUpdate.FlushDone u -> !job.flush().takesDone(u.epoch(), u.node()) ? null
                    : with(job).flush(new JobRecord.Flush(u.epoch(), minus(job.flush().waiting(), u.node()),
                    minus(job.flush().writing(), u.node()), plus(job.flush().done(), u.node()))).build();
            case SchedulerUpdate.MigrationStarted u -> job.state() != JobState.RUNNING || u.seq() <= job.migrations() ? null
                    : with(job).state(JobState.MIGRATING).migrations(u.seq())
                    .migration(new JobRecord.Migration(u.seq(), u.source(), u.reason(), u.moving(), u.placement())).build();
            case SchedulerUpdate.MigrationCompleted u -> !job.isMigrating(u.seq()) ? null
                    : with(job).state(JobState.RUNNING).rankNodes(ranNodesAfter(job, u.rankNodes(), job.migration().orElseThrow().placement())).migration(null).build();
            case SchedulerUpdate.MigrationAbandoned u -> !job.isMigrating(u.seq()) ? null
                    : with(job).state(JobState.RUNNING).migration(null).build();
        };
        if (changed == null) {
            return Optional.empty();
        }
        jobs.put(changed.job(), changed);
        return Optional.of(changed);
    }

    private static JobRecord registered(SchedulerUpdate update) {
        if (!(update instanceof SchedulerUpdate.JobRegistered u)) {
            return null;
        }
        return new JobRecord(u.job(), u.launcher(), u.rankNodes(), u.spares(), JobState.RUNNING, u.mode(), u.schedule(), u.maxRestarts(), 1,
                0, 0, 0, u.atMillis(), Optional.empty(), Optional.empty(), false, JobRecord.Flush.NONE, 0, Optional.empty(), u.owner(), List.of());
    }

    private static List<String> plus(List<String> nodes, String node) {
        List<String> more = new ArrayList<>(nodes);
        more.add(node);
        return more;
    }

    private static List<String> minus(List<String> nodes, String node) {
        return nodes.stream().filter(n -> !n.equals(node)).toList();
    }

    /** Where the ranks run after a recovery or migration: as they reported it, else the old table with {@code placement} applied. */
    private static List<String> ranNodesAfter(JobRecord job, List<String> reported, Map<Integer, String> placement) {
        // A recovery with no placement shrank the job: the survivors' nodes are its nodes now.
        if (reported.size() == job.rankNodes().size() || placement.isEmpty() && !reported.isEmpty()) {
            return reported;
        }
        List<String> nodes = new ArrayList<>(job.rankNodes());
        placement.forEach((rank, node) -> {
            if (rank < nodes.size()) {
                nodes.set(rank, node);
            }
        });
        return nodes;
    }

    /**
     * A job with an allocation (registered spares) keeps the nodes it lost in it, as spares:
     * one that comes back (rebooted, its daemon rejoining) can take a rank again once the job is
     * relaunched ({@link JobRecord#lostNodes}: the running launch cannot use it). A job placed
     * on the daemons' spare role has no allocation to keep them in.
     */
    private static List<String> sparesAfter(JobRecord job, JobRecord.Recovery recovery) {
        if (job.spares().isEmpty()) {
            return job.spares();
        }
        return withLostNodes(job.spares(), recovery);
    }

    /** {@code nodes}, then each node {@code recovery} lost that is not among them. */
    private static List<String> withLostNodes(List<String> nodes, JobRecord.Recovery recovery) {
        List<String> all = new ArrayList<>(nodes);
        recovery.lostRanks().values().stream().distinct().filter(node -> !all.contains(node)).forEach(all::add);
        return all;
    }

    private static Builder with(JobRecord job) {
        return new Builder(job);
    }

    /** A changed copy of a record; only the table changes records. */
    private static final class Builder {
        private final JobRecord from;
        private List<String> rankNodes;
        private List<String> spares;
        private JobState state;
        private int attempt;
        private long committedEpoch;
        private long orderedEpoch;
        private long servedOrder;
        private long lastOrderAtMillis;
        private Optional<JobRecord.Recovery> recovery;
        private Optional<JobRecord.Stop> stop;
        private boolean programFinished;
        private JobRecord.Flush flush;
        private long migrations;
        private Optional<JobRecord.Migration> migration;
        private List<String> lostNodes;

        Builder(JobRecord from) {
            this.from = from;
            this.rankNodes = from.rankNodes();
            this.spares = from.spares();
            this.state = from.state();
            this.attempt = from.attempt();
            this.committedEpoch = from.committedEpoch();
            this.orderedEpoch = from.orderedEpoch();
            this.servedOrder = from.servedOrder();
            this.lastOrderAtMillis = from.lastOrderAtMillis();
            this.recovery = from.recovery();
            this.stop = from.stop();
            this.programFinished = from.programFinished();
            this.flush = from.flush();
            this.migrations = from.migrations();
            this.migration = from.migration();
            this.lostNodes = from.lostNodes();
        }

        Builder migrations(long last) {
            this.migrations = last;
            return this;
        }

        Builder migration(JobRecord.Migration m) {
            this.migration = Optional.ofNullable(m);
            return this;
        }

        Builder flush(JobRecord.Flush f) {
            this.flush = f;
            return this;
        }

        /** Adds the nodes {@code recovery} lost to those the job's runtime lost. */
        Builder lost(JobRecord.Recovery recovery) {
            lostNodes = withLostNodes(lostNodes, recovery);
            return this;
        }

        Builder relaunched() {
            lostNodes = List.of();
            return this;
        }

        Builder rankNodes(List<String> nodes) {
            this.rankNodes = nodes;
            return this;
        }

        Builder spares(List<String> nodes) {
            this.spares = nodes;
            return this;
        }

        Builder state(JobState s) {
            this.state = s;
            return this;
        }

        Builder attempt(int a) {
            this.attempt = a;
            return this;
        }

        Builder committedEpoch(long e) {
            this.committedEpoch = e;
            return this;
        }

        Builder orderedEpoch(long e) {
            this.orderedEpoch = e;
            return this;
        }

        Builder servedOrder(long order) {
            this.servedOrder = order;
            return this;
        }

        Builder lastOrderAtMillis(long at) {
            this.lastOrderAtMillis = at;
            return this;
        }

        Builder recovery(JobRecord.Recovery r) {
            this.recovery = Optional.ofNullable(r);
            return this;
        }

        Builder stop(JobRecord.Stop s) {
            this.stop = Optional.of(s);
            return this;
        }

        Builder programFinished(boolean finished) {
            this.programFinished = finished;
            return this;
        }

        JobRecord build() {
            return new JobRecord(from.job(), from.launcher(), rankNodes, spares, state, from.mode(), from.schedule(), from.maxRestarts(),
                    attempt, committedEpoch, orderedEpoch, servedOrder, lastOrderAtMillis, recovery, stop, programFinished, flush,
                    migrations, migration, from.owner(), lostNodes);
        }
    }
}
