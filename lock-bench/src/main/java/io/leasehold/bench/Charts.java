package io.leasehold.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;

/** PNG bar charts of the medians: uncontended and contended throughput, and contended handoff latency p99. */
final class Charts {

    static final String UNCONTENDED = "throughput-uncontended.png";
    static final String CONTENDED = "throughput-contended.png";
    static final String HANDOFF = "handoff-p99.png";

    private Charts() {}

    /** One chart: its file, which measurements it shows, the figure, its title and unit, and its alt text in the report. */
    private record Chart(
            String file, Predicate<Measurement> shown, String figure, String title, String unit, String alt) {
        boolean hasData(List<Measurement> results) {
            return results.stream().anyMatch(m -> shown.test(m) && m.figures().containsKey(figure));
        }
    }

    private static final List<Chart> CHARTS = List.of(
            new Chart(
                    UNCONTENDED,
                    m -> m.scenario().startsWith("uncontended"),
                    Figures.OPS_PER_SECOND,
                    "Uncontended: acquire + release pairs per second (median)",
                    "pairs/s",
                    "uncontended throughput"),
            new Chart(
                    CONTENDED,
                    m -> m.scenario().startsWith("contended"),
                    Figures.OPS_PER_SECOND,
                    "Contended, one key: handoffs per second (median)",
                    "handoffs/s",
                    "contended throughput"),
            new Chart(
                    HANDOFF,
                    m -> true,
                    Figures.HANDOFF_P99_MICROS,
                    "Contended handoff latency p99 (median; lower is better)",
                    "µs",
                    "handoff latency"));

    /** Writes the charts the results have data for (a scenario left out with --only has none). */
    static void write(List<Measurement> results, Path directory) throws IOException {
        for (Chart chart : CHARTS) {
            if (chart.hasData(results)) {
                bars(
                        results,
                        chart.shown(),
                        chart.figure(),
                        chart.title(),
                        chart.unit(),
                        directory.resolve(chart.file()));
            }
        }
    }

    /** Markdown image lines for the charts {@link #write} draws from {@code results}. */
    static List<String> imageLines(List<Measurement> results) {
        return CHARTS.stream()
                .filter(chart -> chart.hasData(results))
                .map(chart -> "![" + chart.alt() + "](" + chart.file() + ")")
                .toList();
    }

    private static void bars(
            List<Measurement> all, Predicate<Measurement> shown, String figure, String title, String unit, Path file)
            throws IOException {
        List<Measurement> results = all.stream().filter(shown).toList();
        Set<String> scenarios = new LinkedHashSet<>();
        Set<String> contenders = new java.util.TreeSet<>();
        for (Measurement m : results) {
            if (m.figures().containsKey(figure)) {
                scenarios.add(m.scenario());
                contenders.add(m.contender());
            }
        }
        CategoryChart chart = new CategoryChartBuilder()
                .width(1200)
                .height(600)
                .title(title)
                .yAxisTitle(unit)
                .build();
        chart.getStyler().setXAxisLabelRotation(15);
        chart.getStyler().setLegendPosition(org.knowm.xchart.style.Styler.LegendPosition.InsideNE);
        List<String> xs = new ArrayList<>(scenarios);
        for (String contender : contenders) {
            List<Double> ys = new ArrayList<>();
            for (String scenario : xs) {
                double[] values = Report.values(
                        results.stream()
                                .filter(m -> m.scenario().equals(scenario)
                                        && m.contender().equals(contender))
                                .toList(),
                        figure);
                ys.add(values.length == 0 ? 0.0 : Stats.median(values));
            }
            chart.addSeries(contender, xs, ys);
        }
        BitmapEncoder.saveBitmap(chart, file.toString(), BitmapEncoder.BitmapFormat.PNG);
    }
}
