package io.leasehold.lock;

import java.time.Duration;

/**
 * The lock stayed held by another owner for the whole wait. Nothing is left behind: if an
 * acquire reached Redis after the caller gave up, the engine released it.
 */
public class LockTimeoutException extends LockException {

    private static final long serialVersionUID = 1L;

    private final Duration wait;

    public LockTimeoutException(String lockName, Duration wait) {
        super(lockName, "lock '" + lockName + "' is held by another owner; gave up after waiting " + wait, null);
        this.wait = wait;
    }

    /** How long the caller was willing to wait. */
    public Duration waited() {
        return wait;
    }
}
