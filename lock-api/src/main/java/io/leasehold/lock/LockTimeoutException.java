package io.leasehold.lock;

import io.leasehold.lock.spi.support.Durations;
import java.time.Duration;

/**
 * The lock stayed held for the whole wait. The message says by whom, as far as this client can
 * tell:
 *
 * <ul>
 *   <li>by another owner (another process, or another {@link LockClient});
 *   <li>by another lease of this very client ({@link #heldByThisClient()}): another thread or
 *       coroutine of this client holds it, and this one waited its turn like any contender;
 *   <li>by the caller itself ({@link #heldByCaller()}): the caller re-entered with a call that is not
 *       reentrant, by the rules of {@link DistributedLock} (G10). That is a blocking {@code acquire}
 *       on a thread inside {@code callLocked}/{@code runLocked} of the same lock, or on a thread that
 *       took a lease of it with a blocking {@code acquire} and still holds it; or Kotlin's
 *       {@code awaitAcquire} inside {@code withLock} of the same lock in the same coroutine.
 * </ul>
 *
 * <p>Nothing is left behind: if an acquire reached Redis after the caller gave up, the engine
 * released it.
 */
public class LockTimeoutException extends LockException {

    private static final long serialVersionUID = 1L;

    private final Duration wait;
    private final boolean heldByThisClient;
    private final boolean heldByCaller;

    /** The lock was held by another owner for the whole {@code wait}. */
    public LockTimeoutException(String lockName, Duration wait) {
        this(lockName, wait, false, false);
    }

    /**
     * @param heldByThisClient whether a lease of the client that waited held the lock when it gave up
     */
    public LockTimeoutException(String lockName, Duration wait, boolean heldByThisClient) {
        this(lockName, wait, heldByThisClient, false);
    }

    /**
     * @param heldByThisClient whether a lease of the client that waited held the lock when it gave up
     * @param heldByCaller     whether that lease was the caller's own (see the class doc); implies
     *                         {@code heldByThisClient}
     */
    public LockTimeoutException(String lockName, Duration wait, boolean heldByThisClient, boolean heldByCaller) {
        super(lockName, message(lockName, wait, heldByThisClient || heldByCaller, heldByCaller), null);
        this.wait = wait;
        this.heldByThisClient = heldByThisClient || heldByCaller;
        this.heldByCaller = heldByCaller;
    }

    private static String message(String lockName, Duration wait, boolean heldByThisClient, boolean heldByCaller) {
        String gaveUp = "; gave up after waiting " + Durations.human(wait);
        if (heldByCaller) {
            return "lock '" + lockName + "' is already held by this caller (a lease of this client that this "
                    + "thread or coroutine holds): acquire is not reentrant; callLocked and runLocked are, on the "
                    + "thread that holds the lock, and withLock is, in the coroutine that holds it" + gaveUp;
        }
        if (heldByThisClient) {
            return "lock '" + lockName + "' is held by another lease of this client" + gaveUp;
        }
        return "lock '" + lockName + "' is held by another owner" + gaveUp;
    }

    /** How long the caller was willing to wait. */
    public Duration waited() {
        return wait;
    }

    /** Whether the lock was held by a lease of the same client when the wait ended (the caller's own included). */
    public boolean heldByThisClient() {
        return heldByThisClient;
    }

    /**
     * Whether the lock was held by the caller itself when the wait ended: it re-entered with a call
     * that is not reentrant (see the class doc). Prefer {@code callLocked}/{@code runLocked} or
     * {@code withLock}, which are.
     */
    public boolean heldByCaller() {
        return heldByCaller;
    }
}
