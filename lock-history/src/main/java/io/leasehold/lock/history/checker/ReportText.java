package io.leasehold.lock.history.checker;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** Formats a {@link CheckReport} for a person. */
final class ReportText {

    private ReportText() {}

    static String of(CheckReport report) {
        StringBuilder text = new StringBuilder();
        text.append("Leasehold history check: ")
                .append(report.passed() ? "PASSED" : "FAILED")
                .append(" (")
                .append(report.violations().size())
                .append(" violation(s), ")
                .append(report.overlaps().size())
                .append(" overlap(s)); ")
                .append(report.events())
                .append(" records over ")
                .append(duration(report.runEnd() - report.runStart()))
                .append('\n');
        section(
                text,
                "violations",
                report.violations().stream().map(Violation::toString).toList());
        section(
                text,
                "overlaps",
                report.overlaps().stream().map(Overlap::describe).toList());
        Map<String, ProcessProgress> progress = new TreeMap<>(report.progress());
        section(
                text,
                "progress",
                progress.values().stream().map(ReportText::progress).toList());
        text.append("loss signals: ").append(report.lossDelays().size());
        Long maxDelay = report.maxLossDetectionDelayMicros();
        if (maxDelay != null) {
            text.append(", longest after a declared fault ").append(duration(maxDelay));
        }
        report.lossDelays().stream()
                .map(LossDelay::marginMicros)
                .filter(m -> m != null)
                .min(Long::compare)
                .ifPresent(m ->
                        text.append(", smallest margin before the next holder ").append(duration(m)));
        report.lossDelays().stream()
                .mapToLong(LossDelay::notificationLagMicros)
                .max()
                .ifPresent(lag -> text.append(", longest callback lag ").append(duration(lag)));
        text.append('\n');
        section(text, "notes", report.notes());
        return text.toString();
    }

    private static void section(StringBuilder text, String title, List<String> lines) {
        text.append(title)
                .append(": ")
                .append(lines.isEmpty() ? "none" : lines.size())
                .append('\n');
        for (String line : lines) {
            text.append("  ").append(line).append('\n');
        }
    }

    private static String progress(ProcessProgress p) {
        return p.process() + ": " + p.acquired() + "/" + p.attempts() + " acquired (" + p.timeouts() + " timeout, "
                + p.errors() + " error, " + p.cancelled() + " cancelled), " + p.sections() + " sections, accesses "
                + p.accepted() + " accepted / " + p.rejected() + " rejected / " + p.unknown() + " unknown, "
                + p.losses() + " lost, longest silence " + duration(p.longestSilenceMicros())
                + (p.finished() ? "" : ", NOT finished");
    }

    private static String duration(long micros) {
        return Duration.ofNanos(micros * 1_000).toString();
    }
}
