package org.mpirunft.npb.sim;

import org.mpirunft.npb.bench.DalyInterval;

/**
 * One simulated configuration: a job that needs all of its {@code nodes} at once, each node failing
 * after exponentially distributed times of mean {@code nodeMtbfS}, so that the job fails at rate
 * {@code nodes / nodeMtbfS} (its MTBF is {@link #jobMtbfS}). It has {@code workS} seconds of useful
 * work, checkpoints after every {@code intervalS} of work at a stall of {@code checkpointS}, and
 * takes {@code recoveryS} to come back from each failure. Enough spares are assumed: a failed node
 * is always replaced at once, and the cost of replacing it is in {@code recoveryS}.
 *
 * <p>The work is cut into segments of {@code intervalS}, the last one shorter if {@code workS} is not
 * a whole number of intervals; every segment, the last one included, ends with a checkpoint (the job's
 * final state is committed like any other), as in Daly's model, where {@code Ts / tau} segments each
 * cost {@code tau + delta}.
 *
 * @param nodes       nodes the job needs, >= 1
 * @param nodeMtbfS   each node's mean time between failures, s, > 0; {@code +Infinity}: no failures
 * @param checkpointS the run time one checkpoint costs the job, s, >= 0
 * @param recoveryS   a failure to the job back at work, s, >= 0
 * @param intervalS   useful work between two checkpoints, s, > 0
 * @param workS       the job's useful work, s, > 0
 */
public record JobModel(int nodes, double nodeMtbfS, double checkpointS, double recoveryS, double intervalS, double workS) {
    public JobModel {
        if (nodes < 1) {
            throw new SimulationInputException("nodes must be >= 1, got " + nodes);
        }
        if (!(nodeMtbfS > 0)) {
            throw new SimulationInputException("the per-node MTBF must be > 0, got " + nodeMtbfS + " s");
        }
        if (!(checkpointS >= 0) || Double.isInfinite(checkpointS)) {
            throw new SimulationInputException("the checkpoint cost must be >= 0 and finite, got " + checkpointS + " s");
        }
        if (!(recoveryS >= 0) || Double.isInfinite(recoveryS)) {
            throw new SimulationInputException("the recovery time must be >= 0 and finite, got " + recoveryS + " s");
        }
        if (!(intervalS > 0) || Double.isInfinite(intervalS)) {
            throw new SimulationInputException("the checkpoint interval must be > 0 and finite, got " + intervalS + " s");
        }
        if (!(workS > 0) || Double.isInfinite(workS)) {
            throw new SimulationInputException("the work must be > 0 and finite, got " + workS + " s");
        }
    }

    /** The job's MTBF: any one of its nodes failing ends a stretch of work. */
    public double jobMtbfS() {
        return nodeMtbfS / nodes;
    }

    /** Segments of work, each ending in a checkpoint. */
    public long segments() {
        return Math.max(1, (long) Math.ceil(workS / intervalS));
    }

    /** The last segment's work: {@code intervalS} unless the work is not a whole number of intervals. */
    public double lastSegmentS() {
        return workS - (segments() - 1) * intervalS;
    }

    /** Useful work over wall time without failures: {@code W / (W + segments C)}; {@code tau / (tau + C)} for whole intervals. */
    public double failureFreeEfficiency() {
        return workS / (workS + segments() * checkpointS);
    }

    /**
     * Daly's expected efficiency for this configuration (computed, {@link DalyInterval#modelEfficiency});
     * without failures, its limit {@code tau / (tau + C)}.
     */
    public double dalyEfficiency() {
        double m = jobMtbfS();
        return Double.isInfinite(m) ? intervalS / (intervalS + checkpointS) : DalyInterval.modelEfficiency(intervalS, checkpointS, m, recoveryS);
    }
}
