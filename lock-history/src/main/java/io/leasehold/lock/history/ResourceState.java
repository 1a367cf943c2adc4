package io.leasehold.lock.history;

/**
 * The final state of a fenced resource, written once after the run (with its {@link ResourceUpdate}s):
 * {@code {"type":"resource-state","process":"runner","resource":"stock","value":120,"highest":"1795…","seq":410,"time":…}}.
 * The checker compares the counter with the log of accepted updates.
 *
 * @param process who took the snapshot
 * @param resource the resource's name
 * @param value its counter
 * @param highest the highest token it has seen, or {@code null} if it never saw one
 * @param seq how many accesses it has numbered
 * @param time when the snapshot was taken, in microseconds (the resource server's clock)
 */
public record ResourceState(String process, String resource, long value, Long highest, long seq, long time)
        implements HistoryEvent {

    public static final String TYPE = "resource-state";

    public ResourceState {
        Checks.name(TYPE, "process", process);
        Checks.name(TYPE, "resource", resource);
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
