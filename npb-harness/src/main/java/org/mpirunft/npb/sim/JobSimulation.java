package org.mpirunft.npb.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * A discrete-event simulation of one {@link JobModel}: the job works through its segments, each
 * followed by a checkpoint, and its nodes fail as a Poisson process of rate {@code 1 / jobMtbfS}
 * (the superposition of every node's exponential failures; a failed node is replaced at once, so the
 * rate stays {@code N / nodeMtbf}).
 *
 * <p>The events are failures, recovery ends and the job's end. Between two failures the job's
 * progress is deterministic (segments of {@code tau + C} one after the other), so the loop jumps
 * from one failure to the next and commits the whole segments that fit in the gap at once: its cost
 * is one step per failure, not per checkpoint, which lets a replication run for a thousand job MTBFs
 * at intervals of a fraction of a second. Because failures are memoryless, the gap to the next
 * failure is drawn afresh after each event.
 *
 * <ul>
 *   <li>A failure during work or during a checkpoint loses everything since the last committed
 *       checkpoint (a checkpoint counts once its stall is over; one struck mid-checkpoint is lost
 *       with its segment).</li>
 *   <li>Then the job pays its recovery time; a failure during the recovery starts the recovery
 *       again from scratch (the time spent on it is lost), as in Daly's model.</li>
 *   <li>Efficiency is useful work over wall time: checkpoints, lost work and recoveries are the waste.</li>
 * </ul>
 *
 * Under these assumptions Daly's expression is the exact expected wall time for whole intervals, so
 * the simulation must agree with it within its own sampling error; a difference would be a bug.
 */
public final class JobSimulation {
    /** A replication that has not finished after this many failures makes (almost) no progress: it is refused. */
    static final long MAX_FAILURES = 50_000_000L;

    private JobSimulation() {
    }

    /**
     * One replication's outcome.
     *
     * @param workS                useful work done, s (the model's)
     * @param wallS                wall time it took, s
     * @param failures             failures that struck it (during work, checkpoint or recovery)
     * @param failuresInCheckpoint of those, during a checkpoint's stall
     * @param failuresInRecovery   of those, during a recovery
     * @param lostWorkS            work done and lost to failures, s (checkpoint time lost not included)
     * @param recoveringS          wall time spent recovering, s, failed attempts included
     */
    public record Run(double workS, double wallS, long failures, long failuresInCheckpoint, long failuresInRecovery,
                      double lostWorkS, double recoveringS) {
        public double efficiency() {
            return workS / wallS;
        }
    }

    /** One replication of {@code job}, drawing failure times from {@code random}. */
    public static Run once(JobModel job, SplittableRandom random) {
        double tau = job.intervalS();
        double cost = job.checkpointS();
        double recovery = job.recoveryS();
        double mtbf = job.jobMtbfS();
        long segments = job.segments();
        double last = job.lastSegmentS();
        double segmentTime = tau + cost;

        long committed = 0;
        double wall = 0;
        long failures = 0;
        long inCheckpoint = 0;
        long inRecovery = 0;
        double lost = 0;
        double recovering = 0;
        while (true) {
            double toFailure = exponential(random, mtbf);
            long left = segments - committed;
            double toEnd = (left - 1) * segmentTime + last + cost;
            if (toFailure >= toEnd) {
                wall += toEnd;
                break;
            }
            // Whole segments that fit before the failure commit; the one it strikes is lost.
            long done = Math.min((long) (toFailure / segmentTime), left - 1);
            committed += done;
            double into = Math.max(0, toFailure - done * segmentTime);
            double struck = committed == segments - 1 ? last : tau;
            wall += toFailure;
            failures++;
            lost += Math.min(into, struck);
            if (into > struck) {
                inCheckpoint++;
            }
            while (true) {
                double toNext = exponential(random, mtbf);
                if (toNext >= recovery) {
                    wall += recovery;
                    recovering += recovery;
                    break;
                }
                wall += toNext;
                recovering += toNext;
                failures++;
                inRecovery++;
                if (failures > MAX_FAILURES) {
                    throw new SimulationInputException(stuck(job));
                }
            }
            if (failures > MAX_FAILURES) {
                throw new SimulationInputException(stuck(job));
            }
        }
        return new Run(job.workS(), wall, failures, inCheckpoint, inRecovery, lost, recovering);
    }

    /** {@code replications} independent replications, each with its own stream split from {@code random}. */
    public static Estimate replicate(JobModel job, int replications, SplittableRandom random) {
        List<Run> runs = new ArrayList<>(replications);
        for (int i = 0; i < replications; i++) {
            runs.add(once(job, random.split()));
        }
        return Estimate.of(runs);
    }

    /** An exponential gap of mean {@code mean}; none (infinite) when the mean is. */
    static double exponential(SplittableRandom random, double mean) {
        if (Double.isInfinite(mean)) {
            return Double.POSITIVE_INFINITY;
        }
        // 1 - u is in (0, 1], so the logarithm is finite.
        return -mean * Math.log(1 - random.nextDouble());
    }

    private static String stuck(JobModel job) {
        return "more than " + MAX_FAILURES + " failures in one replication (job MTBF " + job.jobMtbfS() + " s against an interval of "
                + job.intervalS() + " s, a checkpoint of " + job.checkpointS() + " s and a recovery of " + job.recoveryS()
                + " s): the job makes almost no progress; Daly's efficiency for it is " + job.dalyEfficiency();
    }
}
