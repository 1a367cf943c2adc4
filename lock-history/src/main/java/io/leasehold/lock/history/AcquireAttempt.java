package io.leasehold.lock.history;

import java.util.Objects;

/**
 * One acquire attempt and its outcome, written when it has ended:
 * {@code {"type":"acquire","process":"w1","lock":"L","start":…,"end":…,"outcome":"ACQUIRED","token":"1795…"}}.
 * The checker orders acquisitions by these times (tokens must grow in that order) and counts them
 * for progress.
 *
 * @param process the worker
 * @param lock the lock name
 * @param start when the attempt was called, in microseconds ({@link HistoryClock})
 * @param end when it returned
 * @param outcome how it ended
 * @param token the fencing token when {@link AcquireOutcome#ACQUIRED}, else {@code null}
 * @param error a short description of the failure for {@code ERROR} (or any outcome), else {@code null}
 */
public record AcquireAttempt(
        String process, String lock, long start, long end, AcquireOutcome outcome, Long token, String error)
        implements HistoryEvent {

    public static final String TYPE = "acquire";

    public AcquireAttempt {
        Checks.name(TYPE, "process", process);
        Checks.name(TYPE, "lock", lock);
        Objects.requireNonNull(outcome, TYPE + ".outcome");
        Checks.order(TYPE, start, end);
        if ((outcome == AcquireOutcome.ACQUIRED) != (token != null)) {
            throw new IllegalArgumentException(
                    TYPE + ".token must be given exactly when the outcome is ACQUIRED, but was " + token
                            + " with outcome " + outcome);
        }
        if (token != null) {
            Checks.token(TYPE, token);
        }
    }

    /** An attempt that got a lease with {@code token}. */
    public static AcquireAttempt acquired(String process, String lock, long start, long end, long token) {
        return new AcquireAttempt(process, lock, start, end, AcquireOutcome.ACQUIRED, token, null);
    }

    /** An attempt that ended without a lease. */
    public static AcquireAttempt failed(
            String process, String lock, long start, long end, AcquireOutcome outcome, String error) {
        return new AcquireAttempt(process, lock, start, end, outcome, null, error);
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
