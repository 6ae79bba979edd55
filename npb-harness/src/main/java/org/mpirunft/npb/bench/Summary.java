package org.mpirunft.npb.bench;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * Medians over the repeats of each kernel, class and node count, and what follows from them:
 * overheads against the baseline, the per-checkpoint cost, Daly's interval and the overhead
 * at it, and the pause/restart and pause/full-restart ratios. Only runs that count (verified, fully measured) enter.
 * With several storage configurations there is one row per configuration, each against the
 * same baseline runs (which write nothing).
 */
public final class Summary {
    /** Target of issue #9: pause recovery at most this fraction of a full restart. */
    public static final double RATIO_TARGET = 0.2;
    /** Target of issue #9: checkpoint overhead at most this, in percent, at Daly's interval. */
    public static final double OVERHEAD_TARGET_PERCENT = 2.0;

    /**
     * One kernel, class and node count. Seconds are NPB's timed region; milliseconds as named.
     *
     * @param checkpointCostS    the run time one checkpoint costs the job: the periodic run's
     *                           excess over the baseline per checkpoint, else the one-checkpoint
     *                           run's excess, else (noise above the excess) rank 0's stall
     * @param checkpointCostFrom which of the three {@code checkpointCostS} is
     * @param dalyIntervalS      Daly's interval for that cost and the stated MTBF
     * @param dalyOverheadPct    {@code 100 C / T} at that interval
     * @param storage            the storage configuration's label ({@code ""}: the unnamed one)
     * @param compressionRatio   rank 0's part bytes over its snapshot bytes over a run, median (computed)
     * @param writeMBps          rank 0's last snapshot's bytes over its write time, median MB/s (computed)
     * @param autoRuns           counted {@code daly} runs (auto interval, exponential failures)
     * @param autoFailures       failures injected per daly run, median
     * @param autoEfficiency     baseline median over the daly run's NPB time, median over daly runs (measured)
     * @param autoCostS          the daly runs' median commit duration, median: the cost {@code auto} measured
     * @param autoIntervalS      the daly runs' median spacing of checkpoint orders, median: the interval used
     * @param autoRecoveryS      kill to back, median over the daly runs' failures
     * @param autoModelEfficiency Daly's model efficiency for those medians and the MTBF (computed)
     * @param periodicEfficiency baseline over periodic, medians: the efficiency without failures (measured)
     * @param migrationTotalMs   the {@code migration} runs' move as the ranks timed it, median: the safe
     *                           point they moved at to the spare's first step, while every rank waits
     *                           (the split's {@code reach}, {@code call}, {@code transfer} and {@code rejoin}
     *                           follow, each a median)
     * @param migrationMb        the state moved, MB (10^6 bytes), median
     * @param migrationToWorkMs  the harness's {@code migrate} command to rank 0's next iteration, median
     * @param pauseLostIterations iterations the pause runs redid (done before the kill, rolled back), median
     * @param pauseCostMs        what the pause cost the job: its recovery (kill to back at work) plus the
     *                           lost iterations at the baseline's time per iteration (computed from the
     *                           medians)
     * @param migrationPauseRatio the move's total over that pause cost (computed)
     */
    public record Row(String kernel, String cls, int nodes, int runs, int countedRuns,
                      Double baselineS, Double oneCheckpointS, Double periodicS, Long periodicCheckpoints,
                      Double oneCheckpointOverheadPct, Double periodicOverheadPct,
                      Double checkpointMbPerRank, Double stallMs, Double writeMs, Double commitMs,
                      Double checkpointCostS, String checkpointCostFrom, Double dalyIntervalS, Double dalyOverheadPct,
                      Double pauseDetectionMs, Double pauseDecisionMs, Double pauseRollbackMs,
                      Double pauseReplacementStartMs, Double pauseStateLoadMs, Double pauseRankTotalMs, Double pauseRecoveryMs,
                      Double restartDetectionMs, Double restartStopMs, Double restartRelaunchMs, Double restartRecoveryMs,
                      Double pauseRestartRatio, Double fullRestartRuntimeMs, Double fullRestartRecoveryMs,
                      Double pauseFullRestartRatio, Double coldPauseRecoveryMs, Double coldPauseFullRestartRatio,
                      Double pauseSetupMs, Double pauseTransferMs, Double pauseTransferMBps, Double storageMBps, Double pauseBeyondTransferMs,
                      Double iterationMs, Double spareIdleS, Double spareIdleCpuS, Double spareIdleCpuMaxS,
                      String storage, Double compressionRatio, Double writeMBps, Integer autoRuns, Double autoFailures,
                      Double autoEfficiency, Double autoCostS, Double autoIntervalS, Double autoRecoveryS,
                      Double autoModelEfficiency, Double periodicEfficiency, Double migrationTotalMs, Double migrationReachMs,
                      Double migrationCallMs, Double migrationTransferMs, Double migrationRejoinMs, Double migrationMb,
                      Double migrationToWorkMs, Double pauseLostIterations, Double pauseCostMs, Double migrationPauseRatio) {
        /** A warm spare's CPU over a failure-free run must stay under this. */
        public static final double SPARE_IDLE_CPU_TARGET_S = 1.0;

        /** Kill to back at work, less the state transfer, must be at most this (EP and CG class B). */
        public static final double BEYOND_TRANSFER_TARGET_MS = 250;
        /** The state transfer must reach this share of the storage path's bandwidth. */
        public static final double TRANSFER_SHARE_TARGET = 0.5;

        /** The state transfer's bandwidth over the storage path's, both medians (computed). */
        public Double transferShareOfStorage() {
            return pauseTransferMBps == null || storageMBps == null || storageMBps <= 0 ? null : pauseTransferMBps / storageMBps;
        }

        public String label() {
            return kernel.toUpperCase(java.util.Locale.ROOT) + " " + cls;
        }

        /** The kernel and class, and a named storage configuration in brackets: one bar group per row of a plot. */
        public String labelWithStorage() {
            return label() + (storage == null || storage.isEmpty() ? "" : " [" + storage + "]");
        }

        /** The storage configuration as tables show it. */
        public String storageDisplay() {
            return storage == null || storage.isEmpty() ? "default" : storage;
        }

        /** The ratio the 0.2 target is judged on: against the full restart if one ran, else the restart. */
        public Double targetRatio() {
            return pauseFullRestartRatio != null ? pauseFullRestartRatio : pauseRestartRatio;
        }

        /** The recovery {@link #targetRatio} divides by. */
        public Double targetRestartMs() {
            return pauseFullRestartRatio != null ? fullRestartRecoveryMs : restartRecoveryMs;
        }
    }

    private Summary() {
    }

    public static List<Row> of(Collection<RunResult> runs, double mtbfSeconds) {
        Map<String, List<RunResult>> groups = new LinkedHashMap<>();
        runs.stream().sorted(Comparator.comparing(RunResult::nodes).thenComparing(r -> kernelOrder(r.kernel()))
                        .thenComparing(RunResult::cls))
                .forEach(r -> groups.computeIfAbsent(r.kernel() + "|" + r.cls() + "|" + r.nodes(), k -> new ArrayList<>()).add(r));
        List<Row> rows = new ArrayList<>();
        for (List<RunResult> group : groups.values()) {
            // The configurations in the order they first ran; the baseline runs are every row's.
            List<String> labels = group.stream().filter(r -> !isBaseline(r)).map(RunResult::storageLabel).distinct().toList();
            if (labels.isEmpty()) {
                labels = group.stream().map(RunResult::storageLabel).distinct().limit(1).toList();
            }
            for (String label : labels) {
                rows.add(row(group.stream().filter(r -> isBaseline(r) || r.storageLabel().equals(label)).toList(), label, mtbfSeconds));
            }
        }
        return List.copyOf(rows);
    }

    private static boolean isBaseline(RunResult run) {
        return run.variant().equals(Variant.BASELINE.label());
    }

    private static int kernelOrder(String kernel) {
        int index = org.mpirunft.npb.Kernels.NAMES.indexOf(kernel);
        return index < 0 ? Integer.MAX_VALUE : index;
    }

    private static Row row(List<RunResult> group, String storage, double mtbfSeconds) {
        RunResult first = group.getFirst();
        List<RunResult> counted = group.stream().filter(RunResult::counts).toList();
        Double baseline = median(counted, Variant.BASELINE, RunResult::npbSeconds);
        Double one = median(counted, Variant.ONE_CHECKPOINT, RunResult::npbSeconds);
        Double periodic = median(counted, Variant.PERIODIC, RunResult::npbSeconds);
        Double taken = median(counted, Variant.PERIODIC, r -> r.checkpointsTaken() == null ? null : r.checkpointsTaken().doubleValue());
        Long periodicCheckpoints = taken == null ? null : Math.round(taken);

        List<RunResult> checkpointing = counted.stream().filter(r -> r.checkpointEvery() > 0).toList();
        Double megabytes = Medians.of(checkpointing.stream().map(RunResult::partMegabytes).toList());
        List<RunResult> singleSource = counted.stream().filter(r -> r.variant().equals(Variant.PERIODIC.label())).toList();
        if (singleSource.isEmpty()) {
            singleSource = counted.stream().filter(r -> r.variant().equals(Variant.ONE_CHECKPOINT.label())).toList();
        }
        Double stall = Medians.of(singleSource.stream().map(RunResult::stallMs).toList());
        Double write = Medians.of(singleSource.stream().map(RunResult::writeMs).toList());
        Double commit = Medians.of(singleSource.stream().map(RunResult::commitMs).toList());
        Double writeMBps = Medians.of(singleSource.stream().map(RunResult::writeMBps).toList());
        Double compression = Medians.of((singleSource.isEmpty() ? checkpointing : singleSource).stream()
                .map(RunResult::compressionRatio).toList());
        if (compression == null) {
            compression = Medians.of(counted.stream().map(RunResult::compressionRatio).toList());
        }

        Double cost = null;
        String costFrom = null;
        if (baseline != null && periodic != null && periodicCheckpoints != null && periodicCheckpoints > 0
                && periodic > baseline) {
            cost = (periodic - baseline) / periodicCheckpoints;
            costFrom = "periodic";
        } else if (baseline != null && one != null && one > baseline) {
            cost = one - baseline;
            costFrom = "one-checkpoint";
        } else if (stall != null && stall > 0) {
            cost = stall / 1e3;
            costFrom = "stall";
        }
        Double daly = cost == null ? null : DalyInterval.seconds(cost, mtbfSeconds);
        Double dalyOverhead = cost == null ? null : DalyInterval.overheadPercent(cost, daly);

        List<Recoveries.Pause> pauses = pauses(counted, Variant.PAUSE);
        Double coldPauseRecovery = Medians.of(pauses(counted, Variant.PAUSE_COLD).stream().map(Recoveries.Pause::recoveryMs).toList());
        List<Recoveries.Restart> restarts = restarts(counted, Variant.RESTART);
        List<Recoveries.Restart> fullRestarts = restarts(counted, Variant.FULL_RESTART);
        Double fullRestartRecovery = Medians.of(fullRestarts.stream().map(Recoveries.Restart::recoveryMs).toList());
        Double pauseRecovery = Medians.of(pauses.stream().map(Recoveries.Pause::recoveryMs).toList());
        Double restartRecovery = Medians.of(restarts.stream().map(Recoveries.Restart::recoveryMs).toList());
        Double transfer = Medians.of(pauses.stream().map(Recoveries.Pause::transferMs).toList());
        Double beyondTransfer = Medians.of(pauses.stream()
                .map(p -> p.transferMs() == null ? null : p.recoveryMs() - p.transferMs()).toList());
        List<RunResult> idleSpares = counted.stream().filter(r -> r.spareIdleS() != null && r.spareIdleCpuS() != null).toList();
        RunResult longestIdle = idleSpares.stream().max(Comparator.comparingDouble(RunResult::spareIdleS)).orElse(null);
        Double idleCpuMax = idleSpares.stream().map(RunResult::spareIdleCpuS).max(Comparator.naturalOrder()).orElse(null);
        Double iteration = baseline == null || first.iterations() <= 0 ? null : 1e3 * baseline / first.iterations();

        List<Recoveries.Migration> migrations = counted.stream().filter(r -> r.variant().equals(Variant.MIGRATION.label()))
                .map(RunResult::migration).filter(Objects::nonNull).toList();
        Double migrationTotal = Medians.of(migrations.stream().map(Recoveries.Migration::totalMs).toList());
        Double lost = Medians.of(pauses.stream().map(p -> p.lostIterations() == null ? null : p.lostIterations().doubleValue()).toList());
        Double pauseCost = pauseRecovery == null || lost == null || iteration == null ? null : pauseRecovery + lost * iteration;
        List<RunResult> dalyRuns = counted.stream().filter(r -> r.variant().equals(Variant.DALY.label()) && r.daly() != null).toList();
        Double autoCost = Medians.of(dalyRuns.stream().map(r -> r.daly().costS()).toList());
        Double autoInterval = Medians.of(dalyRuns.stream().map(r -> r.daly().intervalS()).toList());
        Double autoRecovery = Medians.of(dalyRuns.stream().flatMap(r -> r.daly().recoveryMs().stream()).toList());
        autoRecovery = autoRecovery == null ? null : autoRecovery / 1e3;
        Double autoModel = autoCost == null || autoInterval == null || autoInterval <= 0 ? null
                : DalyInterval.modelEfficiency(autoInterval, autoCost, mtbfSeconds, autoRecovery == null ? 0 : autoRecovery);
        return new Row(first.kernel(), first.cls(), first.nodes(), group.size(), counted.size(), baseline, one, periodic,
                periodicCheckpoints, overhead(one, baseline), overhead(periodic, baseline), megabytes, stall, write, commit,
                cost, costFrom, daly, dalyOverhead,
                Medians.of(pauses.stream().map(Recoveries.Pause::detectionMs).toList()),
                Medians.of(pauses.stream().map(Recoveries.Pause::decisionMs).toList()),
                Medians.of(pauses.stream().map(Recoveries.Pause::rollbackMs).toList()),
                Medians.of(pauses.stream().map(Recoveries.Pause::replacementStartMs).toList()),
                Medians.of(pauses.stream().map(Recoveries.Pause::stateLoadMs).toList()),
                Medians.of(pauses.stream().map(Recoveries.Pause::rankTotalMs).toList()),
                pauseRecovery,
                Medians.of(restarts.stream().map(Recoveries.Restart::detectionMs).toList()),
                Medians.of(restarts.stream().map(Recoveries.Restart::stopMs).toList()),
                Medians.of(restarts.stream().map(Recoveries.Restart::relaunchMs).toList()),
                restartRecovery, ratio(pauseRecovery, restartRecovery),
                Medians.of(fullRestarts.stream().map(Recoveries.Restart::runtimeMs).toList()),
                fullRestartRecovery, ratio(pauseRecovery, fullRestartRecovery), coldPauseRecovery,
                ratio(coldPauseRecovery, fullRestartRecovery),
                Medians.of(pauses.stream().map(Recoveries.Pause::setupMs).toList()), transfer,
                Medians.of(pauses.stream().map(Recoveries.Pause::transferMBps).toList()),
                Medians.of(pauses.stream().map(Recoveries.Pause::storageMBps).toList()), beyondTransfer, iteration,
                longestIdle == null ? null : longestIdle.spareIdleS(), longestIdle == null ? null : longestIdle.spareIdleCpuS(),
                idleCpuMax, storage, compression, writeMBps, dalyRuns.isEmpty() ? null : dalyRuns.size(),
                Medians.of(dalyRuns.stream().map(r -> (double) r.daly().failuresInjected()).toList()),
                Medians.of(dalyRuns.stream().map(r -> efficiency(baseline, r.npbSeconds())).toList()),
                autoCost, autoInterval, autoRecovery, autoModel, efficiency(baseline, periodic),
                Medians.of(migrations.stream().map(Recoveries.Migration::totalMs).toList()),
                Medians.of(migrations.stream().map(Recoveries.Migration::reachMs).toList()),
                Medians.of(migrations.stream().map(Recoveries.Migration::callMs).toList()),
                Medians.of(migrations.stream().map(Recoveries.Migration::transferMs).toList()),
                Medians.of(migrations.stream().map(Recoveries.Migration::rejoinMs).toList()),
                Medians.of(migrations.stream().map(m -> m.bytes() / 1e6).toList()),
                Medians.of(migrations.stream().map(Recoveries.Migration::orderToWorkMs).toList()),
                lost, pauseCost, ratio(migrationTotal, pauseCost));
    }

    /** Baseline time over a run's time: the share of the run that was the program's work (measured); null if either is missing. */
    public static Double efficiency(Double baseline, Double seconds) {
        return baseline == null || seconds == null || seconds <= 0 ? null : baseline / seconds;
    }

    /**
     * One storage configuration's periodic overhead over another's, both against the same
     * baseline (computed); null if either is missing or the reference is not positive.
     */
    public static Double overheadRatio(Double overheadPct, Double referencePct) {
        return overheadPct == null || referencePct == null || referencePct <= 0 ? null : overheadPct / referencePct;
    }

    private static List<Recoveries.Pause> pauses(List<RunResult> counted, Variant variant) {
        return counted.stream().filter(r -> r.variant().equals(variant.label())).map(RunResult::pause)
                .filter(Objects::nonNull).toList();
    }

    private static List<Recoveries.Restart> restarts(List<RunResult> counted, Variant variant) {
        return counted.stream().filter(r -> r.variant().equals(variant.label())).map(RunResult::restart)
                .filter(Objects::nonNull).toList();
    }

    /** Overhead of {@code seconds} over {@code baseline} in percent; null if either is missing. */
    public static Double overhead(Double seconds, Double baseline) {
        return seconds == null || baseline == null || baseline <= 0 ? null : 100 * (seconds - baseline) / baseline;
    }

    /** Pause recovery over restart recovery; null if either is missing. */
    public static Double ratio(Double pauseMs, Double restartMs) {
        return pauseMs == null || restartMs == null || restartMs <= 0 ? null : pauseMs / restartMs;
    }

    private static Double median(List<RunResult> runs, Variant variant, Function<RunResult, Double> value) {
        return Medians.of(runs.stream().filter(r -> r.variant().equals(variant.label())).map(value).toList());
    }
}
