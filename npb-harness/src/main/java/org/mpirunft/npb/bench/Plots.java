package org.mpirunft.npb.bench;

import java.awt.Color;
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
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.style.Styler;

/**
 * The paper's figures as PNG bar charts, one bar group per kernel (and class): checkpoint
 * overhead, pause versus restart recovery, the pause recovery's split, and checkpoint size
 * per node count. A value a run could not measure is left out of its bar group.
 */
public final class Plots {
    public static final String OVERHEAD = "overhead.png";
    public static final String RECOVERY = "recovery.png";
    public static final String RECOVERY_SPLIT = "recovery-split.png";
    public static final String CHECKPOINT_SIZE = "checkpoint-size.png";
    public static final String PAPER_CHECKPOINT_SIZE = "paper-checkpoint-size.png";
    public static final String PAPER_RECOVERY = "paper-recovery.png";
    private static final int WIDTH = 900;
    private static final int HEIGHT = 520;

    private Plots() {
    }

    /** Writes every plot that has data into {@code directory}; returns the file names written. */
    public static List<String> write(Path directory, List<Summary.Row> rows) throws IOException {
        System.setProperty("java.awt.headless", "true");
        Files.createDirectories(directory);
        List<String> written = new ArrayList<>();
        boolean manyNodeCounts = rows.stream().map(Summary.Row::nodes).distinct().count() > 1;
        Function<Summary.Row, String> label = r -> r.labelWithStorage() + (manyNodeCounts ? " " + r.nodes() + "n" : "");

        Map<String, Function<Summary.Row, Double>> overhead = new LinkedHashMap<>();
        overhead.put("one checkpoint", Summary.Row::oneCheckpointOverheadPct);
        overhead.put("periodic", Summary.Row::periodicOverheadPct);
        overhead.put("at Daly's interval", Summary.Row::dalyOverheadPct);
        save(directory, OVERHEAD, bars("Checkpoint overhead per kernel (target <= 2% at Daly's interval)", "overhead vs. baseline [%]",
                rows, label, overhead), written);

        Map<String, Function<Summary.Row, Double>> recovery = new LinkedHashMap<>();
        recovery.put("job pause (in place + spare)", r -> seconds(r.pauseRecoveryMs()));
        recovery.put("restart (daemons kept)", r -> seconds(r.restartRecoveryMs()));
        recovery.put("full restart (daemons too)", r -> seconds(r.fullRestartRecoveryMs()));
        save(directory, RECOVERY, bars("Recovery time: failure injected to back at work", "seconds", rows, label, recovery), written);

        Map<String, Function<Summary.Row, Double>> split = new LinkedHashMap<>();
        split.put("detection", r -> seconds(r.pauseDetectionMs()));
        split.put("rollback (revoke, shrink)", r -> seconds(r.pauseRollbackMs()));
        split.put("replacement start", r -> seconds(r.pauseReplacementStartMs()));
        split.put("state load", r -> seconds(r.pauseStateLoadMs()));
        split.put("to first iteration", r -> r.pauseRecoveryMs() == null || r.pauseDetectionMs() == null || r.pauseRankTotalMs() == null
                ? null : seconds(r.pauseRecoveryMs() - r.pauseDetectionMs() - r.pauseRankTotalMs()));
        CategoryChart stacked = bars("Job pause recovery, split", "seconds", rows, label, split);
        if (stacked != null) {
            stacked.getStyler().setStacked(true);
        }
        save(directory, RECOVERY_SPLIT, stacked, written);

        // One bar group per kernel and class; the node counts are the series.
        Map<String, Summary.Row> firstOfKernel = new LinkedHashMap<>();
        rows.forEach(r -> firstOfKernel.putIfAbsent(r.labelWithStorage(), r));
        List<Summary.Row> bySize = List.copyOf(firstOfKernel.values());
        Map<String, Function<Summary.Row, Double>> sizeSeries = new LinkedHashMap<>();
        for (int nodes : rows.stream().map(Summary.Row::nodes).distinct().sorted().toList()) {
            sizeSeries.put(nodes + " nodes", first -> rows.stream()
                    .filter(r -> r.labelWithStorage().equals(first.labelWithStorage()) && r.nodes() == nodes)
                    .map(Summary.Row::checkpointMbPerRank).filter(Objects::nonNull).findFirst().orElse(null));
        }
        save(directory, CHECKPOINT_SIZE, bars("Checkpoint size per rank", "MB per rank", bySize, Summary.Row::labelWithStorage, sizeSeries),
                written);
        writeBesideThePaper(directory, rows, written);
        return written;
    }

    /**
     * Ours and the paper's at 4, 8 (9) and 16 nodes, one bar group per kernel: checkpoint sizes
     * against its Table 1, and pause / full restart against the mean ratio its text gives for
     * figures 10-12 (it printed no per-kernel values). Each kernel's largest class that ran there.
     */
    private static void writeBesideThePaper(Path directory, List<Summary.Row> rows, List<String> written) throws IOException {
        List<Summary.Row> mine = PaperTables.rowsBeside(rows);
        // One representative row per kernel names the bar group; the series look up each column.
        List<Summary.Row> groups = PaperTables.kernels(mine).stream()
                .map(kernel -> mine.stream().filter(r -> r.kernel().equals(kernel)).findFirst().orElseThrow()).toList();
        Function<Summary.Row, String> kernelName = r -> r.kernel().toUpperCase(Locale.ROOT);
        Map<String, Function<Summary.Row, Double>> sizes = new LinkedHashMap<>();
        Map<String, Function<Summary.Row, Double>> ratios = new LinkedHashMap<>();
        for (int column = 0; column < PaperFigures.NODES.length; column++) {
            int col = column;
            int nodes = PaperFigures.NODES[column];
            sizes.put("ours, " + nodes + " nodes", g -> PaperTables.pick(mine, g.kernel(), col).map(Summary.Row::checkpointMbPerRank).orElse(null));
            sizes.put("paper, " + nodes + " nodes", g -> PaperFigures.checkpointMb(g.kernel(), nodes));
            ratios.put("ours, " + nodes + " nodes", g -> PaperTables.pick(mine, g.kernel(), col).map(Summary.Row::pauseFullRestartRatio).orElse(null));
        }
        ratios.put("paper, mean of all", g -> PaperFigures.PAUSE_RESTART_RATIO);
        boolean anyOurs = mine.stream().anyMatch(r -> r.checkpointMbPerRank() != null);
        save(directory, PAPER_CHECKPOINT_SIZE, anyOurs ? oursBluePapersOrange(bars("Checkpoint size per rank, ours (registered state) "
                + "and the paper's (BLCR image, Table 1)", "MB per rank", groups, kernelName, sizes)) : null, written);
        boolean anyRatio = mine.stream().anyMatch(r -> r.pauseFullRestartRatio() != null);
        save(directory, PAPER_RECOVERY, anyRatio ? oursBluePapersOrange(bars("Job pause / full restart, ours and the paper's "
                + "(figures 10-12)", "pause / full restart", groups, kernelName, ratios)) : null, written);
    }

    /** Our series in blues and the paper's in oranges, darker for fewer nodes, so the two sides read apart. */
    private static CategoryChart oursBluePapersOrange(CategoryChart chart) {
        if (chart == null) {
            return null;
        }
        Color[] blues = {new Color(0x08306b), new Color(0x2171b5), new Color(0x6baed6)};
        Color[] oranges = {new Color(0x8c2d04), new Color(0xd94801), new Color(0xfd8d3c)};
        int ours = 0;
        int papers = 0;
        for (var series : chart.getSeriesMap().entrySet()) {
            if (series.getKey().startsWith("ours")) {
                series.getValue().setFillColor(blues[Math.min(ours++, blues.length - 1)]);
            } else {
                series.getValue().setFillColor(oranges[Math.min(papers++, oranges.length - 1)]);
            }
        }
        return chart;
    }

    private static Double seconds(Double millis) {
        return millis == null ? null : millis / 1e3;
    }

    /** A grouped bar chart, or null if no series has a value. */
    static CategoryChart bars(String title, String yTitle, List<Summary.Row> rows, Function<Summary.Row, String> label,
                              Map<String, Function<Summary.Row, Double>> series) {
        CategoryChart chart = new CategoryChartBuilder().width(WIDTH).height(HEIGHT).title(title).xAxisTitle("kernel")
                .yAxisTitle(yTitle).build();
        chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideS).setLegendLayout(Styler.LegendLayout.Horizontal);
        chart.getStyler().setLabelsVisible(false);
        chart.getStyler().setChartBackgroundColor(Color.WHITE);
        List<String> categories = rows.stream().map(label).toList();
        boolean any = false;
        for (var entry : series.entrySet()) {
            List<Double> values = rows.stream().map(entry.getValue()).toList();
            if (values.stream().allMatch(Objects::isNull)) {
                continue;
            }
            // An absent value is a missing bar (height 0); the README's tables say n/a.
            List<Double> plotted = values.stream().map(v -> v == null ? 0.0 : v).toList();
            chart.addSeries(entry.getKey(), categories, plotted);
            any = true;
        }
        return any ? chart : null;
    }

    /** Writes {@code chart} as {@code directory/name} (PNG) and lists it in {@code written}; no chart (null): deletes an old file. */
    public static void save(Path directory, String name, org.knowm.xchart.internal.chartpart.Chart<?, ?> chart, List<String> written)
            throws IOException {
        Path file = directory.resolve(name);
        if (chart == null) {
            Files.deleteIfExists(file);
            return;
        }
        BitmapEncoder.saveBitmap(chart, file.toString(), BitmapEncoder.BitmapFormat.PNG);
        written.add(name);
    }

    static String format(double value) {
        return String.format(Locale.ROOT, "%.2f", value);
    }
}
