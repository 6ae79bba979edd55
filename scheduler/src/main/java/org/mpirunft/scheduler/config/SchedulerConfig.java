package org.mpirunft.scheduler.config;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.mpirunft.scheduler.policy.NoSpareAction;

/**
 * The scheduler's settings, as read from the cluster's YAML config file by
 * {@link SchedulerConfigReader}. Immutable; every value was validated when it was read.
 *
 * @param checkpointInterval a fixed interval, or empty for {@code auto} (Young/Daly)
 * @param mtbf               the mean time between failures {@code auto} starts from
 * @param checkpointCost     the checkpoint cost {@code auto} assumes until one is measured
 * @param spares             nodes reserved as spares; empty: the nodes whose daemons say so
 * @param replacementPolicy  the name of the replacement policy
 * @param pauseTimeout       how long a pause may take before the job is declared lost
 */
public record SchedulerConfig(Optional<Duration> checkpointInterval, Duration mtbf, Duration checkpointCost,
                              Path localStorage, Path sharedStorage, List<String> spares, String replacementPolicy,
                              NoSpareAction whenNoSpare, Duration pauseTimeout) {
    public static final int VERSION = 1;

    public SchedulerConfig {
        spares = List.copyOf(spares);
    }

    public boolean autoInterval() {
        return checkpointInterval.isEmpty();
    }
}
