package org.mpirunft.scheduler;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.mpirunft.common.CheckpointSchedule;
import org.mpirunft.common.JobOwner;
import org.mpirunft.common.rank.RankMessage;
import org.mpirunft.membership.Membership;
import org.mpirunft.scheduler.config.SchedulerConfig;
import org.mpirunft.scheduler.internal.JobTableStore;
import org.mpirunft.scheduler.internal.SchedulerServiceImpl;

/**
 * The scheduler of one node daemon: a {@link SchedulerCore} on the group's replicated log
 * ({@link Membership#replicatedLog()}). Every daemon runs one; the log's leader decides.
 *
 * <pre>{@code
 * SchedulerService scheduler = SchedulerService.create(config, membership);
 * scheduler.addTransitionListener(transition -> ranks.deliver(transition));
 * scheduler.start();                  // before membership.start(): joining replays the log into it
 * scheduler.registerJob("job1", "head", List.of("node1", "node2"), List.of("spare1"), RecoveryMode.PAUSE, Optional.of(CheckpointSchedule.AUTO), 10, owner).join();
 * ...
 * scheduler.close();
 * }</pre>
 *
 * <p>Requests ({@link #registerJob}, {@link #failureReported}, {@link #epochCommitted},
 * {@link #recoveryCompleted}, {@link #checkpointNow}, ...) may be made at any daemon. They go to the leader
 * and are repeated, across leader changes, until this daemon's own table shows their effect;
 * the returned future completes then. A request about a job this daemon's table does not hold
 * throws {@link UnknownJobException} (but {@link #jobFinished} of such a job is simply done).
 *
 * <p>Every daemon hands the transitions it applies to its listeners ({@link JobTransition}), on
 * the log's thread, outside every lock: the daemons of a job's nodes turn them
 * into orders for their ranks, the launcher's daemon streams them to mpirun-ft.
 *
 * <p>{@code start} and {@code close} may be called repeatedly; after {@code close} the service
 * cannot start again. The service does not start or close the membership.
 */
public interface SchedulerService extends AutoCloseable {

    /** A service with the defaults of {@link Builder}. */
    static SchedulerService create(SchedulerConfig config, Membership membership) {
        return builder(config, membership).build();
    }

    static Builder builder(SchedulerConfig config, Membership membership) {
        return new Builder(config, membership);
    }

    /**
     * Reads the table file (for a log that never held a table), attaches to the replicated log, and takes part in the group from the membership's current
     * view on.
     *
     * @throws JobTableFileException when the persisted table is corrupt or of an unknown version
     */
    void start();

    /** Stops taking part, writes the table if this daemon led, and fails pending requests. */
    @Override
    void close();

    /**
     * Adds {@code job} in state RUNNING: its mpirun-ft runs on {@code launcherNode}, rank {@code r}
     * runs on {@code rankNodes.get(r)} (membership node names), replacements can start in place on
     * {@code spares} (the spares of its allocation; empty: any spare), it recovers by {@code mode}, and
     * the scheduler orders its checkpoints on {@code schedule} (a fixed interval, {@code every N}
     * iterations, or {@code auto}: Daly's interval from the measured cost and the configured
     * MTBF; empty: the cluster's {@code checkpoint.interval}). The job belongs to {@code owner}.
     * Registering the same job again is harmless (its first registration stands).
     */
    CompletableFuture<Void> registerJob(String job, String launcherNode, List<String> rankNodes, List<String> spares,
                                        RecoveryMode mode, Optional<CheckpointSchedule> schedule, int maxRestarts, JobOwner owner);

    /**
     * The job committed checkpoint {@code epoch}, serving checkpoint order {@code order} (0: none), which
     * cost the ranks {@code checkpointCost} (feeds {@code auto}).
     */
    CompletableFuture<Void> epochCommitted(String job, long epoch, long order, Duration checkpointCost);

    /** The epoch the ranks took for checkpoint order {@code order} did not commit: the order is over, the next one comes. */
    CompletableFuture<Void> checkpointAbandoned(String job, long order, long epoch, String reason);

    /**
     * A source saw a failure of the job. The leader starts a recovery (pause mode), a restart
     * (restart modes) or stops the job (no spare); extends a recovery under way with what is new;
     * and ignores a failure already being repaired or repaired. The future completes once this
     * daemon's table shows the failure handled (or it was old news).
     */
    CompletableFuture<Void> failureReported(String job, FailureReport report);

    /**
     * The ranks resumed after the recovery of {@code failureId}: {@code rankNodes} is where every
     * rank runs now, {@code epoch} and {@code iteration} where they resumed, {@code split} where
     * the time went (may be null).
     */
    CompletableFuture<Void> recoveryCompleted(String job, String failureId, List<String> rankNodes, long epoch, long iteration,
                                              RankMessage.RecoverySplit split);

    /** Stops the job for good ({@code cause}: {@code operator}, {@code no-checkpoint}, ...); checkpoints are kept. */
    CompletableFuture<Void> stopJob(String job, String cause, String reason);

    /**
     * The job cannot go on in place: the ranks' recovery failed, or mpirun ended before the program
     * finished. The leader decides a whole-job restart on a plan of live nodes, or stops the job
     * when no restart is left or no spare can stand in for a lost node. {@code reporter} is the
     * rank that said so (its word counts only while the job has it there), null for mpirun-ft.
     */
    CompletableFuture<Void> restartNeeded(String job, String source, String reason, FailureReport.Reporter reporter);

    /** The launcher relaunched the job (attempt {@code attempt}) on {@code rankNodes}: RESTARTING to RUNNING. */
    CompletableFuture<Void> jobRelaunched(String job, int attempt, List<String> rankNodes);

    /** Every rank agreed that all iterations are done. */
    CompletableFuture<Void> programFinished(String job);

    /**
     * The ranks on {@code node} wait to copy epoch {@code epoch} to shared storage; completes when
     * this daemon's table shows the request (its grant comes as a {@link SchedulerUpdate.FlushGranted}
     * transition). Used only when {@code storage.flush-writers} is above 0.
     */
    CompletableFuture<Void> flushRequested(String job, long epoch, String node);

    /** Every rank on {@code node} ended its copy of epoch {@code epoch}; the next node's turn can come. */
    CompletableFuture<Void> flushDone(String job, long epoch, String node);

    /** How many nodes of a job may copy to shared storage at once; 0: no limit (ranks do not ask). */
    int flushWriters();

    /** The job ended; it leaves the table and its nodes are free again. */
    CompletableFuture<Void> jobFinished(String job);

    /**
     * Orders a checkpoint of {@code job} now (for {@code mpirun-ft checkpoint JOB}); the future
     * gives the order's epoch. During a recovery the order waits for the recovery to complete;
     * the future fails if the job stops or finishes first.
     */
    CompletableFuture<Long> checkpointNow(String job);

    /**
     * Moves {@code job}'s ranks off {@code node} to spares of its allocation at the ranks' next
     * safe point, nobody rolled back (for {@code mpirun-ft migrate}); {@code reason} is for the
     * event log. The future gives the migration's number once ordered; it fails at once, with a
     * one-line reason, when the job cannot migrate (not in pause mode, no rank there, no free
     * spare). During a recovery or another migration the order waits for the job to run again.
     */
    CompletableFuture<Long> migrate(String job, String node, String reason);

    /** The ranks carried out migration {@code seq}: MIGRATING to RUNNING, {@code rankNodes} where every rank runs now. */
    CompletableFuture<Void> migrationCompleted(String job, long seq, List<String> rankNodes, long iteration,
                                               RankMessage.MigrationSplit split);

    /** The ranks gave migration {@code seq} up and went on where they were: MIGRATING to RUNNING. */
    CompletableFuture<Void> migrationAbandoned(String job, long seq, String reason);

    /**
     * Every transition this daemon applies, once, on the membership service's thread, outside
     * every lock; a listener must not block.
     */
    void addTransitionListener(Consumer<JobTransition> listener);

    /**
     * {@code listener} hears of each node that failed out of the view once it counts as lost; a
     * node whose daemon crashed while its host runs on counts only if no daemon of it is back
     * within the restart grace, or a recovery replaced its ranks. Called with the scheduler's lock
     * held: it must not block.
     */
    void addNodeLostListener(Consumer<org.mpirunft.membership.Member> listener);

    void removeTransitionListener(Consumer<JobTransition> listener);

    /** The checkpoint interval the leader uses for {@code job} now: fixed, or Daly's for {@code auto}; empty for {@code every N}. */
    Optional<Duration> checkpointInterval(String job);

    /** A copy of this daemon's replica of the job table. */
    JobTable table();

    /** True while this daemon is the acting leader (coordinator, and its replicas synchronized). */
    boolean isLeader();

    /** The node name of the leader (the view's coordinator), or "" while this daemon has no view. */
    String leader();

    /** This member's current term in the replicated log. */
    long logTerm();

    /** The replicated log's voters as this member knows them (log ids). */
    List<String> logVoters();

    /** This daemon's decision latencies as leader: nanoseconds from a failure event to its pause decision. */
    List<Long> decisionNanos();

    /** How a {@link SchedulerService} is made; every setting but config and membership has a default. */
    final class Builder {
        private final SchedulerConfig config;
        private final Membership membership;
        private Path stateDir;
        private Clock wallClock = Clock.systemUTC();
        private LongSupplier nanoTime = System::nanoTime;
        private Duration tickPeriod;

        private Builder(SchedulerConfig config, Membership membership) {
            this.config = Objects.requireNonNull(config, "config");
            this.membership = Objects.requireNonNull(membership, "membership");
            this.stateDir = JobTableStore.directoryIn(config.sharedStorage());
        }

        /**
         * Where the leader writes a copy of the job table, which a log that never held a table
         * takes in (default: {@code <storage.shared>/.ftd/scheduler}, see
         * {@link org.mpirunft.common.PrivateDirectories#DAEMONS}).
         */
        public Builder stateDir(Path dir) {
            this.stateDir = Objects.requireNonNull(dir, "stateDir");
            return this;
        }

        /** Wall-clock time, for the checkpoint rhythm (kept in the table, so it survives a leader change). */
        public Builder wallClock(Clock clock) {
            this.wallClock = Objects.requireNonNull(clock, "wallClock");
            return this;
        }

        /** Monotonic time in nanoseconds, for decision latencies and timeouts. */
        public Builder nanoTime(LongSupplier nanoTime) {
            this.nanoTime = Objects.requireNonNull(nanoTime, "nanoTime");
            return this;
        }

        /**
         * How often the leader looks for due checkpoints and requests are repeated (default: a
         * tenth of a fixed checkpoint interval, at most 1 s, at least 10 ms).
         */
        public Builder tickPeriod(Duration period) {
            this.tickPeriod = positive("tickPeriod", period);
            return this;
        }

        public SchedulerService build() {
            // A table at the place of older releases is read once, where the default place is used.
            Path legacy = stateDir.equals(JobTableStore.directoryIn(config.sharedStorage()))
                    ? JobTableStore.legacyDirectoryIn(config.sharedStorage()) : null;
            return new SchedulerServiceImpl(config, membership, new JobTableStore(stateDir, legacy, membership.metadata().name()), wallClock, nanoTime, effectiveTickPeriod());
        }

        /** The tick period set, or a tenth of a fixed interval within [10 ms, 1 s], or 1 s for {@code auto}. */
        Duration effectiveTickPeriod() {
            if (tickPeriod != null) {
                return tickPeriod;
            }
            Duration tenth = config.checkpointInterval().map(i -> i.dividedBy(10)).orElse(Duration.ofSeconds(1));
            return tenth.compareTo(Duration.ofSeconds(1)) > 0 ? Duration.ofSeconds(1)
                    : tenth.compareTo(Duration.ofMillis(10)) < 0 ? Duration.ofMillis(10) : tenth;
        }

        private static Duration positive(String name, Duration d) {
            Objects.requireNonNull(d, name);
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException(name + " must be > 0, got " + d);
            }
            return d;
        }
    }
}
