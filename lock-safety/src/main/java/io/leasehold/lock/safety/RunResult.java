package io.leasehold.lock.safety;

import io.leasehold.lock.history.checker.CheckReport;
import io.leasehold.lock.history.checker.OverlapKind;
import io.leasehold.lock.history.checker.ProcessProgress;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;

/**
 * One run of one scenario with one driver: the checker's report, the scenario's own findings and
 * figures, and where its histories are.
 *
 * @param scenario the scenario's name
 * @param losesData whether the scenario loses Redis data (untold overlaps are then judged by the checker's separate rules)
 * @param driver the driver
 * @param run the run's number, from 1
 * @param dir the run's history directory
 * @param report the checker's report ({@code null} when the run broke before it could be checked)
 * @param failures what the scenario demanded and did not get, and what broke the run
 * @param figures the scenario's own measurements
 * @param seconds how long the run took
 */
record RunResult(
        String scenario,
        boolean losesData,
        Driver driver,
        int run,
        Path dir,
        CheckReport report,
        List<String> failures,
        List<String> figures,
        double seconds) {

    /**
     * True when the checker passed, every demand of the scenario held, and no overlap went untold
     * except where the checker's separate rules apply and allowed it: a Redis data loss in a data-loss
     * scenario, or a frozen holder ({@code HOLDER_PAUSED}).
     */
    boolean passed() {
        return report != null && report.passed() && failures.isEmpty() && (losesData || dataLossOverlaps() == 0);
    }

    private long dataLossOverlaps() {
        return report == null ? 0 : report.overlaps(OverlapKind.DATA_LOSS).size();
    }

    long sections() {
        return report == null
                ? 0
                : report.progress().values().stream()
                        .mapToLong(ProcessProgress::sections)
                        .sum();
    }

    int violations() {
        return report == null ? 0 : report.violations().size();
    }

    /** Overlaps whose earlier holder was not told before the later began (data loss, paused holder, or a violation). */
    long untoldOverlaps() {
        return report == null
                ? 0
                : report.overlaps().stream()
                        .filter(o -> o.kind() != OverlapKind.TOLD_BEFORE)
                        .count();
    }

    /** The untold overlaps by kind. */
    java.util.Map<String, Long> untoldOverlapsByKind() {
        if (report == null) {
            return java.util.Map.of();
        }
        return report.overlaps().stream()
                .filter(o -> o.kind() != OverlapKind.TOLD_BEFORE)
                .collect(Collectors.groupingBy(o -> o.kind().name(), java.util.TreeMap::new, Collectors.counting()));
    }

    /** The untold overlaps by kind, e.g. {@code DATA_LOSS 2}. */
    String untoldOverlapKinds() {
        return untoldOverlapsByKind().entrySet().stream()
                .map(e -> e.getKey() + " " + e.getValue())
                .collect(Collectors.joining(", "));
    }

    long staleRejected() {
        return report == null
                ? 0
                : report.progress().values().stream()
                        .mapToLong(ProcessProgress::rejected)
                        .sum();
    }

    /** The longest time from a declared fault to the loss signal it caused, in microseconds; {@code null} if none. */
    Long maxDetectionDelayMicros() {
        return report == null ? null : report.maxLossDetectionDelayMicros();
    }

    /** What went wrong, for a failure message: the scenario's findings, then the checker's report. */
    String explain() {
        StringBuilder text =
                new StringBuilder(scenario + " / " + driver.label() + " run " + run + " (histories in " + dir + ")\n");
        failures.forEach(
                f -> text.append("  scenario demand failed: ").append(f).append('\n'));
        if (!losesData && dataLossOverlaps() > 0) {
            text.append("  data-loss overlaps outside a data-loss scenario: ")
                    .append(untoldOverlapKinds())
                    .append('\n');
        }
        if (report != null) {
            text.append(report.summary());
        }
        return text.toString();
    }
}
