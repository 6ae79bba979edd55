package org.mpirunft.npb.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.mpirunft.npb.bench.DalyInterval;

class JobSimulationTest {
    /** Daly's own check (FGCS 2006, Fig. 3): M = 24 h, Ts = 500 h, R = 10 min, delta = 5 min, at his optimum interval. */
    private static final double HOUR = 3600;

    @Test
    void withoutFailuresTheEfficiencyIsExactlyTauOverTauPlusC() {
        JobModel whole = new JobModel(1000, Double.POSITIVE_INFINITY, 10, 50, 100, 100 * 1000);
        JobSimulation.Run run = JobSimulation.once(whole, new SplittableRandom(1));
        assertEquals(0, run.failures());
        assertEquals(100.0 / 110, run.efficiency(), 1e-12, "whole intervals: tau / (tau + C)");
        assertEquals(100.0 / 110, whole.failureFreeEfficiency(), 1e-12);
        assertEquals(100.0 / 110, whole.dalyEfficiency(), 1e-12, "Daly's limit for M to infinity");

        // The tail: 1050 s of work at tau 100 is 11 segments, the last of 50 s, each with its checkpoint.
        JobModel tail = new JobModel(4, Double.POSITIVE_INFINITY, 10, 50, 100, 1050);
        assertEquals(1050.0 / (1050 + 11 * 10), JobSimulation.once(tail, new SplittableRandom(1)).efficiency(), 1e-12);
    }

    @Test
    void reproducesDalysExpectedEfficiencyWithinTwoPercent() {
        double m = 24 * HOUR;
        double delta = 5 * 60;
        double restart = 10 * 60;
        double tau = DalyInterval.seconds(delta, m);
        assertEquals(117, tau / 60, 1, "Daly's text: the model predicts tau_opt = 117 min");
        JobModel job = new JobModel(1, m, delta, restart, tau, 500 * HOUR);
        Estimate simulated = JobSimulation.replicate(job, 2000, new SplittableRandom(2006));
        double daly = job.dalyEfficiency();
        double relative = Math.abs(simulated.mean() - daly) / daly;
        assertTrue(relative < 0.02, "simulated " + simulated.mean() + " against Daly's " + daly + ": " + 100 * relative + "% apart");
        // His expression is the exact expectation of this model, so the gap is sampling error only (4 SE: not flaky at this seed).
        assertTrue(Math.abs(simulated.mean() - daly) < 4 * simulated.standardError(),
                "simulated " + simulated.mean() + " +- " + simulated.standardError() + " against Daly's " + daly);
        assertTrue(simulated.failures() > 15, "about Ts / M = 21 failures per job, got " + simulated.failures());
    }

    @Test
    void agreesWithDalyWhereFailuresStrikeCheckpointsAndRecoveriesOften() {
        // tau 100, C 10, R 50, M 1000: DalyIntervalTest's hand-computed 0.818064.
        JobModel job = new JobModel(10, 10_000, 10, 50, 100, 100 * 20_000);
        Estimate simulated = JobSimulation.replicate(job, 20, new SplittableRandom(7));
        assertEquals(0.818064, job.dalyEfficiency(), 1e-6);
        assertEquals(job.dalyEfficiency(), simulated.mean(), 0.02 * job.dalyEfficiency());
        assertTrue(Math.abs(simulated.mean() - job.dalyEfficiency()) < 4 * simulated.standardError(),
                simulated.mean() + " +- " + simulated.standardError());
    }

    @Test
    void failuresAreInjectedAndCostEfficiency() {
        JobModel job = new JobModel(100, 100_000, 10, 50, 100, 100 * 10_000);
        JobSimulation.Run run = JobSimulation.once(job, new SplittableRandom(3));
        // About W / M = 1,000 failures, some during checkpoints (C / (tau + C) of the time) and recoveries.
        assertTrue(run.failures() > 900, "failures " + run.failures());
        assertTrue(run.failuresInCheckpoint() > 30, "failures in checkpoints " + run.failuresInCheckpoint());
        assertTrue(run.failuresInRecovery() > 10, "failures in recoveries " + run.failuresInRecovery());
        assertTrue(run.lostWorkS() > 0, "work is lost");
        // Each failure outside a recovery starts one recovery, which ends after 50 s without a failure.
        assertTrue(run.recoveringS() >= (run.failures() - run.failuresInRecovery()) * 50.0 - 1e-6, "recoveries are paid for");
        assertTrue(run.efficiency() < job.failureFreeEfficiency() - 0.05,
                "efficiency " + run.efficiency() + " must be well below the failure-free " + job.failureFreeEfficiency());
        // Wall time is work, checkpoints, lost work and recoveries, each counted once.
        double checkpointsAndLostCheckpoints = run.wallS() - run.workS() - run.lostWorkS() - run.recoveringS();
        assertTrue(checkpointsAndLostCheckpoints >= job.segments() * job.checkpointS() - 1e-6, "the checkpoints are paid for");
    }

    @Test
    void aSeedGivesTheSameResultAndReplicationsDiffer() {
        JobModel job = new JobModel(1000, 5 * 365 * 86400.0, 1, 5, 180, 180 * 100_000);
        Estimate a = JobSimulation.replicate(job, 5, new SplittableRandom(11));
        Estimate b = JobSimulation.replicate(job, 5, new SplittableRandom(11));
        assertEquals(a, b);
        assertTrue(a.standardError() > 0, "independent replications differ");
    }

    @Test
    void aJobModelRefusesANonPositiveMtbf() {
        SimulationInputException e = assertThrows(SimulationInputException.class, () -> new JobModel(10, 0, 1, 1, 10, 100));
        assertEquals("the per-node MTBF must be > 0, got 0.0 s", e.getMessage());
        assertThrows(SimulationInputException.class, () -> new JobModel(0, 10, 1, 1, 10, 100));
        assertThrows(SimulationInputException.class, () -> new JobModel(10, 10, 1, 1, 0, 100));
    }
}
