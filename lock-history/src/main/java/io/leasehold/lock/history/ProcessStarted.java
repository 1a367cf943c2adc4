package io.leasehold.lock.history;

/**
 * A worker process started: {@code {"type":"process-start","process":"w1","time":…}}. Written first
 * by every worker, so that the checker knows which processes should have made progress.
 *
 * @param process the worker
 * @param time when it started, in microseconds ({@link HistoryClock})
 */
public record ProcessStarted(String process, long time) implements HistoryEvent {

    public static final String TYPE = "process-start";

    public ProcessStarted {
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
