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

    /**
     * Daly's model of the efficiency {@code Ts / T} of a job that checkpoints every {@code tau} s
     * of work at cost {@code C} s, fails with exponentially distributed gaps of mean {@code M} s
     * and takes {@code R} s to restart after each failure. Daly (2006) gives the expected wall
     * time as {@code T = M e^(R/M) (e^((tau + C)/M) - 1) Ts / tau}; the efficiency is then
     * {@code tau / (M e^(R/M) (e^((tau + C)/M) - 1))}, independent of Ts. A model, not a
     * measurement: reports label it computed.
     */
    public static double modelEfficiency(double tauSeconds, double costSeconds, double mtbfSeconds, double restartSeconds) {
        if (!(tauSeconds > 0) || !(costSeconds >= 0) || !(mtbfSeconds > 0) || !(restartSeconds >= 0)) {
            throw new IllegalArgumentException("Daly's model needs tau > 0, C >= 0, M > 0 and R >= 0, got tau " + tauSeconds
                    + " s, C " + costSeconds + " s, M " + mtbfSeconds + " s, R " + restartSeconds + " s");
        }
        double m = mtbfSeconds;
        return tauSeconds / (m * Math.exp(restartSeconds / m) * Math.expm1((tauSeconds + costSeconds) / m));
    }
}
