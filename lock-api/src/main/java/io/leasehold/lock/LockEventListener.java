package io.leasehold.lock;

import java.time.Duration;

/**
 * Callbacks for what happens to locks: the engine's only observability hook
 * ({@code lock-micrometer} implements it). Register with {@link LockClient.Builder#listener}.
 *
 * <p>Callbacks run one after another on the client's event thread ({@code leasehold-events-<client>}),
 * never on a Redis driver's I/O thread or on the thread that renews leases and detects loss: a slow
 * listener delays other listeners' events, never a renewal or a loss signal. Still, return quickly.
 * An exception thrown by a callback is caught and ignored so that it cannot break locking. All
 * methods default to doing nothing.
 */
public interface LockEventListener {

    /** A lease was acquired after waiting {@code waited} (zero-ish for an uncontended lock). */
    default void onAcquired(String lockName, long fencingToken, Duration waited) {
    }

    /**
     * An acquisition ended without a lease: {@link LockTimeoutException} (contended) or
     * {@link LockBackendException} (Redis failure). Cancelled acquisitions are not reported.
     */
    default void onAcquireFailed(String lockName, LockException failure, Duration waited) {
    }

    /** A lease was released by its owner after being held for {@code held}. */
    default void onReleased(String lockName, long fencingToken, Duration held) {
    }

    /** The watchdog or {@link Lease#extend(Duration)} renewed a lease. */
    default void onRenewed(String lockName, long fencingToken) {
    }

    /** A renewal attempt failed on a backend error; the engine keeps trying until the validity deadline. */
    default void onRenewalFailed(String lockName, long fencingToken, Throwable cause) {
    }

    /** A lease was lost; see {@link LeaseLoss.Reason}. */
    default void onLeaseLost(LeaseLoss loss) {
    }
}
