package io.leasehold.lock.internal;

import java.util.concurrent.TimeUnit;

/**
 * The arithmetic of a lease's local validity (G4). Redis starts the TTL when it runs the command,
 * which is after the request was sent; counting from the send time on the monotonic clock, minus a
 * drift margin for clock-rate differences, never overestimates what Redis still holds.
 */
final class Validity {

    private static final long MAX_LEAD_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private Validity() {}

    /** Drift margin: 2 ms plus 1% of the lease, as in the Redlock analysis. */
    static long driftNanos(long leaseMs) {
        return TimeUnit.MILLISECONDS.toNanos(2 + leaseMs / 100);
    }

    /** The local validity deadline of a lease of {@code leaseMs} whose request was sent at {@code sentNanos}. */
    static long validUntil(long sentNanos, long leaseMs) {
        return sentNanos + TimeUnit.MILLISECONDS.toNanos(leaseMs) - driftNanos(leaseMs);
    }

    /**
     * How early the loss check fires before the deadline, so that timer jitter on a busy machine
     * cannot push the signal past it: a twentieth of the lease, at most 100 ms.
     */
    static long leadNanos(long leaseMs) {
        return Math.min(TimeUnit.MILLISECONDS.toNanos(leaseMs) / 20, MAX_LEAD_NANOS);
    }

    /** Watchdog period: a third of the lease. */
    static long renewIntervalNanos(long leaseMs) {
        return TimeUnit.MILLISECONDS.toNanos(leaseMs) / 3;
    }

    /** Delay before retrying a failed renewal: a tenth of the lease, at least 5 ms. */
    static long renewRetryNanos(long leaseMs) {
        return Math.max(TimeUnit.MILLISECONDS.toNanos(leaseMs) / 10, TimeUnit.MILLISECONDS.toNanos(5));
    }
}
