package io.leasehold.lock.history;

/**
 * One accepted write from a fenced resource's own append-only log, copied into the history after the
 * run: {@code {"type":"resource-update","process":"runner","resource":"stock","seq":42,"token":"1795…","previous":6,"value":7,"time":…}}.
 *
 * @param process who copied it
 * @param resource the resource's name
 * @param seq the access number the resource gave the write
 * @param token the write's fencing token
 * @param previous the value the write replaced
 * @param value the value written
 * @param time when the resource applied it, in microseconds (the resource server's clock)
 */
public record ResourceUpdate(
        String process, String resource, long seq, long token, long previous, long value, long time)
        implements HistoryEvent {

    public static final String TYPE = "resource-update";

    public ResourceUpdate {
        Checks.name(TYPE, "process", process);
        Checks.name(TYPE, "resource", resource);
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
