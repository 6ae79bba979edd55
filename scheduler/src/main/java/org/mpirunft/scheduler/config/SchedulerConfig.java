package org.mpirunft.scheduler.config;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.mpirunft.common.NoSpareAction;

/**
 * The scheduler's settings, as read from the cluster's YAML config file by
 * {@link SchedulerConfigReader}. Immutable; every value was validated when it was read.
 *
 * <p>Spares are not configured here: the spares are the nodes whose daemons joined with the
 * spare role, as the view says.
 *
 * @param checkpointInterval a fixed interval, or empty for {@code auto} (Young/Daly)
 * @param mtbf               the mean time between failures {@code auto} starts from
 * @param checkpointCost     the checkpoint cost {@code auto} assumes until one is measured
 * @param sharedStorage      where the leader persists the job table ({@code scheduler/job-table.json})
 * @param replacementPolicy  the name of the replacement policy
 * @param flushWriters       how many nodes of a job may copy checkpoint parts to shared storage at
 *                           once ({@code storage.flush-writers}); 0: no limit, no turns
 */
public record SchedulerConfig(Optional<Duration> checkpointInterval, Duration mtbf, Duration checkpointCost,
                              Path sharedStorage, String replacementPolicy, NoSpareAction whenNoSpare, int flushWriters) {
    public static final int VERSION = 1;

    /** Without a limit on concurrent flushes. */
    public SchedulerConfig(Optional<Duration> checkpointInterval, Duration mtbf, Duration checkpointCost,
                           Path sharedStorage, String replacementPolicy, NoSpareAction whenNoSpare) {
        this(checkpointInterval, mtbf, checkpointCost, sharedStorage, replacementPolicy, whenNoSpare, 0);
    }

    public SchedulerConfig {
        if (flushWriters < 0) {
            throw new IllegalArgumentException("flushWriters must be >= 0, got " + flushWriters);
        }
    }

    /** A copy with at most {@code writers} nodes flushing at once (0: no limit). */
    public SchedulerConfig withFlushWriters(int writers) {
        return new SchedulerConfig(checkpointInterval, mtbf, checkpointCost, sharedStorage, replacementPolicy, whenNoSpare, writers);
    }

    public boolean autoInterval() {
        return checkpointInterval.isEmpty();
    }
}
