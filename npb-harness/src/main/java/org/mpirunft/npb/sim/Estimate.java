package org.mpirunft.npb.sim;

import java.util.List;

/**
 * The simulated efficiency of one configuration over independent replications: their mean, its
 * standard error, and a 95% confidence interval by the normal approximation (mean +- 1.96 SE; the
 * replications are independent and, being long, each efficiency is near normal). Failures are per
 * replication, mean.
 *
 * @param mean                  mean efficiency (useful work over wall time), simulated
 * @param standardError         standard deviation of the replications over sqrt(replications)
 * @param replications          how many, >= 2
 * @param failures              failures per replication, mean (during work, checkpoint or recovery)
 * @param failuresInCheckpoint  of those, struck during a checkpoint, mean
 * @param failuresInRecovery    of those, struck during a recovery (which then starts again), mean
 */
public record Estimate(double mean, double standardError, int replications, double failures, double failuresInCheckpoint,
                       double failuresInRecovery) {
    /** The normal quantile of a two-sided 95% interval. */
    public static final double Z95 = 1.959964;

    public double low95() {
        return mean - Z95 * standardError;
    }

    public double high95() {
        return mean + Z95 * standardError;
    }

    /** The estimate over {@code runs}, which must be two or more. */
    public static Estimate of(List<JobSimulation.Run> runs) {
        if (runs.size() < 2) {
            throw new SimulationInputException("an estimate needs at least 2 replications, got " + runs.size());
        }
        int n = runs.size();
        double mean = runs.stream().mapToDouble(JobSimulation.Run::efficiency).average().orElseThrow();
        double squares = runs.stream().mapToDouble(r -> (r.efficiency() - mean) * (r.efficiency() - mean)).sum();
        double se = Math.sqrt(squares / (n - 1)) / Math.sqrt(n);
        return new Estimate(mean, se, n, runs.stream().mapToLong(JobSimulation.Run::failures).average().orElseThrow(),
                runs.stream().mapToLong(JobSimulation.Run::failuresInCheckpoint).average().orElseThrow(),
                runs.stream().mapToLong(JobSimulation.Run::failuresInRecovery).average().orElseThrow());
    }
}
