package org.mpirunft.scheduler.policy;

import java.time.Duration;

/**
 * How often to checkpoint. {@link #fixed} is what the config says; {@link #optimal} is Daly's
 * higher-order estimate of the interval that minimizes expected run time, given the cost of one
 * checkpoint and the mean time between failures:
 *
 * <pre>
 *   T = sqrt(2 C M) * (1 + sqrt(C / 2M) / 3 + C / 18M) - C    for C &lt; 2M
 *   T = M                                                       otherwise
 * </pre>
 *
 * (J. T. Daly, "A higher order estimate of the optimum checkpoint interval for restart dumps",
 * FGCS 22, 2006). Its first term is Young's sqrt(2 C M).
 */
public final class CheckpointInterval {
    private CheckpointInterval() {
    }

    public static Duration fixed(Duration interval) {
        if (interval.isNegative() || interval.isZero()) {
            throw new IllegalArgumentException("checkpoint interval must be > 0, got " + interval);
        }
        return interval;
    }

    /** Daly's optimum for checkpoint cost {@code cost} and mean time between failures {@code mtbf}. */
    public static Duration optimal(Duration cost, Duration mtbf) {
        if (cost.isNegative() || cost.isZero()) {
            throw new IllegalArgumentException("checkpoint cost must be > 0, got " + cost);
        }
        if (mtbf.isNegative() || mtbf.isZero()) {
            throw new IllegalArgumentException("MTBF must be > 0, got " + mtbf);
        }
        double c = cost.toNanos() / 1e9;
        double m = mtbf.toNanos() / 1e9;
        if (c >= 2 * m) {
            return mtbf;
        }
        double seconds = Math.sqrt(2 * c * m) * (1 + Math.sqrt(c / (2 * m)) / 3 + c / (18 * m)) - c;
        return Duration.ofNanos(Math.round(seconds * 1e9));
    }

    /** Young's first-order estimate, sqrt(2 C M), for comparison. */
    public static Duration young(Duration cost, Duration mtbf) {
        double c = cost.toNanos() / 1e9;
        double m = mtbf.toNanos() / 1e9;
        return Duration.ofNanos(Math.round(Math.sqrt(2 * c * m) * 1e9));
    }
}
