package org.mpirunft.npb.bench;

/**
 * The checkpoint interval that minimises expected run time for checkpoint cost {@code C} and
 * mean time between failures {@code M}: Daly's higher-order estimate (J. T. Daly, "A higher
 * order estimate of the optimum checkpoint interval for restart dumps", FGCS 22, 2006), of
 * which Young's {@code sqrt(2 C M)} is the first term. The scheduler's {@code auto} interval
 * uses the same formula.
 */
public final class DalyInterval {
    private DalyInterval() {
    }

    /** Daly's interval in seconds; {@code M} itself when {@code C >= 2 M}. */
    public static double seconds(double costSeconds, double mtbfSeconds) {
        if (!(costSeconds > 0) || !(mtbfSeconds > 0)) {
            throw new IllegalArgumentException("checkpoint cost and MTBF must be > 0, got " + costSeconds + " s and " + mtbfSeconds + " s");
        }
        double c = costSeconds;
        double m = mtbfSeconds;
        if (c >= 2 * m) {
            return m;
        }
        return Math.sqrt(2 * c * m) * (1 + Math.sqrt(c / (2 * m)) / 3 + c / (18 * m)) - c;
    }

    /** Young's first-order interval {@code sqrt(2 C M)} in seconds. */
    public static double youngSeconds(double costSeconds, double mtbfSeconds) {
        return Math.sqrt(2 * costSeconds * mtbfSeconds);
    }

    /**
     * The failure-free overhead of checkpointing every {@code intervalSeconds} of work at
     * {@code costSeconds} each, in percent of the work: {@code 100 C / T}.
     */
    public static double overheadPercent(double costSeconds, double intervalSeconds) {
        return 100 * costSeconds / intervalSeconds;
    }
}
