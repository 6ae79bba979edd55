package org.mpirunft.npb.bench;

import java.util.List;

/**
 * What one {@code daly} run measured beside its NPB time: the failures injected and the
 * scheduler's {@code auto} interval as it ran.
 *
 * @param seed             the run's {@link FailureSchedule} seed
 * @param mtbfS            the mean of the injected gaps, and the cluster's configured MTBF
 * @param failuresInjected nodes killed
 * @param sparesExhausted  true if injection stopped because every spare had been used
 * @param killedRanks      the rank whose node each failure killed, in order
 * @param killedNodes      those nodes (a rank moved to a spare earlier takes the spare with it)
 * @param injectedAt       when each was killed (ISO-8601)
 * @param recoveryMs       each failure's kill to the job back (the {@code resume} event), measured
 * @param costS            median commit duration of the event log (the ranks' stall plus write):
 *                         the cost {@code auto} measures; null if nothing committed
 * @param intervalS        median spacing of the scheduler's checkpoint orders in the event log:
 *                         the interval it used; null with fewer than two orders
 */
public record DalyRun(long seed, double mtbfS, int failuresInjected, boolean sparesExhausted, List<Integer> killedRanks,
                      List<String> killedNodes, List<String> injectedAt, List<Double> recoveryMs, Double costS, Double intervalS) {
    public DalyRun {
        killedRanks = List.copyOf(killedRanks);
        killedNodes = List.copyOf(killedNodes);
        injectedAt = List.copyOf(injectedAt);
        recoveryMs = List.copyOf(recoveryMs);
    }

    /** Median kill-to-back time in seconds; null if no failure recovered. */
    public Double recoveryS() {
        Double median = Medians.of(recoveryMs);
        return median == null ? null : median / 1e3;
    }

    /**
     * Daly's model efficiency (computed) for this run's measured interval, cost and recovery and
     * the MTBF; a run without failures has R = 0 in it. Null if the interval or cost is missing.
     */
    public Double modelEfficiency() {
        Double r = recoveryS();
        return intervalS == null || costS == null || intervalS <= 0 ? null
                : DalyInterval.modelEfficiency(intervalS, costS, mtbfS, r == null ? 0 : r);
    }
}
