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
    /**
     * Only at the start of a line, after mpirun's optional output tag ({@code [1,0]<stdout>: }):
     * a program that echoes the line later (a report at its end) must not count it again.
     */
    private static final Pattern RECOVERED = Pattern.compile(
            "^(?:\\[[^\\]]*]<std(?:out|err)>:\\s?)?\\[mpirun-ft] recovered replaced=\\[([0-9,\\s]*)] epoch=(\\d+) iteration=(-?\\d+)(?:.*?total_ms=([0-9.]+))?");
    private static final Pattern RANK_LOST = Pattern.compile(
            "noticed that process rank (\\d+) with PID \\d+ on node (\\S+) exited on");
    private static final Pattern RUNTIME_LOST = Pattern.compile("(PRTE|ORTE) has lost communication with a remote daemon");
    private static final Pattern REMOTE_DAEMON = Pattern.compile("^\\s*Remote daemon\\s*:\\s*\\S+ on node (\\S+)");
    /** RankRuntime: "rank 1: recovery failed: ...". */
    private static final Pattern RECOVERY_FAILED = Pattern.compile("rank \\d+: recovery failed");
    /** NoUsableCheckpointException: "... can be loaded by every rank ..."; RankRuntime: "no state to roll back to". */
    private static final Pattern NO_CHECKPOINT = Pattern.compile("can be loaded by every rank|no state to roll back to");
    /**
     * A rank that reached its bounded MPI_Finalize and gave up waiting: the run had completed.
     * {@code [mpirun-ft] finished} is the line rank 0 is to print once the run is complete.
     */
    private static final Pattern FINISHED = Pattern.compile(
            "\\[mpirun-ft] (finished\\b|rank \\d+: MPI_Finalize did not return within)");

    private final List<Pattern> extraFinished;

    /** @param finishedPatterns more lines that mean the program has completed (a program's own "done" line) */
    public JobOutputClassifier(List<Pattern> finishedPatterns) {
        this.extraFinished = List.copyOf(finishedPatterns);
    }

    public JobOutputClassifier() {
        this(List.of());
    }

    public Optional<JobSignal> classify(String line) {
        if (line.indexOf("[mpirun-ft]") >= 0) {
            Matcher m = RECOVERED.matcher(line);
            if (m.find()) {
                double total = m.group(4) == null ? 0 : Double.parseDouble(m.group(4));
                return Optional.of(new JobSignal.Recovered(ranks(m.group(1)), Long.parseLong(m.group(2)),
                        Long.parseLong(m.group(3)), total, line));
            }
            if (FINISHED.matcher(line).find()) {
                return Optional.of(new JobSignal.ProgramFinished(line));
            }
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
        if (RECOVERY_FAILED.matcher(line).find()) {
            return Optional.of(new JobSignal.RecoveryFailed(true, line));
        }
        if (NO_CHECKPOINT.matcher(line).find()) {
            return Optional.of(new JobSignal.RecoveryFailed(false, line));
        }
        for (Pattern pattern : extraFinished) {
            if (pattern.matcher(line).find()) {
                return Optional.of(new JobSignal.ProgramFinished(line));
            }
        }
        return Optional.empty();
    }

    private static List<Integer> ranks(String list) {
        List<Integer> ranks = new ArrayList<>();
        Arrays.stream(list.split(",")).map(String::strip).filter(s -> !s.isEmpty()).forEach(s -> ranks.add(Integer.parseInt(s)));
        return ranks;
    }
}
