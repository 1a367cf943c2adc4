package io.leasehold.lock.history;

/**
 * A critical section began: {@code {"type":"section-start","process":"w1","lock":"L","token":"1795…","time":…}}.
 * Read the clock <em>after</em> the acquire returned and before the first access, so that the logged
 * section contains every access it made: then two logged sections overlap exactly when their work may
 * have.
 *
 * @param process the worker
 * @param lock the lock name
 * @param token the fencing token of the lease (identifies the section with the process and lock)
 * @param time when the section began, in microseconds ({@link HistoryClock})
 */
public record SectionStarted(String process, String lock, long token, long time) implements HistoryEvent {

    public static final String TYPE = "section-start";

    public SectionStarted {
        Checks.name(TYPE, "process", process);
        Checks.name(TYPE, "lock", lock);
        Checks.token(TYPE, token);
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
