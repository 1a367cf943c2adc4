package io.leasehold.lock;

import java.time.Duration;

/**
 * The lock stayed held for the whole wait: by another owner, or by another lease of this very
 * client ({@link #heldByThisClient()}; {@code acquire} is not reentrant). Nothing is left behind: if
 * an acquire reached Redis after the caller gave up, the engine released it.
 */
public class LockTimeoutException extends LockException {

    private static final long serialVersionUID = 1L;

    private final Duration wait;
    private final boolean heldByThisClient;

    public LockTimeoutException(String lockName, Duration wait) {
        this(lockName, wait, false);
    }

    /**
     * @param heldByThisClient whether a lease of the client that waited held the lock when it gave up
     */
    public LockTimeoutException(String lockName, Duration wait, boolean heldByThisClient) {
        super(lockName, message(lockName, wait, heldByThisClient), null);
        this.wait = wait;
        this.heldByThisClient = heldByThisClient;
    }

    private static String message(String lockName, Duration wait, boolean heldByThisClient) {
        if (heldByThisClient) {
            return "lock '" + lockName + "' is held by this client (another lease of the same LockClient: acquire is "
                    + "not reentrant; callLocked and withLock are); gave up after waiting " + wait;
        }
        return "lock '" + lockName + "' is held by another owner; gave up after waiting " + wait;
    }

    /** How long the caller was willing to wait. */
    public Duration waited() {
        return wait;
    }

    /** Whether the lock was held by another lease of the same client when the wait ended. */
    public boolean heldByThisClient() {
        return heldByThisClient;
    }
}
