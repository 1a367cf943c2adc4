package io.leasehold.lock.internal.jmh;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The Markdown table the -Pjmh run commits: what a row and the machine line look like. */
class JmhReportTest {

    @Test
    void shouldPrintOneRowPerBenchmarkBelowTheMachineLine() {
        JmhReport.Machine machine = new JmhReport.Machine(
                "2026-11-25",
                2,
                "OpenJDK 64-Bit Server VM 17.0.15",
                "1.37",
                "1 fork, 3 × 1 s warm-up, 5 × 1 s measured, 1 thread");
        List<JmhReport.Row> rows = List.of(
                new JmhReport.Row("RenewerBenchmark.addThenRemove (leases=10000)", "avgt", 41.234, 3.21, "us/op"),
                new JmhReport.Row("OwnerIdBenchmark.next", "avgt", 1234.5, 56.7, "ns/op"));

        String table = new JmhReport(machine, rows).render();

        assertThat(table)
                .contains("2026-11-25 · 2 cores · OpenJDK 64-Bit Server VM 17.0.15 · JMH 1.37 · 1 fork, "
                        + "3 × 1 s warm-up, 5 × 1 s measured, 1 thread\n");
        assertThat(table)
                .contains("|benchmark|mode|score ± error|units|\n|---|---|---|---|\n"
                        + "|RenewerBenchmark.addThenRemove (leases=10000)|avgt|41.2 ± 3.2|us/op|\n"
                        + "|OwnerIdBenchmark.next|avgt|1,235 ± 57|ns/op|\n");
    }

    @Test
    void shouldGiveScoreAndErrorTheSameDecimalsFewerAsTheScoreGrows() {
        assertThat(JmhReport.scoreWithError(0.1234, 0.01)).isEqualTo("0.123 ± 0.010");
        assertThat(JmhReport.scoreWithError(25.314, 0.4)).isEqualTo("25.3 ± 0.4");
        assertThat(JmhReport.scoreWithError(5.314, 0.4)).isEqualTo("5.31 ± 0.40");
        assertThat(JmhReport.scoreWithError(12345.6, 678.9)).isEqualTo("12,346 ± 679");
        assertThat(JmhReport.scoreWithError(7.0, Double.NaN)).isEqualTo("7.00 ± n/a");
    }
}
