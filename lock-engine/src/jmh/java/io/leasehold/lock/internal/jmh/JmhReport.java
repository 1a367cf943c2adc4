package io.leasehold.lock.internal.jmh;

import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;

/**
 * The Markdown form of a JMH run, as committed in {@code results/JMH.md}: the machine line (as
 * RESULTS.md has it), then one row per benchmark and parameter set with its mode, score ± error and
 * units.
 */
final class JmhReport {

    private final Machine machine;
    private final List<Row> rows;

    JmhReport(Machine machine, List<Row> rows) {
        this.machine = machine;
        this.rows = List.copyOf(rows);
    }

    String render() {
        StringBuilder md = new StringBuilder();
        md.append("# Leasehold JMH microbenchmarks\n\n");
        md.append(machine.line()).append("\n\n");
        md.append("The engine's local work on its hot paths (no Redis round trip; see each benchmark's Javadoc in\n");
        md.append(
                "`lock-engine/src/jmh/java`). avgt is the average time per operation: lower is better. The error is\n");
        md.append("JMH's 99.9% confidence half-interval over the measured iterations; with one fork it leaves out\n");
        md.append("fork-to-fork variation. Compare figures within one run only: the machine is shared and noisy.\n\n");
        md.append("|benchmark|mode|score ± error|units|\n");
        md.append("|---|---|---|---|\n");
        for (Row row : rows) {
            md.append('|')
                    .append(row.benchmark())
                    .append('|')
                    .append(row.mode())
                    .append('|')
                    .append(scoreWithError(row.score(), row.error()))
                    .append('|')
                    .append(row.units())
                    .append("|\n");
        }
        return md.toString();
    }

    /** Score and error with the same number of decimals, fewer as the score grows: {@code 12,345 ± 678}, {@code 25.31 ± 0.42}. */
    static String scoreWithError(double score, double error) {
        double size = Math.abs(score);
        int decimals = size >= 100 ? 0 : size >= 10 ? 1 : size >= 1 ? 2 : 3;
        String format = "%,." + decimals + "f";
        String err = Double.isNaN(error) ? "n/a" : String.format(Locale.ROOT, format, error);
        return String.format(Locale.ROOT, format, score) + " ± " + err;
    }

    /** One benchmark with one parameter set. */
    record Row(String benchmark, String mode, double score, double error, String units) {

        static Row of(RunResult result) {
            BenchmarkParams params = result.getParams();
            List<String> values = new ArrayList<>();
            for (String key : params.getParamsKeys()) {
                values.add(key + "=" + params.getParam(key));
            }
            String name =
                    shortName(params.getBenchmark()) + (values.isEmpty() ? "" : " (" + String.join(", ", values) + ")");
            Result<?> primary = result.getPrimaryResult();
            return new Row(
                    name,
                    params.getMode().shortLabel(),
                    primary.getScore(),
                    primary.getScoreError(),
                    primary.getScoreUnit());
        }

        /** {@code Class.method}: the package is the same for all of them. */
        private static String shortName(String benchmark) {
            int method = benchmark.lastIndexOf('.');
            int type = benchmark.lastIndexOf('.', method - 1);
            return benchmark.substring(type + 1);
        }
    }

    /** Where and how the run was made, printed above the table so that figures are never quoted without it. */
    record Machine(String date, int cores, String vm, String jmh, String settings) {

        static Machine of(Collection<RunResult> results, LocalDate date) {
            BenchmarkParams first = results.iterator().next().getParams();
            Set<String> settings = new LinkedHashSet<>();
            for (RunResult result : results) {
                settings.add(settings(result.getParams()));
            }
            return new Machine(
                    date.toString(),
                    Runtime.getRuntime().availableProcessors(),
                    first.getVmName() + " " + first.getJdkVersion(),
                    first.getJmhVersion(),
                    String.join("; ", settings));
        }

        String line() {
            return date + " · " + cores + " cores · " + vm + " · JMH " + jmh + " · " + settings;
        }

        private static String settings(BenchmarkParams params) {
            return params.getForks() + (params.getForks() == 1 ? " fork" : " forks") + ", "
                    + iterations(params.getWarmup()) + " warm-up, " + iterations(params.getMeasurement())
                    + " measured, "
                    + params.getThreads() + (params.getThreads() == 1 ? " thread" : " threads");
        }

        private static String iterations(IterationParams iterations) {
            return iterations.getCount() + " × " + iterations.getTime();
        }
    }
}
