package org.mpirunft.npb.bench;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.mpirunft.npb.bench.ThroughputRates.EpochRate;

class ThroughputTest {
    @Test
    void theReportShowsEveryLevelsRatioAndVerdictAndTheOverallOne() {
        List<EpochRate> epochs = List.of(new EpochRate(1, "local", 4, 464_500_000L, 400, 1161.0, 500, 0.2, 0.6),
                new EpochRate(1, "shared", 4, 464_500_000L, 800, 580.6, 300, 0.2, 0.6));
        var local = ThroughputRates.levelResult("local", epochs, 1500, 1200, 0.7);
        var shared = ThroughputRates.levelResult("shared", epochs, 1500, 1200, 0.7);
        Throughput.Result result = new Throughput.Result("npb-harness/bin/npb-bench throughput", "t0", "t1", Map.of(), "mg-B-job", null,
                10.2, 9L, "DiskProbe: m", List.of(new Throughput.Probe("local", "/x", 4, List.of(116_100_000L), List.of(1500.0), 1500)),
                List.of(new Throughput.StoreAlone("local", List.of(1400.0), 1400, 1400 / 1500.0)), epochs, List.of(local, shared), 0.7,
                ThroughputRates.allPass(List.of(local, shared)) ? "PASS" : "FAIL");
        String md = Throughput.render(result);
        assertTrue(md.contains("| local | 1161.0 | 1500.0 | 0.77 |"), md);
        assertTrue(md.contains("| 0.70 | PASS |"), md);
        assertTrue(md.contains("| shared | 580.6 | 1500.0 | 0.39 |"), md);
        assertTrue(md.contains("| 0.70 | FAIL |"), md);
        assertTrue(md.contains("Overall: **FAIL**"), md);
        assertTrue(md.contains("| local | 4 | [116.1] | [1500] | 1500.0 |"), md);
        assertTrue(md.contains("| local | [1400] | 1400.0 | 0.93 |"), md);
    }

    @Test
    void onOneDiskTheLevelsOwnRowsAreForInformationAndTheVerdictIsBothLevelsTogether() {
        List<EpochRate> epochs = List.of(new EpochRate(1, "local", 4, 300_000_000L, 300, 1000.0, 400, 0.2, 0.0),
                new EpochRate(1, "shared", 4, 300_000_000L, 200, 1500.0, 600, 0.2, 0.0),
                new EpochRate(1, ThroughputRates.BOTH, 4, 600_000_000L, 375, 1600.0, 500, 0.2, 0.0));
        var levels = List.of(ThroughputRates.levelResult("local", epochs, 2000, 1500, 0.7),
                ThroughputRates.levelResult("shared", epochs, 2000, 1500, 0.7),
                ThroughputRates.levelResult(ThroughputRates.BOTH, epochs, 2000, Double.NaN, 0.7));
        Throughput.Result result = new Throughput.Result("npb-harness/bin/npb-bench throughput", "t0", "t1", Map.of(), "mg-B-job", null,
                7.1, 9L, "DiskProbe: m", List.of(), List.of(), epochs, levels, 0.7,
                ThroughputRates.allPass(ThroughputRates.judged(levels)) ? "PASS" : "FAIL");
        String md = Throughput.render(result);
        assertTrue(md.contains("| local | 1000.0 | 2000.0 | 0.50 | 400.0 | 1500.0 | 0.27 | 0.70 | FAIL (for information) |"), md);
        assertTrue(md.contains("| local+shared | 1600.0 | 2000.0 | 0.80 | 500.0 | n/a | n/a | 0.70 | PASS |"), md);
        assertTrue(md.contains("on one disk here"), md);
        assertTrue(md.contains("Overall: **PASS**"), md);
    }
}
