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
}
