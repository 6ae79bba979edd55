package org.mpirunft.scheduler.policy;

import java.time.Duration;
import java.util.Optional;

/**
 * The {@code auto} checkpoint interval: Daly's optimum, recomputed as measurements arrive. The
 * checkpoint cost is a moving average of measured costs; the MTBF is the configured one until
 * failures have been observed, then the observed one. Not thread-safe: the scheduler owns it.
 */
public final class AutoInterval {
    /** Weight of a new cost measurement in the moving average. */
    private static final double SMOOTHING = 0.3;

    private final Duration configuredMtbf;
    private final Duration initialCost;
    private double costSeconds = -1;
    private long failures;
    private Duration observedUptime = Duration.ZERO;

    public AutoInterval(Duration configuredMtbf, Duration initialCost) {
        this.configuredMtbf = configuredMtbf;
        this.initialCost = initialCost;
    }

    public void checkpointMeasured(Duration cost) {
        double seconds = cost.toNanos() / 1e9;
        costSeconds = costSeconds < 0 ? seconds : SMOOTHING * seconds + (1 - SMOOTHING) * costSeconds;
    }

    /** A failure after {@code uptime} of observed running time in total. */
    public void failureObserved(Duration uptime) {
        failures++;
        observedUptime = uptime;
    }

    public Duration cost() {
        return costSeconds < 0 ? initialCost : Duration.ofNanos(Math.round(costSeconds * 1e9));
    }

    /** Observed MTBF once failures were seen, else the configured one. */
    public Duration mtbf() {
        return observedMtbf().orElse(configuredMtbf);
    }

    public Optional<Duration> observedMtbf() {
        return failures == 0 ? Optional.empty() : Optional.of(observedUptime.dividedBy(failures));
    }

    public Duration interval() {
        return CheckpointInterval.optimal(cost(), mtbf());
    }
}
