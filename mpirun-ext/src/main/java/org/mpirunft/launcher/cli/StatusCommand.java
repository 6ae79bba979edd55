package org.mpirunft.launcher.cli;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import org.mpirunft.common.PrivateDirectories;
import org.mpirunft.daemon.protocol.ControlReply;
import org.mpirunft.daemon.protocol.Wire;
import org.mpirunft.launcher.EventLog;
import org.mpirunft.launcher.ExitCode;
import org.mpirunft.launcher.LaunchSettings;

/**
 * {@code mpirun-ft status}: the cluster as the local daemon sees it, and each job with its
 * ranks on each node, its last committed epoch and its recoveries so far. The daemon's job
 * table has no count of recoveries, so it is read from the job's event log on shared storage
 * ({@code CHECKPOINT_DIR/JOB/events.jsonl}: in-place recoveries and whole-job restarts), or
 * shown as {@code -} if that log cannot be read from here.
 *
 * @param parent the command's common options (socket, checkpoint directory, verbosity)
 */
record StatusCommand(RunCommand parent, boolean json) implements Callable<Integer> {
    static final String SYNOPSIS = """
            Usage: mpirun-ft status [OPTIONS]

            Show the daemons, and each job's ranks per node, last epoch and recoveries.
            """;

    @Override
    public Integer call() {
        parent.verbosity.apply(parent.context.err());
        ControlReply.StatusReport report = DaemonOptions.client(parent).status();
        PrintStream out = parent.context.out();
        if (json) {
            out.println(Wire.encode(report));
            return ExitCode.OK.code();
        }
        Path checkpointDir = parent.checkpointDirectory();
        out.println("daemon " + report.node() + " (" + lower(report.role()) + ")" + (report.fenced() ? ", FENCED" : "")
                + (report.joined() ? "" : ", not in the group") + "; leader " + (report.leader().isEmpty() ? "unknown" : report.leader())
                + "; view " + report.viewId() + " of " + report.members().size() + " node(s)");
        List<List<String>> nodes = new ArrayList<>();
        nodes.add(List.of("NODE", "ROLE", "SLOTS", "IN USE", "LOAD", "STATE"));
        for (ControlReply.MemberStatus m : report.members()) {
            // A drained node whose ranks have not moved yet is still draining, as Slurm says.
            String state = m.drain().isEmpty() ? "in service" : (m.slotsInUse() > 0 ? "draining: " : "drained: ") + m.drain();
            nodes.add(List.of(m.name(), lower(m.role()), Integer.toString(m.slots()), Integer.toString(m.slotsInUse()),
                    String.format(Locale.ROOT, "%.2f", m.loadAverage()), state));
        }
        table(out, nodes);
        if (report.jobs().isEmpty()) {
            out.println("no jobs");
            return ExitCode.OK.code();
        }
        out.println();
        List<List<String>> jobs = new ArrayList<>();
        jobs.add(List.of("JOB", "USER", "LAUNCHER", "MODE", "EPOCH", "RECOVERIES", "RANKS", "STATE", "RANKS ON EACH NODE"));
        for (ControlReply.JobStatus job : report.jobs()) {
            if (!job.detailed()) {
                // Another user's job: the daemon tells its name, owner, mode and state only, as squeue does.
                jobs.add(List.of(job.job(), job.owner(), "-", job.mode(), "-", "-", "-", lower(job.state()), "-"));
                continue;
            }
            // A job's files are in its owner's directory (PrivateDirectories); a daemon that names no owner ran root's jobs only.
            Path eventLog = PrivateDirectories.ofUser(checkpointDir, job.owner().isEmpty() ? "root" : job.owner()).resolve(job.job())
                    .resolve(LaunchSettings.EVENT_LOG_NAME);
            jobs.add(List.of(job.job(), job.owner(), job.launcher(), job.mode(), Long.toString(job.committedEpoch()),
                    recoveries(eventLog), ranks(job.rankNodes().size(), eventLog), state(job), ranksOnNodes(job.rankNodes())));
        }
        table(out, jobs);
        return ExitCode.OK.code();
    }

    /** {@code node1: 0,1  node2: 2}, in rank order. */
    static String ranksOnNodes(List<String> rankNodes) {
        Map<String, List<Integer>> byNode = new LinkedHashMap<>();
        for (int r = 0; r < rankNodes.size(); r++) {
            byNode.computeIfAbsent(rankNodes.get(r), n -> new ArrayList<>()).add(r);
        }
        return byNode.entrySet().stream()
                .map(e -> e.getKey() + ": " + e.getValue().stream().map(String::valueOf).collect(Collectors.joining(",")))
                .collect(Collectors.joining("  "));
    }

    /** Resumes (in-place recoveries) plus restarts in the job's event log; {@code -} if unreadable. */
    static String recoveries(Path eventLog) {
        if (!Files.isReadable(eventLog)) {
            return "-";
        }
        try {
            long count = EventLog.read(eventLog).stream().map(e -> e.path("type").asText())
                    .filter(t -> t.equals("resume") || t.equals("restart")).count();
            return Long.toString(count);
        } catch (RuntimeException e) {
            return "-";
        }
    }

    /** The rank count, and what it was at launch if the job shrank ({@code shrink} events in its log): {@code 3 (was 4)}. */
    static String ranks(int ranks, Path eventLog) {
        if (!Files.isReadable(eventLog)) {
            return Integer.toString(ranks);
        }
        try {
            return EventLog.read(eventLog).stream().filter(e -> e.path("type").asText().equals("shrink")).findFirst()
                    .map(first -> ranks + " (was " + first.path("fromRanks").asInt() + ")").orElse(Integer.toString(ranks));
        } catch (RuntimeException e) {
            return Integer.toString(ranks);
        }
    }

    private static String state(ControlReply.JobStatus job) {
        if (!job.stopReason().isEmpty()) {
            return "stopped: " + job.stopReason();
        }
        if (!job.failureId().isEmpty()) {
            return lower(job.state()) + " " + job.failureId() + (job.placement().isEmpty() ? ", shrinking (no spare)"
                    : " onto " + job.placement().values());
        }
        return lower(job.state());
    }

    private static String lower(String s) {
        return s == null ? "" : s.toLowerCase(Locale.ROOT);
    }

    private static void table(PrintStream out, List<List<String>> rows) {
        int columns = rows.getFirst().size();
        int[] width = new int[columns];
        for (List<String> row : rows) {
            for (int c = 0; c < columns; c++) {
                width[c] = Math.max(width[c], row.get(c).length());
            }
        }
        for (List<String> row : rows) {
            StringBuilder line = new StringBuilder();
            for (int c = 0; c < columns; c++) {
                line.append(c == columns - 1 ? row.get(c) : String.format("%-" + (width[c] + 2) + "s", row.get(c)));
            }
            out.println(line.toString().stripTrailing());
        }
    }
}
