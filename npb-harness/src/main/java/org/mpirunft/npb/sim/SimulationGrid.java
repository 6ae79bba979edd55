package org.mpirunft.npb.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import org.mpirunft.npb.bench.DalyInterval;

/**
 * The configurations one {@code npb-simulate} run covers: every measured kernel, recovery mode,
 * node count and per-node MTBF, each simulated and set beside Daly's model.
 *
 * <p>Each replication's useful work is {@code workMtbfs} job MTBFs, rounded up to whole intervals:
 * long enough for hundreds of failures, so the efficiency is the job's steady state and the end of
 * the job weighs nothing. Each configuration draws from its own stream, seeded from {@code seed} and
 * the configuration's name, so a row's figures do not depend on which other rows ran.
 *
 * @param kernels        the measured costs to simulate
 * @param modes          the recovery modes
 * @param nodes          node counts
 * @param mtbfYears      per-node MTBFs, years of {@link #YEAR_S}
 * @param fixedIntervalS the checkpoint interval, s; null: Daly's, from the cost and the job MTBF
 * @param replications   replications per configuration, >= 2
 * @param workMtbfs      useful work of one replication, in job MTBFs, > 0
 * @param seed           the seed
 */
public record SimulationGrid(List<SimulationCosts.Kernel> kernels, List<RecoveryMode> modes, List<Integer> nodes, List<Double> mtbfYears,
                             Double fixedIntervalS, int replications, double workMtbfs, long seed) {
    /** A year of 365 days, as MTBFs quoted in hours (8,760 h) count it. */
    public static final double YEAR_S = 365 * 86400.0;

    public SimulationGrid {
        kernels = List.copyOf(kernels);
        modes = List.copyOf(modes);
        nodes = List.copyOf(nodes);
        mtbfYears = List.copyOf(mtbfYears);
        if (replications < 2) {
            throw new SimulationInputException("--replications must be >= 2, got " + replications);
        }
        if (!(workMtbfs > 0) || Double.isInfinite(workMtbfs)) {
            throw new SimulationInputException("--work-mtbfs must be > 0, got " + workMtbfs);
        }
        for (int n : nodes) {
            if (n < 1) {
                throw new SimulationInputException("--nodes must be >= 1, got " + n);
            }
        }
        for (double years : mtbfYears) {
            if (!(years > 0) || Double.isInfinite(years)) {
                throw new SimulationInputException("--mtbf-years must be > 0, got " + years);
            }
        }
        if (fixedIntervalS != null && !(fixedIntervalS > 0)) {
            throw new SimulationInputException("--interval must be > 0, got " + fixedIntervalS + " s");
        }
    }

    /**
     * One configuration's result.
     *
     * @param kernel        whose measured costs
     * @param mode          whose recovery
     * @param mtbfYears     the per-node MTBF, years
     * @param job           the simulated job (nodes, costs, interval, work)
     * @param intervalFrom  {@code daly} or {@code fixed}
     * @param simulated     the simulation's efficiency
     * @param daly          Daly's model's efficiency (computed)
     */
    public record Row(SimulationCosts.Kernel kernel, RecoveryMode mode, double mtbfYears, JobModel job, String intervalFrom,
                      Estimate simulated, double daly) {
        public int nodes() {
            return job.nodes();
        }

        /** (simulated - Daly) / Daly. */
        public double relativeDifference() {
            return (simulated.mean() - daly) / daly;
        }

        public boolean dalyInsideCi() {
            return daly >= simulated.low95() && daly <= simulated.high95();
        }
    }

    /** The job one configuration simulates. */
    public JobModel job(SimulationCosts.Kernel kernel, RecoveryMode mode, int nodeCount, double years) {
        double nodeMtbf = years * YEAR_S;
        double jobMtbf = nodeMtbf / nodeCount;
        double interval = fixedIntervalS != null ? fixedIntervalS : DalyInterval.seconds(kernel.checkpointS(), jobMtbf);
        double work = Math.ceil(workMtbfs * jobMtbf / interval) * interval;
        return new JobModel(nodeCount, nodeMtbf, kernel.checkpointS(), kernel.recoveryS(mode), interval, work);
    }

    /** Simulates every configuration: kernels, then modes, node counts and MTBFs. */
    public List<Row> run() {
        List<Row> rows = new ArrayList<>();
        for (SimulationCosts.Kernel kernel : kernels) {
            for (RecoveryMode mode : modes) {
                for (int n : nodes) {
                    for (double years : mtbfYears) {
                        rows.add(run(kernel, mode, n, years));
                    }
                }
            }
        }
        return rows;
    }

    /** One configuration. */
    public Row run(SimulationCosts.Kernel kernel, RecoveryMode mode, int nodeCount, double years) {
        JobModel job = job(kernel, mode, nodeCount, years);
        String name = String.format(Locale.ROOT, "%s|%s|%s|%s|%d|%s", kernel.kernel(), kernel.cls(), kernel.storage(), mode.key(), nodeCount,
                Double.toString(years));
        // A stream per configuration: seed and name mixed (String.hashCode is specified, so stable across JVMs).
        SplittableRandom random = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + name.hashCode());
        Estimate simulated = JobSimulation.replicate(job, replications, random);
        return new Row(kernel, mode, years, job, fixedIntervalS == null ? "daly" : "fixed", simulated, job.dalyEfficiency());
    }
}
