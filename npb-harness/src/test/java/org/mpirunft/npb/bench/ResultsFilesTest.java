package org.mpirunft.npb.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ResultsFilesTest {
    @TempDir
    Path dir;

    @Test
    void csvCellsAreQuotedOnlyWhenTheyMustBe() {
        assertEquals("", ResultsFiles.cell(null));
        assertEquals("1.500", ResultsFiles.cell(1.5));
        assertEquals("plain", ResultsFiles.cell("plain"));
        assertEquals("\"a, b\"", ResultsFiles.cell("a, b"));
        assertEquals("\"say \"\"hi\"\"\"", ResultsFiles.cell("say \"hi\""));
    }

    @Test
    void writesJsonThatReadsBackAndCsvWithOneRowPerRun() throws Exception {
        List<RunResult> runs = List.of(Runs.checkpointing("baseline", 1, 10.0, 0, 0), Runs.pause(1, 4000), Runs.restart(1, 9000),
                Runs.failed("periodic"));
        BenchResults results = new BenchResults(BenchResults.VERSION, "npb-harness/bin/npb-bench --classes S", "a", "b",
                Map.of("repeats", 1), runs, Summary.of(runs, 86400));
        ResultsFiles.write(dir, results);

        BenchResults back = ResultsFiles.read(dir);
        assertEquals(results.runs(), back.runs(), "runs round-trip, records included");
        assertEquals(results.summary(), back.summary());
        List<String> csv = Files.readAllLines(dir.resolve(ResultsFiles.RUNS_CSV));
        assertEquals(1 + runs.size(), csv.size());
        List<String> header = List.of(csv.getFirst().split(","));
        assertTrue(header.containsAll(List.of("kernel", "variant", "verified", "npb_s", "checkpoint_mb_per_rank", "stall_ms",
                "pause_detection_ms", "pause_replacement_start_ms", "restart_recovery_ms")), header.toString());
        String pauseRow = csv.get(2);
        assertEquals(header.size(), pauseRow.split(",", -1).length, pauseRow);
        assertTrue(pauseRow.contains(",4000.000,"), pauseRow);
        assertEquals(2, Files.readAllLines(dir.resolve(ResultsFiles.SUMMARY_CSV)).size());
    }
}
