package org.mpirunft.npb.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;
import org.junit.jupiter.api.Test;

class SummaryTest {
    private static final double DAY = 86400;

    @Test
    void takesMediansOverRepeatsAndLeavesOutRunsThatDoNotCount() {
        List<RunResult> runs = List.of(
                Runs.checkpointing("baseline", 1, 10.0, 0, 0), Runs.checkpointing("baseline", 2, 12.0, 0, 0),
                Runs.checkpointing("baseline", 3, 11.0, 0, 0), Runs.failed("baseline"),
                Runs.checkpointing("periodic", 1, 11.4, 7, 0.2), Runs.checkpointing("periodic", 2, 11.8, 7, 0.4),
                Runs.checkpointing("periodic", 3, 11.7, 7, 0.3),
                Runs.checkpointing("one-checkpoint", 1, 11.1, 1, 0.2),
                Runs.pause(1, 4000), Runs.pause(2, 5000), Runs.pause(3, 4500),
                Runs.restart(1, 9000), Runs.restart(2, 10000), Runs.restart(3, 8000));
        Summary.Row row = Summary.of(runs, DAY).getFirst();
        assertEquals(14, row.runs());
        assertEquals(13, row.countedRuns());
        assertEquals(11.0, row.baselineS(), "the failed run's 99 s is left out");
        assertEquals(11.7, row.periodicS());
        assertEquals(7, row.periodicCheckpoints());
        assertEquals(100 * 0.7 / 11.0, row.periodicOverheadPct(), 1e-9);
        assertEquals(100 * 0.1 / 11.0, row.oneCheckpointOverheadPct(), 1e-9);
        assertEquals(0.1, row.checkpointCostS(), 1e-9, "the periodic excess per checkpoint");
        assertEquals("periodic", row.checkpointCostFrom());
        assertEquals(DalyInterval.seconds(0.1, DAY), row.dalyIntervalS(), 1e-9);
        assertEquals(100 * 0.1 / row.dalyIntervalS(), row.dalyOverheadPct(), 1e-9);
        assertEquals(2.0, row.checkpointMbPerRank(), 1e-9, "mean of the parts, median over runs");
        assertEquals(0.3, row.stallMs(), 1e-9);
        assertEquals(4500, row.pauseRecoveryMs());
        assertEquals(9000, row.restartRecoveryMs());
        assertEquals(0.5, row.pauseRestartRatio(), 1e-12);
        assertNull(row.pauseFullRestartRatio());
        assertEquals(0.5, row.targetRatio(), 1e-12, "without a full restart the restart stands in");
        assertEquals(30.0, row.pauseTransferMs());
        assertEquals(4000.0, row.pauseTransferMBps(), 1e-9, "120 MB in 30 ms");
        assertEquals(0.5, row.transferShareOfStorage(), 1e-12, "against the 8000 MB/s storage path");
        assertEquals(4470.0, row.pauseBeyondTransferMs(), 1e-9, "median of the recoveries less their transfer");
        assertEquals(1e3 * 11.0 / 64, row.iterationMs(), 1e-9, "baseline over its iterations");
        assertEquals(15.0, row.spareIdleS(), "the longest idle spare: the third baseline's");
        assertEquals(0.03, row.spareIdleCpuS(), 1e-12);
        assertEquals(0.03, row.spareIdleCpuMaxS(), 1e-12);
    }

    @Test
    void theTargetRatioIsAgainstTheFullRestartWhenOneRan() {
        List<RunResult> runs = List.of(Runs.pause(1, 3000), Runs.restart(1, 6000),
                Runs.fullRestart(1, 12000, 5000), Runs.fullRestart(2, 16000, 5400), Runs.fullRestart(3, 15000, 5200));
        Summary.Row row = Summary.of(runs, DAY).getFirst();
        assertEquals(6000, row.restartRecoveryMs(), "full restarts are not restarts");
        assertEquals(15000, row.fullRestartRecoveryMs());
        assertEquals(5200, row.fullRestartRuntimeMs());
        assertEquals(0.5, row.pauseRestartRatio(), 1e-12);
        assertEquals(0.2, row.pauseFullRestartRatio(), 1e-12);
        assertEquals(0.2, row.targetRatio(), 1e-12);
        assertEquals(15000, row.targetRestartMs());
    }

    @Test
    void aCheckpointThatCostsNothingMeasurableFallsBackToTheStall() {
        List<RunResult> runs = List.of(Runs.checkpointing("baseline", 1, 10.0, 0, 0), Runs.checkpointing("periodic", 1, 9.9, 7, 0.25));
        Summary.Row row = Summary.of(runs, DAY).getFirst();
        assertEquals("stall", row.checkpointCostFrom());
        assertEquals(0.00025, row.checkpointCostS(), 1e-12);
        assertEquals(-1.0, row.periodicOverheadPct(), 1e-9, "a negative overhead is reported as measured");
        assertNull(row.pauseRestartRatio());
    }

    @Test
    void ratioAndOverheadNeedBothSides() {
        assertNull(Summary.ratio(null, 1.0));
        assertNull(Summary.ratio(1.0, 0.0));
        assertEquals(0.25, Summary.ratio(1.0, 4.0));
        assertNull(Summary.overhead(1.0, null));
    }

    @Test
    void groupsByStorageConfigurationAgainstTheSameBaselines() {
        List<RunResult> runs = List.of(
                Runs.checkpointing("baseline", 1, 10.0, 0, 0), Runs.stored("full", 1, 11.0, 28_000_000L, 28_000_000L),
                Runs.stored("pi", 1, 10.5, 28_000_000L, 7_000_000L),
                Runs.checkpointing("baseline", 2, 12.0, 0, 0), Runs.stored("full", 2, 13.0, 28_000_000L, 28_000_000L),
                Runs.stored("pi", 2, 12.5, 28_000_000L, 7_000_000L));
        List<Summary.Row> rows = Summary.of(runs, DAY);
        assertEquals(List.of("full", "pi"), rows.stream().map(Summary.Row::storage).toList(), "one row per configuration, in run order");
        Summary.Row full = rows.get(0);
        Summary.Row pi = rows.get(1);
        assertEquals(11.0, full.baselineS(), "both rows have the two baselines");
        assertEquals(11.0, pi.baselineS());
        assertEquals(4, full.runs(), "two baselines and its two periodic runs");
        assertEquals(12.0, full.periodicS());
        assertEquals(11.5, pi.periodicS());
        assertEquals(100 * 1.0 / 11, full.periodicOverheadPct(), 1e-9);
        assertEquals(100 * 0.5 / 11, pi.periodicOverheadPct(), 1e-9);
        assertEquals(0.5, Summary.overheadRatio(pi.periodicOverheadPct(), full.periodicOverheadPct()), 1e-9);
        assertEquals(1.0, full.compressionRatio(), 1e-12);
        assertEquals(0.25, pi.compressionRatio(), 1e-12, "total part bytes over total snapshot bytes");
        assertEquals(200.0, pi.writeMBps(), 1e-9, "4 MB in 20 ms");
        assertEquals(11.0 / 12.0, full.periodicEfficiency(), 1e-12);
        assertEquals("EP S [pi]", pi.labelWithStorage(), "plots keep the configurations apart");
    }

    @Test
    void dalyRunsGiveTheMeasuredEfficiencyBesideDalysModel() {
        DalyRun one = new DalyRun(1, 20, 2, false, List.of(1, 3), List.of("node2", "node4"), List.of("a", "b"),
                List.of(1000.0, 3000.0), 0.5, 4.0);
        DalyRun two = new DalyRun(2, 20, 1, true, List.of(2), List.of("node3"), List.of("c"), List.of(2000.0), 0.7, 6.0);
        List<RunResult> runs = List.of(Runs.checkpointing("baseline", 1, 10.0, 0, 0), Runs.checkpointing("baseline", 2, 10.0, 0, 0),
                Runs.daly("full", 1, 12.5, one), Runs.daly("full", 2, 20.0, two));
        Summary.Row row = Summary.of(runs, 20).getFirst();
        assertEquals("full", row.storage());
        assertEquals(2, row.autoRuns());
        assertEquals(1.5, row.autoFailures(), 1e-12);
        assertEquals((10 / 12.5 + 10 / 20.0) / 2, row.autoEfficiency(), 1e-12, "baseline median over each daly run, median");
        assertEquals(0.6, row.autoCostS(), 1e-12);
        assertEquals(5.0, row.autoIntervalS(), 1e-12);
        assertEquals(2.0, row.autoRecoveryS(), 1e-12, "median over all failures");
        assertEquals(DalyInterval.modelEfficiency(5.0, 0.6, 20, 2.0), row.autoModelEfficiency(), 1e-12);
        assertEquals(DalyInterval.modelEfficiency(4.0, 0.5, 20, 2.0), one.modelEfficiency(), 1e-12);
        assertNull(row.periodicEfficiency(), "no periodic run");
    }
}
