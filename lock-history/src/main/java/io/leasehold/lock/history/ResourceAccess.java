package io.leasehold.lock.history;

import java.util.Objects;

/**
 * One access of a critical section to a fenced resource:
 * {@code {"type":"access","process":"w1","lock":"L","resource":"stock","op":"WRITE","token":"1795…","outcome":"ACCEPTED","value":7,"seq":42,"start":…,"end":…}}.
 *
 * @param process the worker
 * @param lock the lock whose section made the access
 * @param resource the resource's name
 * @param op read or write
 * @param token the fencing token sent with the access
 * @param outcome accepted, rejected, or unknown (no reply)
 * @param value for a read the value returned, for a write the value written; {@code null} when none
 *     (a rejected read, an unknown outcome)
 * @param seq the resource's number for this access (its own order of all accesses), when it gave one;
 *     {@code null} otherwise. With it the checker orders accesses exactly as the resource saw them;
 *     without it, only by real time.
 * @param start when the access was sent, in microseconds ({@link HistoryClock})
 * @param end when its reply came (or the attempt gave up)
 * @param error a short description for {@code UNKNOWN}, else {@code null}
 */
public record ResourceAccess(
        String process,
        String lock,
        String resource,
        AccessOp op,
        long token,
        AccessOutcome outcome,
        Long value,
        Long seq,
        long start,
        long end,
        String error)
        implements HistoryEvent {

    public static final String TYPE = "access";

    public ResourceAccess {
        Checks.name(TYPE, "process", process);
        Checks.name(TYPE, "lock", lock);
        Checks.name(TYPE, "resource", resource);
        Objects.requireNonNull(op, TYPE + ".op");
        Checks.token(TYPE, token);
        Objects.requireNonNull(outcome, TYPE + ".outcome");
        Checks.order(TYPE, start, end);
    }

    @Override
    public String type() {
        return TYPE;
    }

    @Override
    public long latestTime() {
        return end;
    }
}
