package io.leasehold.lock.history;

import java.util.Objects;

/**
 * A critical section ended: {@code {"type":"section-end","process":"w1","lock":"L","token":"1795…","time":…,"ending":"RELEASED"}}.
 * Read the clock after the last access returned and before the release is sent, so that the section
 * contains all its accesses and ends before anyone else can acquire the lock through this release.
 *
 * @param process the worker
 * @param lock the lock name
 * @param token the fencing token of the section's lease
 * @param time when the section ended, in microseconds ({@link HistoryClock})
 * @param ending how it ended, as the holder learned it (write the record after the release returned)
 */
public record SectionEnded(String process, String lock, long token, long time, SectionEnding ending)
        implements HistoryEvent {

    public static final String TYPE = "section-end";

    public SectionEnded {
        Checks.name(TYPE, "process", process);
        Checks.name(TYPE, "lock", lock);
        Checks.token(TYPE, token);
        Objects.requireNonNull(ending, TYPE + ".ending");
    }

    @Override
    public String type() {
        return TYPE;
    }

    @Override
    public long latestTime() {
        return time;
    }
}
