package org.mpirunft.npb.sim;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.function.Predicate;
import java.util.function.ToDoubleFunction;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * The simulation's two plots for one kernel's costs: efficiency against node count (at the headline
 * MTBF) and against per-node MTBF (at the headline node count), each recovery mode in its own colour,
 * the simulated mean as points with their 95% CI and Daly's model (computed) as a dashed line.
 */
public final class SimulationPlots {
    public static final String AGAINST_NODES = "efficiency-vs-nodes.png";
    public static final String AGAINST_MTBF = "efficiency-vs-mtbf.png";
    private static final int WIDTH = 1100;
    private static final int HEIGHT = 560;
    private static final Color[] COLOURS = {new Color(0x1b9e77), new Color(0xd95f02), new Color(0x7570b3)};

    private SimulationPlots() {
    }

    /** Writes both plots into {@code directory} (a plot with fewer than two points is left out); returns the names written. */
    public static List<String> write(Path directory, List<SimulationGrid.Row> rows, SimulationCosts.Kernel kernel, int headlineNodes,
                                     double headlineYears) throws IOException {
        System.setProperty("java.awt.headless", "true");
        Files.createDirectories(directory);
        List<String> written = new ArrayList<>();
        List<SimulationGrid.Row> mine = rows.stream().filter(r -> r.kernel().equals(kernel)).toList();
        org.mpirunft.npb.bench.Plots.save(directory, AGAINST_NODES, chart(String.format(Locale.ROOT, "Efficiency against node count, per-node MTBF %s years (%s costs)",
                        SimulationReport.years(headlineYears), kernel.label()), "nodes (log scale)", mine,
                r -> r.mtbfYears() == headlineYears, SimulationGrid.Row::nodes), written);
        org.mpirunft.npb.bench.Plots.save(directory, AGAINST_MTBF, chart(String.format(Locale.ROOT, "Efficiency against per-node MTBF, %,d nodes (%s costs)",
                        headlineNodes, kernel.label()), "per-node MTBF, years (log scale)", mine, r -> r.nodes() == headlineNodes,
                SimulationGrid.Row::mtbfYears), written);
        return written;
    }

    private static XYChart chart(String title, String xTitle, List<SimulationGrid.Row> rows, Predicate<SimulationGrid.Row> slice,
                                 ToDoubleFunction<SimulationGrid.Row> x) {
        XYChart chart = new XYChartBuilder().width(WIDTH).height(HEIGHT).title(title).xAxisTitle(xTitle).yAxisTitle("efficiency, %").build();
        chart.getStyler().setXAxisLogarithmic(true);
        chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
        chart.getStyler().setLegendLayout(Styler.LegendLayout.Vertical);
        chart.getStyler().setChartBackgroundColor(Color.WHITE);
        chart.getStyler().setErrorBarsColorSeriesColor(true);
        int colour = 0;
        boolean any = false;
        for (RecoveryMode mode : RecoveryMode.values()) {
            List<SimulationGrid.Row> points = rows.stream().filter(r -> r.mode() == mode).filter(slice)
                    .sorted(Comparator.comparingDouble(x)).toList();
            if (points.size() < 2) {
                continue;
            }
            Color c = COLOURS[colour++ % COLOURS.length];
            double[] xs = points.stream().mapToDouble(x).toArray();
            XYSeries simulated = chart.addSeries(mode.label() + ", simulated", xs,
                    points.stream().mapToDouble(r -> 100 * r.simulated().mean()).toArray(),
                    points.stream().mapToDouble(r -> 100 * Estimate.Z95 * r.simulated().standardError()).toArray());
            // Points only, so that Daly's dashed line under them stays visible.
            simulated.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Scatter);
            simulated.setLineColor(c);
            simulated.setMarkerColor(c);
            simulated.setMarker(SeriesMarkers.CIRCLE);
            XYSeries daly = chart.addSeries(mode.label() + ", Daly (computed)", xs, points.stream().mapToDouble(r -> 100 * r.daly()).toArray());
            daly.setLineColor(c);
            daly.setMarker(SeriesMarkers.NONE);
            daly.setLineStyle(new BasicStroke(1.5f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] {6f, 4f}, 0f));
            any = true;
        }
        return any ? chart : null;
    }

}
