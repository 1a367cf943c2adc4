package io.leasehold.lock.safety;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The suite's results as Markdown: one row per scenario and driver (runs, critical sections,
 * violations, untold overlaps, stale accesses rejected, max detection delay, runs passed), then each
 * run's own figures.
 */
final class ResultsTable {

    private ResultsTable() {}

    static String markdown(List<RunResult> results, SuiteSettings settings) {
        Map<String, List<RunResult>> rows = new LinkedHashMap<>();
        for (RunResult result : results) {
            rows.computeIfAbsent(result.scenario() + " | " + result.driver().label(), k -> new ArrayList<>())
                    .add(result);
        }
        StringBuilder md = new StringBuilder();
        md.append(
                "| scenario | driver | runs | critical sections | violations | untold overlaps | stale accesses rejected"
                        + " | max detection delay | passed |\n");
        md.append("|---|---|---:|---:|---:|---|---:|---:|---:|\n");
        rows.forEach((key, runs) -> {
            long sections = runs.stream().mapToLong(RunResult::sections).sum();
            long violations = runs.stream().mapToLong(RunResult::violations).sum();
            long untold = runs.stream().mapToLong(RunResult::untoldOverlaps).sum();
            long rejected = runs.stream().mapToLong(RunResult::staleRejected).sum();
            Long delay = runs.stream()
                    .map(RunResult::maxDetectionDelayMicros)
                    .filter(Objects::nonNull)
                    .max(Long::compare)
                    .orElse(null);
            long passed = runs.stream().filter(RunResult::passed).count();
            String kinds = untold == 0
                    ? "0"
                    : untold + " ("
                            + runs.stream()
                                    .flatMap(r -> r.untoldOverlapsByKind().entrySet().stream())
                                    .collect(java.util.stream.Collectors.groupingBy(
                                            Map.Entry::getKey,
                                            java.util.TreeMap::new,
                                            java.util.stream.Collectors.summingLong(Map.Entry::getValue)))
                                    .entrySet()
                                    .stream()
                                    .map(e -> e.getKey() + " " + e.getValue())
                                    .collect(java.util.stream.Collectors.joining(", "))
                            + ")";
            md.append("| ")
                    .append(key)
                    .append(" | ")
                    .append(runs.size())
                    .append(" | ")
                    .append(sections)
                    .append(" | ")
                    .append(violations)
                    .append(" | ")
                    .append(kinds)
                    .append(" | ")
                    .append(rejected)
                    .append(" | ")
                    .append(delay == null ? "—" : String.format("%.0f ms", delay / 1000.0))
                    .append(" | ")
                    .append(passed)
                    .append('/')
                    .append(runs.size())
                    .append(" |\n");
        });
        md.append("\n")
                .append(settings.workers())
                .append(" worker processes per run contending for ")
                .append(SuiteSettings.LOCKS.size())
                .append(" locks, lease ")
                .append(Scenario.LEASE.toMillis())
                .append(" ms (renewed every ")
                .append(Scenario.LEASE.dividedBy(3).toMillis())
                .append(" ms), sections of ")
                .append(SuiteSettings.MIN_HOLD.toMillis())
                .append("-")
                .append(SuiteSettings.MAX_HOLD.toMillis())
                .append(" ms (the targeted worker's ")
                .append(Scenario.LEASE.multipliedBy(3).dividedBy(2).toMillis())
                .append(
                        " ms in partition, outage, restart and failover); untold overlaps are allowed only in the data-loss scenarios (restart without persistence,"
                                + " failover to a lagging replica) and with a frozen holder (HOLDER_PAUSED), under the checker's"
                                + " separate rules; max detection delay is from the fault's start to the loss signal.\n\n");
        md.append("Per run:\n\n");
        for (RunResult result : results) {
            md.append("- ")
                    .append(result.scenario())
                    .append(" / ")
                    .append(result.driver().label())
                    .append(" #")
                    .append(result.run())
                    .append(": ")
                    .append(result.passed() ? "passed" : "FAILED")
                    .append(String.format(" in %.0f s", result.seconds()));
            if (!result.figures().isEmpty()) {
                md.append("; ").append(String.join("; ", result.figures()));
            }
            md.append('\n');
        }
        return md.toString();
    }

    static void write(Path file, String markdown) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        Files.writeString(file, markdown);
    }
}
