package io.leasehold.lock.internal;

import org.jspecify.annotations.Nullable;

/**
 * What the watchdog knows of one lease's renewal, read at once (see {@link Renewer#report}).
 *
 * @param holdBounded        its last renewal was bounded by its max-hold deadline
 * @param lastFailure        the last renewal's failure, or null if none failed since Redis last confirmed a TTL command
 *                           of the lease (a renewal, or an extend: see {@link Renewer#confirmedElsewhere})
 * @param inFlight           a renewal is waiting for its reply
 * @param inFlightSinceNanos when that renewal was sent (meaningful only while {@code inFlight})
 */
record RenewalReport(boolean holdBounded, @Nullable Throwable lastFailure, boolean inFlight, long inFlightSinceNanos) {

    /** For a lease the watchdog does not renew. */
    static final RenewalReport NONE = new RenewalReport(false, null, false, 0);

    /** Whether Redis has kept the watchdog waiting: its last renewal failed, or one is still unanswered. */
    boolean backendSilent() {
        return lastFailure != null || inFlight;
    }
}
