package org.mpirunft.npb.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.mpirunft.common.Json;

/**
 * {@code results.json} (the whole {@link BenchResults}), {@code results.csv} (one row per run)
 * and {@code summary.csv} (one row per kernel, class and node count).
 */
public final class ResultsFiles {
    public static final String JSON_FILE = "results.json";
    public static final String RUNS_CSV = "results.csv";
    public static final String SUMMARY_CSV = "summary.csv";
    /**
     * Indented: people read results.json. Tolerant ({@link Json#tolerantBuilder}): {@code report}
     * and {@code evidence} read results directories that earlier versions of npb-bench wrote, and
     * a field such a file lacks, or has that this version dropped, must not make it unreadable.
     */
    private static final ObjectMapper JSON = Json.tolerantBuilder().enable(SerializationFeature.INDENT_OUTPUT).build();

    private record Column<T>(String name, Function<T, Object> value) {
    }

    private static final List<Column<RunResult>> RUN_COLUMNS = List.of(
            new Column<>("kernel", RunResult::kernel), new Column<>("class", RunResult::cls),
            new Column<>("nodes", RunResult::nodes), new Column<>("variant", RunResult::variant),
            new Column<>("repeat", RunResult::repeat), new Column<>("job", RunResult::job),
            new Column<>("verified", RunResult::verified), new Column<>("counts", RunResult::counts),
            new Column<>("error", RunResult::error), new Column<>("exit_code", RunResult::exitCode),
            new Column<>("wall_s", RunResult::wallSeconds), new Column<>("npb_s", RunResult::npbSeconds),
            new Column<>("iterations", RunResult::iterations), new Column<>("checkpoint_every", RunResult::checkpointEvery),
            new Column<>("checkpoints_taken", RunResult::checkpointsTaken),
            new Column<>("checkpoints_committed", RunResult::checkpointsCommitted),
            new Column<>("checkpoint_mb_per_rank", RunResult::partMegabytes),
            new Column<>("stall_ms", RunResult::stallMs), new Column<>("write_ms", RunResult::writeMs),
            new Column<>("commit_ms", RunResult::commitMs), new Column<>("failed_node", RunResult::failedNode),
            new Column<>("injected_at", RunResult::injectedAt),
            new Column<>("pause_detection_ms", r -> r.pause() == null ? null : r.pause().detectionMs()),
            new Column<>("pause_launcher_detection_ms", r -> r.pause() == null ? null : r.pause().launcherDetectionMs()),
            new Column<>("pause_decision_ms", r -> r.pause() == null ? null : r.pause().decisionMs()),
            new Column<>("pause_rollback_ms", r -> r.pause() == null ? null : r.pause().rollbackMs()),
            new Column<>("pause_replacement_start_ms", r -> r.pause() == null ? null : r.pause().replacementStartMs()),
            new Column<>("pause_state_load_ms", r -> r.pause() == null ? null : r.pause().stateLoadMs()),
            new Column<>("pause_rank_total_ms", r -> r.pause() == null ? null : r.pause().rankTotalMs()),
            new Column<>("pause_recovery_ms", r -> r.pause() == null ? null : r.pause().recoveryMs()),
            new Column<>("pause_setup_ms", r -> r.pause() == null ? null : r.pause().setupMs()),
            new Column<>("pause_transfer_ms", r -> r.pause() == null ? null : r.pause().transferMs()),
            new Column<>("pause_transfer_bytes", r -> r.pause() == null ? null : r.pause().transferBytes()),
            new Column<>("pause_transfer_from", r -> r.pause() == null ? null : r.pause().transferFrom()),
            new Column<>("storage_read_mbps", r -> r.pause() == null ? null : r.pause().storageMBps()),
            new Column<>("restart_detection_ms", r -> r.restart() == null ? null : r.restart().detectionMs()),
            new Column<>("restart_decision_ms", r -> r.restart() == null ? null : r.restart().decisionMs()),
            new Column<>("restart_stop_ms", r -> r.restart() == null ? null : r.restart().stopMs()),
            new Column<>("restart_relaunch_ms", r -> r.restart() == null ? null : r.restart().relaunchMs()),
            new Column<>("restart_recovery_ms", r -> r.restart() == null ? null : r.restart().recoveryMs()),
            new Column<>("restart_runtime_ms", r -> r.restart() == null ? null : r.restart().runtimeMs()),
            new Column<>("log", RunResult::log),
            new Column<>("spare_idle_s", RunResult::spareIdleS), new Column<>("spare_idle_cpu_s", RunResult::spareIdleCpuS),
            new Column<>("storage", RunResult::storageLabel), new Column<>("snapshot_bytes", RunResult::snapshotBytes),
            new Column<>("total_snapshot_bytes", RunResult::totalSnapshotBytes),
            new Column<>("total_part_bytes", RunResult::totalPartBytes),
            new Column<>("compression_ratio", RunResult::compressionRatio), new Column<>("write_mbps", RunResult::writeMBps),
            new Column<>("daly_seed", r -> r.daly() == null ? null : r.daly().seed()),
            new Column<>("daly_failures", r -> r.daly() == null ? null : r.daly().failuresInjected()),
            new Column<>("daly_spares_exhausted", r -> r.daly() == null ? null : r.daly().sparesExhausted()),
            new Column<>("daly_killed_nodes", r -> r.daly() == null ? null : String.join(" ", r.daly().killedNodes())),
            new Column<>("daly_recovery_s", r -> r.daly() == null ? null : r.daly().recoveryS()),
            new Column<>("daly_cost_s", r -> r.daly() == null ? null : r.daly().costS()),
            new Column<>("daly_interval_s", r -> r.daly() == null ? null : r.daly().intervalS()),
            new Column<>("daly_model_efficiency_computed", r -> r.daly() == null ? null : r.daly().modelEfficiency()));

    private static final List<Column<Summary.Row>> SUMMARY_COLUMNS = List.of(
            new Column<>("kernel", Summary.Row::kernel), new Column<>("class", Summary.Row::cls),
            new Column<>("nodes", Summary.Row::nodes), new Column<>("runs", Summary.Row::runs),
            new Column<>("counted_runs", Summary.Row::countedRuns),
            new Column<>("baseline_s", Summary.Row::baselineS), new Column<>("one_checkpoint_s", Summary.Row::oneCheckpointS),
            new Column<>("periodic_s", Summary.Row::periodicS), new Column<>("periodic_checkpoints", Summary.Row::periodicCheckpoints),
            new Column<>("one_checkpoint_overhead_pct", Summary.Row::oneCheckpointOverheadPct),
            new Column<>("periodic_overhead_pct", Summary.Row::periodicOverheadPct),
            new Column<>("checkpoint_mb_per_rank", Summary.Row::checkpointMbPerRank),
            new Column<>("stall_ms", Summary.Row::stallMs), new Column<>("write_ms", Summary.Row::writeMs),
            new Column<>("commit_ms", Summary.Row::commitMs), new Column<>("checkpoint_cost_s", Summary.Row::checkpointCostS),
            new Column<>("checkpoint_cost_from", Summary.Row::checkpointCostFrom),
            new Column<>("daly_interval_s", Summary.Row::dalyIntervalS), new Column<>("daly_overhead_pct", Summary.Row::dalyOverheadPct),
            new Column<>("pause_detection_ms", Summary.Row::pauseDetectionMs),
            new Column<>("pause_decision_ms", Summary.Row::pauseDecisionMs),
            new Column<>("pause_rollback_ms", Summary.Row::pauseRollbackMs),
            new Column<>("pause_replacement_start_ms", Summary.Row::pauseReplacementStartMs),
            new Column<>("pause_state_load_ms", Summary.Row::pauseStateLoadMs),
            new Column<>("pause_rank_total_ms", Summary.Row::pauseRankTotalMs),
            new Column<>("pause_recovery_ms", Summary.Row::pauseRecoveryMs),
            new Column<>("restart_detection_ms", Summary.Row::restartDetectionMs),
            new Column<>("restart_stop_ms", Summary.Row::restartStopMs),
            new Column<>("restart_relaunch_ms", Summary.Row::restartRelaunchMs),
            new Column<>("restart_recovery_ms", Summary.Row::restartRecoveryMs),
            new Column<>("pause_restart_ratio", Summary.Row::pauseRestartRatio),
            new Column<>("full_restart_runtime_ms", Summary.Row::fullRestartRuntimeMs),
            new Column<>("full_restart_recovery_ms", Summary.Row::fullRestartRecoveryMs),
            new Column<>("pause_full_restart_ratio", Summary.Row::pauseFullRestartRatio),
            new Column<>("cold_pause_recovery_ms", Summary.Row::coldPauseRecoveryMs),
            new Column<>("cold_pause_full_restart_ratio", Summary.Row::coldPauseFullRestartRatio),
            new Column<>("pause_setup_ms", Summary.Row::pauseSetupMs),
            new Column<>("pause_transfer_ms", Summary.Row::pauseTransferMs),
            new Column<>("pause_transfer_mbps", Summary.Row::pauseTransferMBps),
            new Column<>("storage_read_mbps", Summary.Row::storageMBps),
            new Column<>("transfer_share_of_storage", Summary.Row::transferShareOfStorage),
            new Column<>("pause_beyond_transfer_ms", Summary.Row::pauseBeyondTransferMs),
            new Column<>("iteration_ms", Summary.Row::iterationMs),
            new Column<>("spare_longest_idle_s", Summary.Row::spareIdleS),
            new Column<>("spare_longest_idle_cpu_s", Summary.Row::spareIdleCpuS),
            new Column<>("spare_idle_cpu_max_s", Summary.Row::spareIdleCpuMaxS),
            new Column<>("storage", Summary.Row::storage),
            new Column<>("compression_ratio", Summary.Row::compressionRatio), new Column<>("write_mbps", Summary.Row::writeMBps),
            new Column<>("periodic_efficiency", Summary.Row::periodicEfficiency),
            new Column<>("daly_runs", Summary.Row::autoRuns), new Column<>("daly_failures", Summary.Row::autoFailures),
            new Column<>("daly_efficiency", Summary.Row::autoEfficiency), new Column<>("daly_cost_s", Summary.Row::autoCostS),
            new Column<>("daly_interval_used_s", Summary.Row::autoIntervalS),
            new Column<>("daly_recovery_s", Summary.Row::autoRecoveryS),
            new Column<>("daly_model_efficiency_computed", Summary.Row::autoModelEfficiency));

    private ResultsFiles() {
    }

    public static void write(Path directory, BenchResults results) throws IOException {
        Files.createDirectories(directory);
        JSON.writeValue(directory.resolve(JSON_FILE).toFile(), results);
        Files.writeString(directory.resolve(RUNS_CSV), csv(RUN_COLUMNS, results.runs()));
        Files.writeString(directory.resolve(SUMMARY_CSV), csv(SUMMARY_COLUMNS, results.summary()));
    }

    /** A bench run's results and the directory its run logs are relative to. */
    public record Located(Path directory, BenchResults results) {
    }

    /**
     * One result set from several bench runs, for {@code into}: their runs (logs relative to
     * {@code into}), medians over all of them, their commands one per line, and the settings on
     * which they agree; where they differ, the values joined with " / ".
     */
    public static BenchResults merge(List<Located> parts, Path into) {
        Object mtbf = parts.getFirst().results().settings().get("mtbfSeconds");
        List<RunResult> runs = new ArrayList<>();
        Map<String, List<Object>> values = new LinkedHashMap<>();
        for (Located part : parts) {
            Object other = part.results().settings().get("mtbfSeconds");
            if (!Objects.equals(mtbf, other)) {
                throw new BenchException.Usage("cannot merge " + part.directory() + ": its MTBF is " + other + " s, not " + mtbf + " s");
            }
            part.results().settings().forEach((key, value) -> {
                List<Object> seen = values.computeIfAbsent(key, k -> new ArrayList<>());
                if (!seen.contains(value)) {
                    seen.add(value);
                }
            });
            for (RunResult run : part.results().runs()) {
                runs.add(run.log() == null ? run : run.withLog(into.relativize(part.directory().resolve(run.log())).toString()));
            }
        }
        Map<String, Object> settings = new LinkedHashMap<>();
        values.forEach((key, seen) -> settings.put(key, seen.size() == 1 ? seen.getFirst()
                : seen.stream().map(String::valueOf).collect(Collectors.joining(" / "))));
        String command = parts.stream().map(p -> p.results().command()).collect(Collectors.joining("\n"));
        String started = parts.stream().map(p -> p.results().startedAt()).min(String::compareTo).orElseThrow();
        String finished = parts.stream().map(p -> p.results().finishedAt()).max(String::compareTo).orElseThrow();
        List<NotRun> notRun = parts.stream().flatMap(p -> p.results().notRun().stream()).toList();
        return new BenchResults(BenchResults.VERSION, command, started, finished, settings, List.copyOf(runs),
                Summary.of(runs, ((Number) mtbf).doubleValue()), notRun);
    }

    public static BenchResults read(Path directory) throws IOException {
        Path file = directory.resolve(JSON_FILE);
        if (!Files.isRegularFile(file)) {
            throw new BenchException.Usage("no " + JSON_FILE + " in " + directory);
        }
        return JSON.readValue(file.toFile(), BenchResults.class);
    }

    public static String runsCsv(List<RunResult> runs) {
        return csv(RUN_COLUMNS, runs);
    }

    public static String summaryCsv(List<Summary.Row> rows) {
        return csv(SUMMARY_COLUMNS, rows);
    }

    private static <T> String csv(List<Column<T>> columns, List<T> rows) {
        List<String> lines = new ArrayList<>();
        lines.add(columns.stream().map(Column::name).collect(Collectors.joining(",")));
        for (T row : rows) {
            lines.add(columns.stream().map(c -> cell(c.value().apply(row))).collect(Collectors.joining(",")));
        }
        return String.join("\n", lines) + "\n";
    }

    /** RFC 4180: quote a cell with a comma, quote or line break; doubles with up to 3 decimals; null is empty. */
    static String cell(Object value) {
        if (value == null) {
            return "";
        }
        String text = value instanceof Double d ? String.format(Locale.ROOT, "%.3f", d) : value.toString();
        if (text.contains(",") || text.contains("\"") || text.contains("\n") || text.contains("\r")) {
            return "\"" + text.replace("\"", "\"\"") + "\"";
        }
        return text;
    }
}
