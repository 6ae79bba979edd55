package org.mpirunft.npb.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A class that does not fit this machine is listed with the reason, and the stand-in class runs in its place. */
class FitTest {
    private static final Duration BOUND = Duration.ofMinutes(30);

    @TempDir
    Path dir;

    private static List<TimedLine> lines(String... texts) {
        return java.util.Arrays.stream(texts).map(t -> new TimedLine(Instant.EPOCH, t)).toList();
    }

    @Test
    void aRankOutOfHeapInAnyVariantOrABaselineOutOfTimeIsAMisfit() {
        List<TimedLine> oom = lines("[npb] iteration 3 of 20", "Exception in thread \"main\" java.lang.OutOfMemoryError: Java heap space");
        Optional<String> memory = Fit.misfit(Variant.ONE_CHECKPOINT, Optional.of(1), oom, BOUND, 2048);
        assertTrue(memory.orElseThrow().startsWith("a rank ran out of memory in its 2048 MiB heap"), memory.toString());
        assertTrue(memory.get().endsWith("java.lang.OutOfMemoryError: Java heap space"), "the line itself is the evidence: " + memory);

        Optional<String> time = Fit.misfit(Variant.BASELINE, Optional.empty(), lines("[npb] iteration 3 of 20"), BOUND, 2048);
        assertEquals(Optional.of("the baseline did not end within 1800 s (--run-timeout)"), time);

        assertEquals(Optional.empty(), Fit.misfit(Variant.PAUSE, Optional.empty(), lines("[npb] iteration 3 of 20"), BOUND, 2048),
                "a recovery that does not end is a failure to report: the baseline showed the class fits");
        assertEquals(Optional.empty(), Fit.misfit(Variant.BASELINE, Optional.of(0), lines(" Verification    = SUCCESSFUL"), BOUND, 2048));
    }

    @Test
    void theClassesLaterRunsAreListedAsNotMadeAndTheStandInsRunsTakeTheirPlace() {
        BenchSettings settings = NpbBenchTest.settings("--kernels", "ep,cg", "--classes", "C", "--repeats", "2",
                "--variants", "baseline,one-checkpoint,pause", "--stand-in", "B", "--out", dir.toString());
        ByteArrayOutputStream console = new ByteArrayOutputStream();
        BenchRunner runner = new BenchRunner(settings, Clock.systemUTC(), new PrintStream(console, true, StandardCharsets.UTF_8));
        List<RunPlan> queue = new ArrayList<>(runner.plans().getFirst());
        assertEquals(12, queue.size());

        int gained = runner.replaceMisfits(queue, 0, queue.getFirst(), "the baseline did not end within 1800 s (--run-timeout)",
                "ep-C-n4-baseline-r1-x");

        assertEquals(6 - 5, gained, "EP C's 5 later runs out, EP B's 6 in");
        assertEquals(List.of("ep C baseline 1", "ep B baseline 1", "ep B one-checkpoint 1", "ep B pause 1", "ep B baseline 2",
                        "ep B one-checkpoint 2", "ep B pause 2", "cg C baseline 1"),
                queue.subList(0, 8).stream().map(p -> p.kernel() + " " + p.cls() + " " + p.variant() + " " + p.repeat()).toList());
        assertTrue(queue.stream().skip(1).noneMatch(p -> p.kernel().equals("ep") && p.cls() == org.mpirunft.npb.NpbClass.C));
        assertTrue(console.toString(StandardCharsets.UTF_8).contains("ep class C does not fit on 4 nodes: the baseline did not end "
                + "within 1800 s (--run-timeout); 5 runs not made, class B stands in (6 runs)"), console.toString(StandardCharsets.UTF_8));
    }

    @Test
    void runsNotMadeAreKeptInTheResultsAndListedInTheReadme() throws Exception {
        List<RunResult> runs = List.of(Runs.checkpointing("baseline", 1, 10.0, 0, 0));
        NotRun notRun = new NotRun("ft", "C", 16, List.of("one-checkpoint", "pause"), "a rank ran out of memory in its 1000 MiB heap",
                "ft-C-n16-baseline-r1-x", "B");
        ResultsFiles.write(dir, new BenchResults(BenchResults.VERSION, "npb-bench", "a", "b", Map.of("mtbfSeconds", 86400), runs,
                Summary.of(runs, 86400), List.of(notRun)));
        BenchResults back = ResultsFiles.read(dir);
        assertEquals(List.of(notRun), back.notRun());

        String readme = ReadmeReport.render(back, dir, dir.resolve("README.md"), List.of());
        assertTrue(readme.contains("- FT class C on 16 nodes: 2 runs (one-checkpoint, pause). a rank ran out of memory in its 1000 MiB heap "
                + "(shown by `ft-C-n16-baseline-r1-x`). Class B stands in."), readme);

        Path old = Files.createDirectories(dir.resolve("old"));
        Files.writeString(old.resolve(ResultsFiles.JSON_FILE), Files.readString(dir.resolve(ResultsFiles.JSON_FILE))
                .replaceAll(",\\s*\"notRun\"\\s*:\\s*\\[[^\\]]*\\]", ""));
        assertEquals(List.of(), ResultsFiles.read(old).notRun(), "results from before the list read as none not run");
    }
}
