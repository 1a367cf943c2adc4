package io.leasehold.lock.history;

/**
 * A worker process finished its run normally: {@code {"type":"process-end","process":"w1","time":…}}.
 * A worker without one, that no declared {@link FaultEffect#KILL} explains, is reported as unfinished.
 *
 * @param process the worker
 * @param time when it finished, in microseconds ({@link HistoryClock})
 */
public record ProcessEnded(String process, long time) implements HistoryEvent {

    public static final String TYPE = "process-end";

    public ProcessEnded {
        Checks.name(TYPE, "process", process);
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
