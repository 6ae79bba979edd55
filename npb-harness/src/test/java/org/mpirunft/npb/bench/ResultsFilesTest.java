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
                Map.of("repeats", 1), runs, Summary.of(runs, 86400), List.of());
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

    @Test
    void storageLabelsTotalsAndDalyRunsRoundTrip() throws Exception {
        DalyRun daly = new DalyRun(3, 20, 1, false, List.of(2), List.of("node3"), List.of("2026-11-26T19:00:00Z"), List.of(1500.0), 0.4, 5.0);
        List<RunResult> runs = List.of(Runs.checkpointing("baseline", 1, 10.0, 0, 0), Runs.stored("pi", 1, 11.0, 4000L, 1000L),
                Runs.daly("pi", 1, 13.0, daly));
        BenchResults results = new BenchResults(BenchResults.VERSION, "x", "a", "b", Map.of("mtbfSeconds", 20), runs, Summary.of(runs, 20), List.of());
        ResultsFiles.write(dir, results);
        BenchResults back = ResultsFiles.read(dir);
        assertEquals(results.runs(), back.runs());
        assertEquals(results.summary(), back.summary());
        List<String> csv = Files.readAllLines(dir.resolve(ResultsFiles.RUNS_CSV));
        List<String> header = List.of(csv.getFirst().split(","));
        assertTrue(header.containsAll(List.of("storage", "compression_ratio", "write_mbps", "daly_failures", "daly_model_efficiency_computed")),
                header.toString());
        assertEquals("pi", csv.get(3).split(",", -1)[header.indexOf("storage")]);
        assertEquals("0.250", csv.get(2).split(",", -1)[header.indexOf("compression_ratio")]);
    }

    @Test
    void mergesBenchRunsIntoOneSetOfMediansWithTheirCommandsAndLogs() throws Exception {
        Path first = dir.resolve("bench-b3");
        Path second = dir.resolve("bench-full");
        List<RunResult> firstRuns = List.of(Runs.pause(1, 3000), Runs.restart(1, 6000));
        List<RunResult> secondRuns = List.of(Runs.fullRestart(1, 15000, 5000));
        ResultsFiles.write(first, new BenchResults(BenchResults.VERSION, "npb-bench --repeats 3", "2026-11-21T19:00:00Z",
                "2026-11-21T20:00:00Z", Map.of("repeats", 3, "mtbfSeconds", 86400), firstRuns, Summary.of(firstRuns, 86400), List.of()));
        ResultsFiles.write(second, new BenchResults(BenchResults.VERSION, "npb-bench --variants full-restart", "2026-11-21T20:10:00Z",
                "2026-11-21T20:30:00Z", Map.of("repeats", 1, "mtbfSeconds", 86400), secondRuns, Summary.of(secondRuns, 86400), List.of()));
        Path merged = dir.resolve("merged");

        int status = NpbBench.execute(new String[] {"report", first.toString(), second.toString(), "--out", merged.toString(),
                "--readme", dir.resolve("README.md").toString()}, java.time.Clock.systemUTC(), System.out, System.err);

        assertEquals(NpbBench.OK, status);
        BenchResults back = ResultsFiles.read(merged);
        assertEquals(3, back.runs().size());
        assertEquals("npb-bench --repeats 3\nnpb-bench --variants full-restart", back.command());
        assertEquals("2026-11-21T19:00:00Z", back.startedAt());
        assertEquals("2026-11-21T20:30:00Z", back.finishedAt());
        assertEquals("3 / 1", back.settings().get("repeats"));
        Summary.Row row = back.summary().getFirst();
        assertEquals(0.5, row.pauseRestartRatio(), 1e-12);
        assertEquals(0.2, row.pauseFullRestartRatio(), 1e-12);
        assertEquals("../bench-full/runs/f.log", back.runs().get(2).log());
        String md = Files.readString(dir.resolve("README.md"));
        assertTrue(md.contains("pause/full restart = 0.200 (3000 ms / 15000 ms); pause/restart = 0.500"), md);
        assertTrue(Files.isRegularFile(merged.resolve(Plots.RECOVERY)));
    }

    @Test
    void mergingNeedsAnOutputDirectoryAndOneMtbf() throws Exception {
        Path a = dir.resolve("a");
        Path b = dir.resolve("b");
        List<RunResult> runs = List.of(Runs.pause(1, 3000));
        ResultsFiles.write(a, new BenchResults(BenchResults.VERSION, "x", "s", "f", Map.of("mtbfSeconds", 86400), runs, Summary.of(runs, 86400), List.of()));
        ResultsFiles.write(b, new BenchResults(BenchResults.VERSION, "y", "s", "f", Map.of("mtbfSeconds", 600), runs, Summary.of(runs, 600), List.of()));
        var err = new java.io.ByteArrayOutputStream();
        int status = NpbBench.execute(new String[] {"report", a.toString(), b.toString()}, java.time.Clock.systemUTC(), System.out,
                new java.io.PrintStream(err, true));
        assertEquals(NpbBench.USAGE, status);
        assertTrue(err.toString().contains("needs --out DIR"), err.toString());
        err.reset();
        status = NpbBench.execute(new String[] {"report", a.toString(), b.toString(), "--out", dir.resolve("m").toString()},
                java.time.Clock.systemUTC(), System.out, new java.io.PrintStream(err, true));
        assertEquals(NpbBench.USAGE, status);
        assertTrue(err.toString().contains("its MTBF is 600 s, not 86400 s"), err.toString());
    }
}
