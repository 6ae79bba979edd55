package org.mpirunft.launcher;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads {@link JobSignal}s from the job's output lines: what the rank library and mpirun print.
 * Lines may carry mpirun's {@code --output tag} prefix.
 * The patterns are those of the rank library (blcr-bridge's {@code RecoveryReport.toLine},
 * {@code RankRuntime}'s finalize watchdog, {@code BridgeException} messages) and of PRRTE 5.
 */
public final class JobOutputClassifier {
    private static final Pattern RANK_LOST = Pattern.compile(
            "noticed that process rank (\\d+) with PID \\d+ on node (\\S+) exited on");
    private static final Pattern RUNTIME_LOST = Pattern.compile("(PRTE|ORTE) has lost communication with a remote daemon");
    private static final Pattern REMOTE_DAEMON = Pattern.compile("^\\s*Remote daemon\\s*:\\s*\\S+ on node (\\S+)");
    /** PRRTE 5's message when a node daemon it spawned never called back: its node is unreachable (lost, or its ftd gone). */
    private static final Pattern DAEMON_NOT_REPORTED = Pattern.compile("A daemon failed to report back after being spawned");
    private static final Pattern REMOTE_HOST = Pattern.compile("^\\s*Remote host\\s*:\\s*(\\S+)");
    /** How many lines after {@link #DAEMON_NOT_REPORTED} its "Remote host:" line may come (7 in PRRTE 5's message). */
    private static final int NOT_REPORTED_BLOCK_LINES = 15;
    private final List<Pattern> extraFinished;
    /**
     * Per stream, the lines left in a {@link #DAEMON_NOT_REPORTED} message: "Remote host:" names
     * the lost node only there (other messages have such a line too). Each stream is read on its
     * own thread, so the map is concurrent.
     */
    private final Map<JobRunner.Stream, Integer> notReportedLinesLeft = new ConcurrentHashMap<>();

    /** @param finishedPatterns more lines that mean the program has completed (a program's own "done" line) */
    public JobOutputClassifier(List<Pattern> finishedPatterns) {
        this.extraFinished = List.copyOf(finishedPatterns);
    }

    public JobOutputClassifier() {
        this(List.of());
    }

    /** A line of mpirun's standard error. */
    public Optional<JobSignal> classify(String line) {
        return classify(JobRunner.Stream.STDERR, line);
    }

    public Optional<JobSignal> classify(JobRunner.Stream stream, String line) {
        if (DAEMON_NOT_REPORTED.matcher(line).find()) {
            notReportedLinesLeft.put(stream, NOT_REPORTED_BLOCK_LINES);
            return Optional.of(new JobSignal.RuntimeLost("", line));
        }
        int left = notReportedLinesLeft.getOrDefault(stream, 0);
        if (left > 0) {
            Matcher host = REMOTE_HOST.matcher(line);
            if (host.find()) {
                notReportedLinesLeft.remove(stream);
                return Optional.of(new JobSignal.RuntimeLost(host.group(1), line));
            }
            notReportedLinesLeft.put(stream, left - 1);
        }
        Matcher lost = RANK_LOST.matcher(line);
        if (lost.find()) {
            return Optional.of(new JobSignal.RankLost(Integer.parseInt(lost.group(1)), lost.group(2), line));
        }
        if (RUNTIME_LOST.matcher(line).find()) {
            return Optional.of(new JobSignal.RuntimeLost("", line));
        }
        Matcher daemon = REMOTE_DAEMON.matcher(line);
        if (daemon.find()) {
            return Optional.of(new JobSignal.RuntimeLost(daemon.group(1), line));
        }
        for (Pattern pattern : extraFinished) {
            if (pattern.matcher(line).find()) {
                return Optional.of(new JobSignal.ProgramFinished(line));
            }
        }
        return Optional.empty();
    }
}
