package io.leasehold.lock.history;

import java.util.List;
import java.util.Objects;

/**
 * The records of a run, from every process, in the order they were read, plus notes about the input
 * (a cut last line that was skipped). Made by {@link HistoryReader}, or directly by {@link #of}.
 *
 * <p>This class is immutable and threadsafe.
 */
public final class History {

    private final List<HistoryEvent> events;
    private final List<String> notes;

    private History(List<HistoryEvent> events, List<String> notes) {
        this.events = List.copyOf(events);
        this.notes = List.copyOf(notes);
    }

    /** A history of {@code events}, with no notes. */
    public static History of(List<? extends HistoryEvent> events) {
        return of(events, List.of());
    }

    /** A history of {@code events} with {@code notes} about how they were read. */
    public static History of(List<? extends HistoryEvent> events, List<String> notes) {
        Objects.requireNonNull(events, "events");
        Objects.requireNonNull(notes, "notes");
        return new History(List.copyOf(events), notes);
    }

    public List<HistoryEvent> events() {
        return events;
    }

    /** What the reader noticed and worked around, e.g. {@code "w3.jsonl:812: cut last line skipped"}. */
    public List<String> notes() {
        return notes;
    }

    @Override
    public String toString() {
        return "History{" + events.size() + " events, " + notes.size() + " notes}";
    }
}
