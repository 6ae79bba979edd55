package org.mpirunft.scheduler.config;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.mpirunft.scheduler.policy.NoSpareAction;

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
 */
public record SchedulerConfig(Optional<Duration> checkpointInterval, Duration mtbf, Duration checkpointCost,
                              Path sharedStorage, String replacementPolicy, NoSpareAction whenNoSpare) {
    public static final int VERSION = 1;

    public boolean autoInterval() {
        return checkpointInterval.isEmpty();
    }
}
