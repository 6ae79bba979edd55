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
}
