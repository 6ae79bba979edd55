package org.mpirunft.npb.bench;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
import java.util.zip.GZIPOutputStream;

/**
 * A results directory's evidence file, {@code verification.txt}: for each run a header line with
 * its name, its log and its verdict, then its NPB verification block ({@link VerificationBlock})
 * copied from {@code runs/JOB.log}; a run whose verification failed or is missing is said to be
 * so. The run logs stay on disk beside it but are not committed (issue 49: results kept lean), so
 * this file is what git keeps of each "verified". Above {@link #GZIP_ABOVE} bytes it is written
 * gzip'd, as {@code verification.txt.gz}.
 */
final class VerificationEvidence {
    static final String FILE = "verification.txt";
    static final String GZIP_FILE = FILE + ".gz";
    static final int GZIP_ABOVE = 256 * 1024;
    private static final String RUNS = "runs";
    private static final String LOG_SUFFIX = ".log";

    /** What one directory's file says, for the caller to print. */
    record Written(Path file, int runs, List<String> notVerified) {
    }

    private VerificationEvidence() {
    }

    /**
     * (Re)writes {@code directory}'s evidence file: the runs of {@code runs} (in their order) whose
     * logs are in the directory's {@code runs/}, then any other {@code runs/*.log} there (a run cut
     * before it was recorded), by name. The other form of the file, plain or gzip'd, is removed.
     */
    static Written write(Path directory, List<RunResult> runs) throws IOException {
        Set<String> logs = new LinkedHashSet<>();
        for (RunResult run : runs) {
            if (run.log() != null && isInRuns(Path.of(run.log()))) {
                logs.add(Path.of(run.log()).normalize().toString());
            }
        }
        Path runsDirectory = directory.resolve(RUNS);
        if (Files.isDirectory(runsDirectory)) {
            try (Stream<Path> files = Files.list(runsDirectory)) {
                files.map(f -> f.getFileName().toString()).filter(name -> name.endsWith(LOG_SUFFIX)).sorted()
                        .forEach(name -> logs.add(RUNS + "/" + name));
            }
        }
        List<String> notVerified = new ArrayList<>();
        StringBuilder blocks = new StringBuilder();
        for (String log : logs) {
            String verdict = append(blocks, directory, log);
            if (verdict != null) {
                notVerified.add(job(log) + " (" + verdict + ")");
            }
        }
        StringBuilder text = new StringBuilder();
        text.append("# NPB's verification block of each run in ").append(directory.getFileName()).append(", copied verbatim from its log ")
                .append("(runs/JOB.log, kept on disk beside this file, not in git).\n")
                .append("# Written by npb-bench; again from the logs with: npb-harness/bin/npb-bench evidence DIR\n")
                .append("# ").append(runs(logs.size())).append(", ").append(logs.size() - notVerified.size()).append(" verified")
                .append(notVerified.isEmpty() ? "" : "; not verified: " + String.join(", ", notVerified)).append("\n\n")
                .append(blocks);
        byte[] bytes = text.toString().getBytes(StandardCharsets.UTF_8);
        boolean gzip = bytes.length > GZIP_ABOVE;
        Path file = directory.resolve(gzip ? GZIP_FILE : FILE);
        Files.createDirectories(directory);
        try (OutputStream out = gzip ? new GZIPOutputStream(Files.newOutputStream(file)) : Files.newOutputStream(file)) {
            out.write(bytes);
        }
        Files.deleteIfExists(directory.resolve(gzip ? FILE : GZIP_FILE));
        return new Written(file, logs.size(), List.copyOf(notVerified));
    }

    /** The evidence file in {@code directory}, plain or gzip'd, if there is one. */
    static Optional<Path> in(Path directory) {
        return Stream.of(FILE, GZIP_FILE).map(directory::resolve).filter(Files::isRegularFile).findFirst();
    }

    /**
     * The evidence files of the directories that hold {@code runs}' logs ({@link RunResult#log()},
     * relative to {@code directory}): one for a bench run, one per part for a merged report.
     */
    static List<Path> of(List<RunResult> runs, Path directory) {
        Set<Path> directories = new LinkedHashSet<>();
        for (RunResult run : runs) {
            Path log = run.log() == null ? null : directory.resolve(run.log()).normalize();
            if (log != null && log.getParent() != null && log.getParent().getFileName().toString().equals(RUNS)) {
                directories.add(log.getParent().getParent());
            }
        }
        return directories.stream().map(VerificationEvidence::in).flatMap(Optional::stream).toList();
    }

    /** Appends one run's header and block; returns why it is not verified, or null if it is. */
    private static String append(StringBuilder text, Path directory, String log) throws IOException {
        Path file = directory.resolve(log);
        String verdict;
        VerificationBlock block = null;
        if (!Files.isRegularFile(file)) {
            verdict = "its log is missing";
        } else {
            // Decoded as LauncherJob read the output (malformed bytes replaced), line ends as its readLine took them.
            List<TimedLine> lines = new String(Files.readAllBytes(file), StandardCharsets.UTF_8).lines()
                    .map(line -> new TimedLine(Instant.EPOCH, line)).toList();
            block = VerificationBlock.of(new NpbOutput(lines));
            verdict = block.verified() ? null : block.present() ? "verification failed" : "no verification block in its log";
        }
        text.append("== ").append(job(log)).append(" (").append(log).append("): ")
                .append(verdict == null ? "verified" : "NOT VERIFIED, " + verdict).append('\n');
        if (block != null) {
            block.lines().forEach(line -> text.append(line).append('\n'));
        }
        text.append('\n');
        return verdict;
    }

    /** "1 run", "2 runs". */
    static String runs(int count) {
        return count + (count == 1 ? " run" : " runs");
    }

    private static boolean isInRuns(Path log) {
        Path normal = log.normalize();
        return normal.getNameCount() == 2 && normal.getName(0).toString().equals(RUNS);
    }

    private static String job(String log) {
        String name = Path.of(log).getFileName().toString();
        return name.endsWith(LOG_SUFFIX) ? name.substring(0, name.length() - LOG_SUFFIX.length()) : name;
    }
}
