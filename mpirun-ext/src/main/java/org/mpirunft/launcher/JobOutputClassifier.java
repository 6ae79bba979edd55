package org.mpirunft.launcher;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
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
    private final List<Pattern> extraFinished;

    /** @param finishedPatterns more lines that mean the program has completed (a program's own "done" line) */
    public JobOutputClassifier(List<Pattern> finishedPatterns) {
        this.extraFinished = List.copyOf(finishedPatterns);
    }

    public JobOutputClassifier() {
        this(List.of());
    }

    public Optional<JobSignal> classify(String line) {
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
