package io.leasehold.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The Markdown report: per scenario, one row per contender with the median of each figure over the
 * rounds (and, with more than one round, the min–max spread of the headline figure), and ratios of
 * the headline figure to Redisson's (RFairLock for a fair lock's row, RLock for any other) and to the
 * raw baseline's.
 */
final class Report {

    static final String FILE = "RESULTS.md";
    static final String REDISSON = "Redisson RLock";
    static final String REDISSON_FAIR = "Redisson RFairLock";
    static final String RAW = "raw script";

    private final List<Measurement> results;
    private final Environment environment;

    Report(List<Measurement> results, Environment environment) {
        this.results = results;
        this.environment = environment;
    }

    void write(Path directory) throws IOException {
        Files.createDirectories(directory);
        Files.writeString(directory.resolve(FILE), render());
    }

    String render() {
        StringBuilder md = new StringBuilder();
        md.append("# Leasehold bench results\n\n");
        md.append(String.format(
                Locale.ROOT,
                "%s · %d cores · %s · redis-server %s · %s%n%n",
                environment.date(),
                environment.cores(),
                environment.java(),
                environment.redis(),
                environment.parameters()));
        md.append("Medians over the rounds; the spread is min–max over the rounds. Ratios compare medians;"
                + " × Redisson compares a fair lock's row with Redisson's RFairLock, any other with RLock.\n");
        md.append(
                "Round trips count script calls and (un)subscribes; Redis commands also count the commands scripts run.\n\n");
        for (Map.Entry<String, Map<String, List<Measurement>>> scenario :
                byScenario().entrySet()) {
            md.append("## ").append(scenario.getKey()).append("\n\n");
            renderScenario(md, scenario.getValue());
            md.append('\n');
        }
        md.append(String.join("\n\n", Charts.imageLines(results))).append('\n');
        return md.toString();
    }

    private void renderScenario(StringBuilder md, Map<String, List<Measurement>> byContender) {
        Set<String> figures = new LinkedHashSet<>();
        byContender
                .values()
                .forEach(
                        runs -> runs.forEach(run -> figures.addAll(run.figures().keySet())));
        List<String> columns = new ArrayList<>(figures);
        String headline = columns.get(0);
        boolean spread = byContender.values().stream().anyMatch(runs -> runs.size() > 1);
        boolean vsRedisson =
                (byContender.containsKey(REDISSON) || byContender.containsKey(REDISSON_FAIR)) && byContender.size() > 1;
        boolean vsRaw = byContender.containsKey(RAW) && byContender.size() > 1;

        List<String> header = new ArrayList<>(List.of("contender"));
        header.add(headline + (spread ? " (min–max)" : ""));
        if (vsRedisson) {
            header.add("× Redisson"); // RLock, or RFairLock for a fair lock's row
        }
        if (vsRaw) {
            header.add("× raw");
        }
        header.addAll(columns.subList(1, columns.size()));
        md.append('|').append(String.join("|", header)).append("|\n");
        md.append('|').append("---|".repeat(header.size())).append('\n');

        for (Map.Entry<String, List<Measurement>> row : byContender.entrySet()) {
            List<String> cells = new ArrayList<>(List.of(row.getKey()));
            double[] values = values(row.getValue(), headline);
            String cell = number(Stats.median(values));
            if (spread && values.length > 1) {
                cell += " (" + number(min(values)) + "–" + number(max(values)) + ")";
            }
            cells.add(cell);
            if (vsRedisson) {
                // a fair lock against Redisson's fair lock, any other against RLock
                boolean fair = row.getKey().endsWith("fairLock") || row.getKey().equals(REDISSON_FAIR);
                List<Measurement> base = byContender.get(fair ? REDISSON_FAIR : REDISSON);
                cells.add(base == null ? "–" : ratio(Stats.median(values), Stats.median(values(base, headline))));
            }
            if (vsRaw) {
                cells.add(ratio(Stats.median(values), Stats.median(values(byContender.get(RAW), headline))));
            }
            for (String figure : columns.subList(1, columns.size())) {
                cells.add(number(Stats.median(values(row.getValue(), figure))));
            }
            md.append('|').append(String.join("|", cells)).append("|\n");
        }
    }

    private Map<String, Map<String, List<Measurement>>> byScenario() {
        Map<String, Map<String, List<Measurement>>> grouped = new LinkedHashMap<>();
        for (Measurement m : results) {
            grouped.computeIfAbsent(m.scenario(), s -> new LinkedHashMap<>())
                    .computeIfAbsent(m.contender(), c -> new ArrayList<>())
                    .add(m);
        }
        // Contenders in a fixed order in every table, whatever order a round ran them in.
        grouped.replaceAll((scenario, rows) -> {
            Map<String, List<Measurement>> ordered = new LinkedHashMap<>();
            rows.keySet().stream().sorted().forEach(name -> ordered.put(name, rows.get(name)));
            return ordered;
        });
        return grouped;
    }

    static double[] values(List<Measurement> runs, String figure) {
        return runs.stream()
                .filter(run -> run.figures().containsKey(figure))
                .mapToDouble(run -> run.figures().get(figure))
                .toArray();
    }

    private static String ratio(double value, double base) {
        if (Double.isNaN(value) || Double.isNaN(base) || base == 0) {
            return "–";
        }
        return String.format(Locale.ROOT, "%.2f×", value / base);
    }

    static String number(double value) {
        if (Double.isNaN(value)) {
            return "–";
        }
        if (Math.abs(value) >= 100) {
            return String.format(Locale.ROOT, "%,.0f", value);
        }
        return String.format(Locale.ROOT, "%.1f", value);
    }

    private static double min(double[] values) {
        double min = Double.POSITIVE_INFINITY;
        for (double v : values) {
            min = Math.min(min, v);
        }
        return min;
    }

    private static double max(double[] values) {
        double max = Double.NEGATIVE_INFINITY;
        for (double v : values) {
            max = Math.max(max, v);
        }
        return max;
    }
}
