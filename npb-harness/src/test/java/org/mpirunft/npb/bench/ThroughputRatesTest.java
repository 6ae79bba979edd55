package org.mpirunft.npb.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.mpirunft.npb.bench.NpbOutput.PartWrite;
import org.mpirunft.npb.bench.ThroughputRates.EpochRate;
import org.mpirunft.npb.bench.ThroughputRates.LevelResult;

class ThroughputRatesTest {
    private static final String LOCAL = "/local/ckpt";
    private static final String SHARED = "/var/tmp/npb-bench-x/ckpt";

    /** A write of {@code mb} MB starting {@code atMs} after a common origin and lasting {@code ms}. */
    private static PartWrite write(int rank, long epoch, String root, long mb, double atMs, double ms) {
        return new PartWrite(rank, epoch, root.equals(LOCAL) ? "write" : "copy", mb * 1_000_000, 1_000_000_000L + (long) (atMs * 1e3),
                ms * 0.9, ms, ms / 4, ms / 2, root);
    }

    @Test
    void theAggregateRateIsAllRanksBytesOverFirstStartToLastEnd() {
        // Four ranks of 100 MB: starts at 0..30 ms, the last one ends at 30 + 370 = 400 ms.
        List<PartWrite> epoch = List.of(write(0, 1, LOCAL, 100, 0, 200), write(1, 1, LOCAL, 100, 10, 300),
                write(2, 1, LOCAL, 100, 20, 250), write(3, 1, LOCAL, 100, 30, 370));
        EpochRate rate = ThroughputRates.epochRate(1, ThroughputRates.LOCAL, epoch);
        assertEquals(4, rate.writers());
        assertEquals(400_000_000L, rate.bytes());
        assertEquals(400.0, rate.spanMs(), 1e-9);
        assertEquals(1000.0, rate.aggregateMBps(), 1e-9, "400 MB in 0.4 s");
        // Per rank: 500, 333.3, 400, 270.3 MB/s; the median of four is the mean of the middle two.
        assertEquals((400.0 + 100_000.0 / 300) / 2, rate.rankMBps(), 1e-9);
        assertEquals(0.25, rate.cpuShare(), 1e-9);
        assertEquals(0.5, rate.runQueueShare(), 1e-9);
    }

    @Test
    void writesGoToTheLocalLevelByTheirStoresRootAndEverythingElseIsShared() {
        assertEquals(ThroughputRates.LOCAL, ThroughputRates.levelOf(write(0, 1, LOCAL, 1, 0, 1), "/local/ckpt/"));
        assertEquals(ThroughputRates.SHARED, ThroughputRates.levelOf(write(0, 1, SHARED, 1, 0, 1), LOCAL));
    }

    @Test
    void anEpochNotEveryRankFinishedWritingIsLeftOut() {
        List<PartWrite> writes = new ArrayList<>();
        for (int rank = 0; rank < 2; rank++) {
            writes.add(write(rank, 1, LOCAL, 10 + rank, 0, 100));
            writes.add(write(rank, 1, SHARED, 10 + rank, 100, 100));
            writes.add(write(rank, 2, LOCAL, 20 + rank, 1000, 100));
        }
        // Rank 1's last copy was still under way when it printed.
        writes.add(write(0, 2, SHARED, 20, 1100, 100));
        List<EpochRate> rates = ThroughputRates.epochRates(writes, LOCAL);
        assertEquals(List.of("local 1", "local 2", "shared 1"), rates.stream().map(r -> r.level() + " " + r.epoch()).toList());
        assertEquals(List.of(20_000_000L, 21_000_000L), ThroughputRates.newestPartSizes(writes, LOCAL, ThroughputRates.LOCAL),
                "the newest complete epoch's parts, in rank order");
        assertEquals(List.of(10_000_000L, 11_000_000L), ThroughputRates.newestPartSizes(writes, LOCAL, ThroughputRates.SHARED));
        assertEquals(List.of(), ThroughputRates.newestPartSizes(List.of(), LOCAL, ThroughputRates.SHARED));
    }

    @Test
    void theVerdictComparesTheMedianAggregateRateWithTheDiskUnderTheSameConcurrency() {
        List<EpochRate> rates = List.of(
                new EpochRate(1, "local", 4, 400, 1, 600.0, 150.0, 0.2, 0.7),
                new EpochRate(2, "local", 4, 400, 1, 800.0, 210.0, 0.2, 0.7),
                new EpochRate(3, "local", 4, 400, 1, 750.0, 190.0, 0.2, 0.7),
                new EpochRate(1, "shared", 4, 400, 1, 100.0, 30.0, 0.2, 0.7));
        LevelResult local = ThroughputRates.levelResult("local", rates, 1000.0, 500.0, 0.7);
        assertEquals(3, local.epochs());
        assertEquals(750.0, local.aggregateMBps(), 1e-9);
        assertEquals(0.75, local.ratio(), 1e-9, "aggregate over the disk with one writer per rank");
        assertEquals(190.0 / 500.0, local.rankRatio(), 1e-9, "per rank over one writer alone, for information");
        assertTrue(local.pass());
        LevelResult shared = ThroughputRates.levelResult("shared", rates, 1000.0, 500.0, 0.7);
        assertEquals(0.1, shared.ratio(), 1e-9);
        assertFalse(shared.pass());
        assertFalse(ThroughputRates.allPass(List.of(local, shared)));
        assertTrue(ThroughputRates.allPass(List.of(local)));
        assertFalse(ThroughputRates.allPass(List.of()), "no level measured is no pass");
    }

    @Test
    void theTargetIsInclusiveAndAnUnmeasuredRatioFails() {
        assertTrue(ThroughputRates.verdict(0.7, 0.7));
        assertFalse(ThroughputRates.verdict(0.6999, 0.7));
        assertFalse(ThroughputRates.verdict(Double.NaN, 0.7));
        assertTrue(Double.isNaN(ThroughputRates.ratio(500, 0)), "no disk bandwidth measured");
        assertTrue(Double.isNaN(ThroughputRates.megabytesPerSecond(100, 0)));
        assertEquals(250.0, ThroughputRates.megabytesPerSecond(1_000_000, 4), 1e-9, "1 MB in 4 ms");
        LevelResult none = ThroughputRates.levelResult("local", List.of(), 1000.0, 500.0, 0.7);
        assertFalse(none.pass());
    }

    @Test
    void onOneDiskBothLevelsOfAnEpochCountTogetherFromTheFirstWriteToTheLastCopy() {
        // Two ranks: local writes at 0-100 and 20-150 ms, copies at 100-200 and 150-300 ms.
        List<PartWrite> writes = List.of(write(0, 1, LOCAL, 100, 0, 100), write(1, 1, LOCAL, 100, 20, 130),
                write(0, 1, SHARED, 100, 100, 100), write(1, 1, SHARED, 100, 150, 150),
                // Epoch 2 has no copies yet: not counted.
                write(0, 2, LOCAL, 100, 1000, 100), write(1, 2, LOCAL, 100, 1000, 100));
        List<EpochRate> both = ThroughputRates.bothLevelRates(writes, LOCAL);
        assertEquals(1, both.size());
        EpochRate rate = both.getFirst();
        assertEquals(ThroughputRates.BOTH, rate.level());
        assertEquals(2, rate.writers());
        assertEquals(400_000_000L, rate.bytes());
        assertEquals(300.0, rate.spanMs(), 1e-9);
        assertEquals(400.0 / 0.3, rate.aggregateMBps(), 1e-9);
    }

    @Test
    void theVerdictIsOnBothLevelsTogetherWhenTheyWereProbedOnOneDisk() {
        LevelResult local = new LevelResult("local", 9, 1000, 400, 2000, 1500, 0.5, 0.27, 0.7, false);
        LevelResult shared = new LevelResult("shared", 9, 1500, 600, 2000, 1500, 0.75, 0.4, 0.7, true);
        LevelResult both = new LevelResult(ThroughputRates.BOTH, 9, 1600, 500, 2000, Double.NaN, 0.8, Double.NaN, 0.7, true);
        assertEquals(List.of(both), ThroughputRates.judged(List.of(local, shared, both)));
        assertTrue(ThroughputRates.allPass(ThroughputRates.judged(List.of(local, shared, both))));
        assertEquals(List.of(local, shared), ThroughputRates.judged(List.of(local, shared)));
        assertFalse(ThroughputRates.allPass(ThroughputRates.judged(List.of(local, shared))));
    }
}
