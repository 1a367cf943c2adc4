package io.leasehold.lock;

import java.time.Duration;

/**
 * Callbacks for what happens to locks: the engine's observability hook ({@code lock-micrometer}
 * implements it). Register with {@link LockClient.Builder#listener}.
 *
 * <p><b>Threads.</b> Callbacks run one after another on the client's event thread
 * ({@code leasehold-events-<client>}), never on a Redis driver's I/O thread or on the thread that
 * renews leases and detects loss: a slow listener delays other listeners' events, never a renewal
 * or a loss signal. Still, return quickly. An exception thrown by a callback is logged (at
 * {@code WARNING}, logger {@code io.leasehold.lock}, naming the listener's class; repeated failures
 * of one listener are logged at 1, 10, 100, ... occurrences) and does not keep other listeners from
 * the event.
 *
 * <p><b>Order.</b> The events of one lease arrive in the order they happened, starting with
 * {@link #onAcquired} and ending with exactly one of {@link #onReleased}, {@link #onReleaseUnconfirmed} or
 * {@link #onLeaseLost};
 * only leases handed to a caller are reported (a lease the engine discarded before the hand-out, as
 * when the caller cancelled, has no events). Each acquisition that had to wait reports
 * {@link #onWaitStarted} once and {@link #onWaitEnded} once, in that order. Events after the client
 * has closed are not reported.
 *
 * <p><b>What a listener may miss.</b> Events wait for the event thread in a bounded queue (10,000
 * events), so that a listener that blocks or falls behind costs a bounded amount of memory and never
 * holds up the engine. When the queue is full, new events are dropped, never waited for, and a
 * listener misses them <em>whole</em>, never one half of a pair:
 * <ul>
 *   <li>a lease whose {@link #onAcquired} is dropped reports nothing more ({@link #onHandoff},
 *       {@link #onRenewed}, ..., and none of its endings), so a count of leases held never goes wrong
 *       for good: it misses that lease while it lasts;
 *   <li>a wait whose {@link #onWaitStarted} is dropped reports no {@link #onWaitEnded} (the count of
 *       waiters per lock name stays right);
 *   <li>an uncertainty whose {@link #onLeaseUncertain} is dropped reports no
 *       {@link #onLeaseReconfirmed};
 *   <li>one-off events are dropped alone: {@link #onAcquireFailed}, {@link #onAcquireCancelled},
 *       {@link #onRenewed}, {@link #onRenewalFailed}.
 * </ul>
 * The ending of a start that was reported ({@link #onReleased}, {@link #onReleaseUnconfirmed},
 * {@link #onLeaseLost}, {@link #onWaitEnded}, {@link #onLeaseReconfirmed}) is never dropped, and a
 * lost lease or an unconfirmed release is always logged. A listener learns that it missed events from {@link #onEventsDropped}, called once the
 * queue has room again with the number dropped since its last call; the first drop of a client is
 * also logged once at {@code WARNING}.
 *
 * <p>All methods default to doing nothing.
 */
public interface LockEventListener {

    /** A lease was acquired after waiting {@code waited} (zero-ish for an uncontended lock). */
    default void onAcquired(String lockName, long fencingToken, Duration waited) {}

    /**
     * An acquisition ended without a lease: {@link LockTimeoutException} (contended) or
     * {@link LockBackendException} (Redis failure). Cancellations are reported by {@link #onAcquireCancelled}.
     */
    default void onAcquireFailed(String lockName, LockException failure, Duration waited) {}

    /**
     * An acquisition ended without a lease because its caller gave up (cancelled the future,
     * interrupted the waiting thread, cancelled the coroutine) or the client closed.
     */
    default void onAcquireCancelled(String lockName, Duration waited) {}

    /** An acquisition found the lock held and started to wait for it. */
    default void onWaitStarted(String lockName) {}

    /** An acquisition that had waited stopped waiting (acquired, timed out, failed or cancelled). */
    default void onWaitEnded(String lockName, Duration waited) {}

    /**
     * A waiter took the lock {@code sinceReleaseSeen} after this client saw the release message
     * that woke it: the handoff latency. Reported right before that lease's {@link #onAcquired}.
     */
    default void onHandoff(String lockName, long fencingToken, Duration sinceReleaseSeen) {}

    /**
     * A lease was released by its owner after being held for {@code held}, and Redis confirmed it. A
     * release Redis could not confirm is reported by {@link #onReleaseUnconfirmed} instead (which calls
     * this method unless overridden); a release that found the lock taken from the lease while it was
     * valid is a loss ({@link #onLeaseLost}).
     */
    default void onReleased(String lockName, long fencingToken, Duration held) {}

    /**
     * A lease was released by its owner while it was valid, but Redis could not confirm the release
     * (see {@link ReleaseUnconfirmedException}, which {@code cause} is): the work ended in time, and the
     * lock expires on its own after its lease time. One of the lease's endings, in place of
     * {@link #onReleased}, which it calls by default (so a listener that only counts releases still
     * sees every lease end).
     */
    default void onReleaseUnconfirmed(
            String lockName, long fencingToken, Duration held, ReleaseUnconfirmedException cause) {
        onReleased(lockName, fencingToken, held);
    }

    /** The watchdog or {@link Lease#extend(Duration)} renewed a lease. */
    default void onRenewed(String lockName, long fencingToken) {}

    /**
     * A renewal (or extend) attempt failed on a backend error or got no reply in time; the engine
     * keeps trying until the validity deadline. Called once per failed attempt.
     */
    default void onRenewalFailed(String lockName, long fencingToken, Throwable cause) {}

    /**
     * A held lease went {@link LeaseState#UNCERTAIN}: a renewal or extend failed, and whether Redis
     * still has the lease is unknown. It stays locally valid for {@code validFor} at most; the next
     * event for it is {@link #onLeaseReconfirmed} or its end. Called once per failure streak.
     */
    default void onLeaseUncertain(String lockName, long fencingToken, Duration validFor, Throwable cause) {}

    /** An {@link LeaseState#UNCERTAIN} lease is {@link LeaseState#HELD} again: Redis confirmed a renewal. */
    default void onLeaseReconfirmed(String lockName, long fencingToken) {}

    /** A lease was lost; see {@link LeaseLoss.Reason}. */
    default void onLeaseLost(LeaseLoss loss) {}

    /**
     * The listeners fell behind and {@code count} events were dropped since the last call (see "What a
     * listener may miss" above): called on the event thread once the queue has room again, never
     * dropped itself. Counters of events have undercounted by up to {@code count}; counts of leases,
     * waiters and uncertain leases held now are right for the leases and waits that were reported.
     */
    default void onEventsDropped(long count) {}
}
