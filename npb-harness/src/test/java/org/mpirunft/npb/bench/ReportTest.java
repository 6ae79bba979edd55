package org.mpirunft.npb.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReportTest {
    @TempDir
    Path dir;

    private BenchResults results() {
        List<RunResult> runs = List.of(Runs.checkpointing("baseline", 1, 10.0, 0, 0), Runs.checkpointing("periodic", 1, 11.4, 7, 0.2),
                Runs.pause(1, 4000), Runs.restart(1, 9000), Runs.failed("one-checkpoint"));
        return new BenchResults(BenchResults.VERSION, "npb-harness/bin/npb-bench --kernels ep --classes S", "2026-11-21T16:00:00Z",
                "2026-11-21T16:05:00Z", Map.of("repeats", 1, "spares", 1, "cores", 2, "mtbfSeconds", 86400, "paceMs", 40),
                runs, Summary.of(runs, 86400), List.of());
    }

    @Test
    void plotsArePngImages() throws Exception {
        List<String> written = Plots.write(dir, results().summary());
        assertEquals(List.of(Plots.OVERHEAD, Plots.RECOVERY, Plots.RECOVERY_SPLIT, Plots.CHECKPOINT_SIZE,
                Plots.PAPER_CHECKPOINT_SIZE), written,
                "EP S on 4 nodes has a size beside the paper's but no full restart");
        for (String name : written) {
            assertTrue(ImageIO.read(dir.resolve(name).toFile()).getWidth() > 100, name);
        }
    }

    @Test
    void theReadmeStatesTheCommandTheRatioTheOverheadAndWhatMissesTheTarget() throws Exception {
        Path bench = dir.resolve("bench-1");
        BenchResults results = results();
        String md = ReadmeReport.render(results, bench, dir.resolve("README.md"), List.of(Plots.RECOVERY));
        assertTrue(md.contains("npb-harness/bin/npb-bench --kernels ep --classes S"), "the exact command");
        assertTrue(md.contains("pause/restart = 0.444 (4000 ms / 9000 ms)"), md);
        assertTrue(md.contains("misses the 0.2 target by 0.244"), md);
        assertTrue(md.contains("pause would have to take <= 1800 ms, 2200 ms less"), md);
        assertTrue(md.contains("replacement start 2500 ms (63%)"), "the largest part first: " + md);
        assertTrue(md.contains("within the 2% target"), md);
        assertTrue(md.contains("1.056"), "the paper's ratio beside ours");
        assertTrue(md.contains("250.88 / 127.17 / 63.50") || md.contains("1.33 / 1.33 / 1.33"), "the paper's Table 1");
        assertTrue(md.contains("![recovery](bench-1/recovery.png)"), md);
        assertTrue(md.contains("`bad`: NPB verification failed"), "runs that do not count are listed");
    }

    @Test
    void theReadmeNamesTheEvidenceFileBesideTheResultsFilesAndSaysTheLogsAreNotInGit() throws Exception {
        Path bench = dir.resolve("bench-1");
        BenchResults results = results();
        String without = ReadmeReport.render(results, bench, dir.resolve("README.md"), List.of());
        assertFalse(without.contains("(bench-1/" + VerificationEvidence.FILE + ")"), "no link to a file that is not there");
        VerificationEvidence.write(bench, results.runs());
        String md = ReadmeReport.render(results, bench, dir.resolve("README.md"), List.of());
        assertTrue(md.contains("[`summary.csv`](bench-1/summary.csv)); each run's NPB verification block is in "
                + "[`verification.txt`](bench-1/verification.txt); regenerate it"), md);
        assertTrue(md.contains("are kept on disk beside it, not in git"), md);
    }

    @Test
    void theReadmeSetsTheMoveAgainstThePauseItAvoidsWithTheLostIterationsComputed() {
        // Baseline 10 s over 64 iterations: 156.25 ms per iteration; the pause redid 6 of them.
        List<RunResult> runs = List.of(Runs.checkpointing("baseline", 1, 10.0, 0, 0), Runs.pauseLosing(1, 4000, 6),
                Runs.migration(1, 300));
        BenchResults results = new BenchResults(BenchResults.VERSION, "npb-bench --variants baseline,pause,migration", "s", "f",
                Map.of("repeats", 1, "spares", 1, "cores", 2, "mtbfSeconds", 86400), runs, Summary.of(runs, 86400), List.of());
        Summary.Row row = results.summary().getFirst();
        assertEquals(4000 + 6 * 156.25, row.pauseCostMs(), 1e-9);
        assertEquals(300 / (4000 + 6 * 156.25), row.migrationPauseRatio(), 1e-9);
        String md = ReadmeReport.render(results, dir.resolve("bench-1"), dir.resolve("README.md"), List.of());
        assertTrue(md.contains("## Migration against the pause it avoids"), md);
        assertTrue(md.contains("| EP | S | 4 | 300 | 150 | 80 | 12.5 | 110 | 2.00 | 4000 | 6 | 156 | 4938 | 0.061 | yes, by 4638 ms |"), md);
    }

    @Test
    void theReadmeSetsStorageConfigurationsSideBySideAndLabelsDalysModelComputed() {
        DalyRun daly = new DalyRun(1, 20, 2, true, List.of(1, 3), List.of("node2", "spare1"), List.of("a", "b"),
                List.of(1000.0, 3000.0), 0.5, 4.0);
        List<RunResult> runs = List.of(Runs.checkpointing("baseline", 1, 10.0, 0, 0),
                Runs.stored("full", 1, 12.0, 28_000_000L, 28_000_000L), Runs.stored("pi", 1, 11.0, 28_000_000L, 7_000_000L),
                Runs.daly("full", 1, 12.5, daly));
        BenchResults results = new BenchResults(BenchResults.VERSION, "npb-bench --storage full= --storage pi=...", "s", "f",
                Map.of("repeats", 1, "spares", 2, "cores", 2, "mtbfSeconds", 20, "seed", 1), runs, Summary.of(runs, 20), List.of());
        String md = ReadmeReport.render(results, dir.resolve("bench-1"), dir.resolve("README.md"), List.of());
        assertTrue(md.contains("## Storage configurations side by side"), md);
        assertTrue(md.contains("| EP | S | 4 | pi | 11.00 (7) | 10.0 | 0.50 |"), "overhead and its ratio to the first config: " + md);
        assertTrue(md.contains("| 0.250 | 200 |"), "compression ratio and write speed: " + md);
        assertTrue(md.contains("## Efficiency at Daly's interval under failures"), md);
        assertTrue(md.contains("| `ep-S-n4-daly-full-r1` | full | 1 | 2 | yes | 12.50 | 0.800 | 0.500 | 4.0 | 2.00 | "
                + String.format(java.util.Locale.ROOT, "%.3f", DalyInterval.modelEfficiency(4, 0.5, 20, 2)) + " |"), md);
        assertTrue(md.contains("efficiency, computed (Daly's model)"), md);
        assertTrue(md.contains("EP [pi]"), "the overhead table names the configuration: " + md);
    }
}
