package io.leasehold.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
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
    private final List<Measurement> quorum;
    private final Environment environment;

    Report(List<Measurement> results, Environment environment) {
        this(results, List.of(), environment);
    }

    /** With the quorum group's runs ({@link QuorumReport}), in a section of their own after the other scenarios. */
    Report(List<Measurement> results, List<Measurement> quorum, Environment environment) {
        this.results = results;
        this.quorum = quorum;
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
                "Round trips count script calls and (un)subscribes; Redis commands also count the commands scripts run.\n");
        if (results.stream().anyMatch(run -> run.figures().containsKey(Figures.CLIENT_CPU_MICROS_PER_OP))) {
            md.append(
                    "Client CPU is the bench JVM's CPU over the window per op: the contender's client threads, the"
                            + " workers' loop (the same for every contender), JIT and GC; the FIFO audit's threads are left out.\n");
        }
        if (results.stream().anyMatch(run -> run.figures().containsKey(Figures.FIFO_VIOLATIONS))) {
            md.append("FIFO checked grants and FIFO violations are totals over the rounds of the FIFO audit of"
                    + " Leasehold's fair rows (FifoCheck: grants checked against the wait queue sampled in Redis);"
                    + " – where not measured (only Leasehold's fair rows are audited, not Redisson's RFairLock)."
                    + " The audit's commands are left out of those rows' counts, but its share of the server's CPU"
                    + " (a sample every 2 ms, one more subscriber) is in their Redis CPU µs/op: --no-fifo-audit"
                    + " leaves it out.\n");
        }
        md.append('\n');
        for (Map.Entry<String, Map<String, List<Measurement>>> scenario :
                byScenario().entrySet()) {
            md.append("## ").append(scenario.getKey()).append("\n\n");
            renderScenario(md, scenario.getValue());
            md.append('\n');
        }
        md.append(QuorumReport.render(quorum));
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
                double value = aggregate(figure, values(row.getValue(), figure));
                cells.add(Figures.TOTALLED.contains(figure) ? count(value) : number(value));
            }
            md.append('|').append(String.join("|", cells)).append("|\n");
        }
        flagFifoViolations(md, byContender);
    }

    /** The median of a figure over the rounds, or the total of one that must show every round's ({@link Figures#TOTALLED}); NaN if none. */
    private static double aggregate(String figure, double[] values) {
        if (values.length == 0 || !Figures.TOTALLED.contains(figure)) {
            return Stats.median(values);
        }
        double total = 0;
        for (double value : values) {
            total += value;
        }
        return total;
    }

    /** A line under the table for each row whose FIFO audit found a violation in any round: a figure in a column is too easily read past. */
    private static void flagFifoViolations(StringBuilder md, Map<String, List<Measurement>> byContender) {
        byContender.forEach((contender, runs) -> {
            double[] violations = values(runs, Figures.FIFO_VIOLATIONS);
            double total = aggregate(Figures.FIFO_VIOLATIONS, violations);
            if (total > 0) {
                long rounds = Arrays.stream(violations).filter(v -> v > 0).count();
                md.append(String.format(
                        Locale.ROOT,
                        "%n**FIFO ORDER VIOLATED: %s**, %.0f violation(s) in %d of %d round(s); the bench's output tells each.%n",
                        contender,
                        total,
                        rounds,
                        violations.length));
            }
        });
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

    /** A total count: whole, with thousands separators; – for none. */
    static String count(double value) {
        return Double.isNaN(value) ? "–" : String.format(Locale.ROOT, "%,.0f", value);
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
