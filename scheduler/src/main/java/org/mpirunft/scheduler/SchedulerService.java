package org.mpirunft.scheduler;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.mpirunft.membership.Membership;
import org.mpirunft.scheduler.config.SchedulerConfig;
import org.mpirunft.scheduler.internal.SchedulerServiceImpl;

/**
 * The scheduler of one node daemon: a {@link SchedulerCore} on the daemon's {@link Membership}.
 * Every daemon runs one; the one on the view's coordinator leads.
 *
 * <pre>{@code
 * SchedulerService scheduler = SchedulerService.create(config, membership);
 * scheduler.addCommandListener(command -> launcher.obey(command));
 * scheduler.start();                  // loads the persisted job table; membership may start before or after
 * scheduler.registerJob("job1", "head", List.of("node1", "node2")).join();
 * ...
 * scheduler.close();
 * }</pre>
 *
 * <p>Requests ({@link #registerJob}, {@link #epochCommitted}, {@link #recoveryCompleted},
 * {@link #jobFinished}, {@link #checkpointNow}) may be made at any daemon. They go to the leader
 * and are repeated, across leader changes, until this daemon's own table shows their effect;
 * the returned future completes then. A request about a job this daemon's table does not hold
 * throws {@link UnknownJobException} (but {@link #jobFinished} of such a job is simply done).
 *
 * <p>Commands reach the listeners of the daemon named as the job's launcher, on the membership
 * service's thread, outside every lock. A command may come more than once (after a leader
 * change or a restart of that daemon): {@link SchedulerCommand#key()} identifies it.
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
     * Loads the persisted job table and takes part in the group from the membership's current
     * view on.
     *
     * @throws JobTableFileException when the persisted table is corrupt or of an unknown version
     */
    void start();

    /** Stops taking part, writes the table if this daemon led, and fails pending requests. */
    @Override
    void close();

    /**
     * Adds {@code job}, whose mpirun-ft runs on {@code launcherNode} and whose rank {@code r}
     * runs on {@code rankNodes.get(r)}; node names are membership node names. Registering the
     * same job again is harmless.
     */
    CompletableFuture<Void> registerJob(String job, String launcherNode, List<String> rankNodes);

    /** The job committed checkpoint {@code epoch}, which cost {@code checkpointCost} (feeds the {@code auto} interval). */
    CompletableFuture<Void> epochCommitted(String job, long epoch, Duration checkpointCost);

    /** The launcher finished the recovery of {@code failureId}: the replacements run. */
    CompletableFuture<Void> recoveryCompleted(String job, String failureId);

    /** The job ended; its nodes are free again. */
    CompletableFuture<Void> jobFinished(String job);

    /**
     * Orders a checkpoint of {@code job} now (for {@code mpirun-ft checkpoint JOB}); the future
     * gives the epoch ordered. During a recovery the order waits for the recovery to complete;
     * the future fails if the job stops or finishes first.
     */
    CompletableFuture<Long> checkpointNow(String job);

    void addCommandListener(Consumer<SchedulerCommand> listener);

    void removeCommandListener(Consumer<SchedulerCommand> listener);

    /** A copy of this daemon's replica of the job table. */
    JobTable table();

    /** True while this daemon is the acting leader (coordinator, and its replicas synchronized). */
    boolean isLeader();

    /** The node name of the leader (the view's coordinator), or "" while this daemon has no view. */
    String leader();

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
        private Duration syncTimeout = Duration.ofSeconds(2);

        private Builder(SchedulerConfig config, Membership membership) {
            this.config = Objects.requireNonNull(config, "config");
            this.membership = Objects.requireNonNull(membership, "membership");
            this.stateDir = config.sharedStorage().resolve("scheduler");
        }

        /** Where the job table is persisted (default: {@code <storage.shared>/scheduler}). */
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

        /** How long a new leader waits for the other daemons' tables before it goes on without them (default 2 s). */
        public Builder syncTimeout(Duration timeout) {
            this.syncTimeout = positive("syncTimeout", timeout);
            return this;
        }

        public SchedulerService build() {
            return new SchedulerServiceImpl(config, membership, stateDir, wallClock, nanoTime, effectiveTickPeriod(), syncTimeout);
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
