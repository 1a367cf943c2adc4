package io.leasehold.lock.history;

/**
 * One record of a safety-test history: one line of a history file (see the package documentation
 * for the format). Every record names the process that wrote it.
 *
 * <p>Implementations are immutable records and threadsafe.
 */
public sealed interface HistoryEvent
        permits ProcessStarted,
                ProcessEnded,
                AcquireAttempt,
                SectionStarted,
                ResourceAccess,
                LossSignal,
                SectionEnded,
                FaultWindow,
                ResourceState,
                ResourceUpdate {

    /** The process that wrote the record: a name chosen by the run, e.g. {@code worker-3}. */
    String process();

    /** The record's {@code type} in the file, e.g. {@code section-start}. */
    String type();

    /** The latest time the record mentions (its end, for a record with a start and an end), in microseconds. */
    long latestTime();
}
