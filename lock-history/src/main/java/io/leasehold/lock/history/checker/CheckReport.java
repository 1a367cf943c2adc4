package io.leasehold.lock.history.checker;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What {@link HistoryChecker} found: every violation, every overlap (allowed or not: none is ever
 * left out), each worker's progress, how promptly losses were signalled, and notes on what could not
 * be checked.
 *
 * <p>This class is immutable and threadsafe.
 */
public final class CheckReport {

    private final int events;
    private final long runStart;
    private final long runEnd;
    private final List<Violation> violations;
    private final List<Overlap> overlaps;
    private final Map<String, ProcessProgress> progress;
    private final List<LossDelay> lossDelays;
    private final List<String> notes;

    CheckReport(
            int events,
            long runStart,
            long runEnd,
            List<Violation> violations,
            List<Overlap> overlaps,
            Map<String, ProcessProgress> progress,
            List<LossDelay> lossDelays,
            List<String> notes) {
        this.events = events;
        this.runStart = runStart;
        this.runEnd = runEnd;
        this.violations = List.copyOf(violations);
        this.overlaps = List.copyOf(overlaps);
        this.progress = Map.copyOf(progress);
        this.lossDelays = List.copyOf(lossDelays);
        this.notes = List.copyOf(notes);
    }

    /** True when nothing was violated, safety or progress. */
    public boolean passed() {
        return violations.isEmpty();
    }

    /** True when no safety violation was found (progress problems aside). */
    public boolean safe() {
        return violations.stream().noneMatch(v -> v.kind().safety());
    }

    public List<Violation> violations() {
        return violations;
    }

    /** The violations of {@code kind}. */
    public List<Violation> violations(ViolationKind kind) {
        Objects.requireNonNull(kind, "kind");
        return violations.stream().filter(v -> v.kind() == kind).toList();
    }

    /** Every overlap of two sections of one lock, whatever its kind. */
    public List<Overlap> overlaps() {
        return overlaps;
    }

    /** The overlaps of {@code kind}. */
    public List<Overlap> overlaps(OverlapKind kind) {
        Objects.requireNonNull(kind, "kind");
        return overlaps.stream().filter(o -> o.kind() == kind).toList();
    }

    /** Each worker's progress, by process name. */
    public Map<String, ProcessProgress> progress() {
        return progress;
    }

    /** Each lost lease's signal timing, in order of detection. */
    public List<LossDelay> lossDelays() {
        return lossDelays;
    }

    /**
     * The longest time from a declared fault to the loss signal it caused, in microseconds; {@code null}
     * when no loss followed a declared fault.
     */
    public Long maxLossDetectionDelayMicros() {
        return lossDelays.stream()
                .map(LossDelay::afterFaultMicros)
                .filter(Objects::nonNull)
                .max(Long::compare)
                .orElse(null);
    }

    /** What could not be checked, or was read around (a cut last line); not failures, but worth reading. */
    public List<String> notes() {
        return notes;
    }

    /** How many records were checked. */
    public int events() {
        return events;
    }

    /** The earliest time in the history, in microseconds. */
    public long runStart() {
        return runStart;
    }

    /** The latest time in the history, in microseconds. */
    public long runEnd() {
        return runEnd;
    }

    /** The report as text for a person: verdict, violations, overlaps, progress, loss signals, notes. */
    public String summary() {
        return ReportText.of(this);
    }

    @Override
    public String toString() {
        return summary();
    }
}
