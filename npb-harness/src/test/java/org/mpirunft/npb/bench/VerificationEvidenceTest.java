package org.mpirunft.npb.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class VerificationEvidenceTest {
    private static final String FAILED_LOG = """
            [npb] iteration 63 of 64
             VERIFICATION FAILED
             Verification    =             UNSUCCESSFUL
            """;

    @TempDir
    Path dir;

    private Path log(Path directory, String job, String text) throws Exception {
        Path file = directory.resolve("runs").resolve(job + ".log");
        Files.createDirectories(file.getParent());
        Files.writeString(file, text);
        return file;
    }

    private static RunResult run(String log) {
        return Runs.checkpointing("baseline", 1, 10.0, 0, 0).withLog(log);
    }

    @Test
    void holdsEachRunsBlockInTheResultsOrderThenTheOtherLogsAndSaysWhichAreNotVerified() throws Exception {
        log(dir, "cg", VerificationBlockTest.CG_LOG);
        log(dir, "bad", FAILED_LOG);
        log(dir, "cut", "[npb] iteration 3 of 64\n");
        log(dir, "another", VerificationBlockTest.CG_LOG);

        VerificationEvidence.Written written = VerificationEvidence.write(dir,
                List.of(run("runs/cg.log"), run("runs/bad.log"), run("runs/lost.log"), run("runs/cut.log")));

        assertEquals(dir.resolve(VerificationEvidence.FILE), written.file());
        assertEquals(5, written.runs());
        assertEquals(List.of("bad (verification failed)", "lost (its log is missing)", "cut (no verification block in its log)"),
                written.notVerified());
        String text = Files.readString(written.file());
        List<String> headers = text.lines().filter(l -> l.startsWith("== ")).toList();
        assertEquals(List.of("== cg (runs/cg.log): verified", "== bad (runs/bad.log): NOT VERIFIED, verification failed",
                "== lost (runs/lost.log): NOT VERIFIED, its log is missing",
                "== cut (runs/cut.log): NOT VERIFIED, no verification block in its log",
                "== another (runs/another.log): verified"), headers);
        assertTrue(text.contains("== cg (runs/cg.log): verified\n" + String.join("\n", VerificationBlockTest.CG_BLOCK) + "\n\n"), text);
        assertTrue(text.contains("NOT VERIFIED, verification failed\n VERIFICATION FAILED\n Verification    =             UNSUCCESSFUL\n"),
                text);
        assertTrue(text.contains("# 5 runs, 2 verified; not verified: bad (verification failed), lost (its log is missing), "
                + "cut (no verification block in its log)\n"), text);
    }

    @Test
    void isGzippedAboveItsLimitAndTheOtherFormIsRemoved() throws Exception {
        Files.writeString(dir.resolve(VerificationEvidence.FILE), "old");
        String block = String.join("\n", VerificationBlockTest.CG_BLOCK) + "\n";
        int runs = VerificationEvidence.GZIP_ABOVE / block.length() + 1;
        for (int i = 0; i < runs; i++) {
            log(dir, String.format("run-%04d", i), "[npb] iteration 74 of 75\n" + block);
        }
        VerificationEvidence.Written written = VerificationEvidence.write(dir, List.of());
        assertEquals(dir.resolve(VerificationEvidence.GZIP_FILE), written.file());
        assertFalse(Files.exists(dir.resolve(VerificationEvidence.FILE)), "the plain file of an earlier write is gone");
        try (InputStream in = new GZIPInputStream(Files.newInputStream(written.file()))) {
            String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            assertEquals(runs, text.lines().filter(l -> l.endsWith("): verified")).count());
        }
        assertEquals(written.file(), VerificationEvidence.in(dir).orElseThrow());

        Files.list(dir.resolve("runs")).skip(1).forEach(f -> f.toFile().delete());
        assertEquals(dir.resolve(VerificationEvidence.FILE), VerificationEvidence.write(dir, List.of()).file(), "small again");
        assertFalse(Files.exists(dir.resolve(VerificationEvidence.GZIP_FILE)));
    }

    @Test
    void aMergedReportsRunsNameTheEvidenceOfEachPart() throws Exception {
        Path first = dir.resolve("bench-b3");
        Path second = dir.resolve("bench-full");
        log(first, "p", VerificationBlockTest.CG_LOG);
        VerificationEvidence.write(first, List.of(run("runs/p.log")));
        Files.createDirectories(second);
        List<RunResult> merged = List.of(run("../bench-b3/runs/p.log"), run("../bench-full/runs/f.log"), run("../bench-b3/runs/q.log"));
        assertEquals(List.of(first.resolve(VerificationEvidence.FILE)), VerificationEvidence.of(merged, dir.resolve("merged")),
                "a part without an evidence file is left out");
    }

    @Test
    void theEvidenceCommandRewritesTheFileFromTheLogsOfEachDirectory() throws Exception {
        Path bench = dir.resolve("bench-1");
        log(bench, "cg", VerificationBlockTest.CG_LOG);
        log(bench, "bad", FAILED_LOG);
        List<RunResult> runs = List.of(run("runs/cg.log"), run("runs/bad.log"));
        ResultsFiles.write(bench, new BenchResults(BenchResults.VERSION, "x", "a", "b", Map.of("mtbfSeconds", 86400), runs,
                Summary.of(runs, 86400), List.of()));
        PrintStream console = System.out;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int status;
        try {
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            status = NpbBench.execute(new String[] {"evidence", bench.toString()}, Clock.systemUTC(), System.out, System.err);
        } finally {
            System.setOut(console);
        }
        assertEquals(NpbBench.OK, status);
        assertEquals("npb-bench: evidence " + bench.resolve(VerificationEvidence.FILE) + ": 2 runs, 1 verified; not verified: "
                + "bad (verification failed)\n", out.toString(StandardCharsets.UTF_8));
        assertTrue(Files.readString(bench.resolve(VerificationEvidence.FILE)).startsWith("# NPB's verification block of each run in bench-1"));

        int noRuns = NpbBench.execute(new String[] {"evidence", dir.resolve("empty").toString()}, Clock.systemUTC(),
                new PrintStream(new ByteArrayOutputStream(), true), new PrintStream(new ByteArrayOutputStream(), true));
        assertEquals(NpbBench.USAGE, noRuns);
    }
}
