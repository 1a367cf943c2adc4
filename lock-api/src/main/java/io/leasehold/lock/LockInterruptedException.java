package io.leasehold.lock;

/**
 * The thread was interrupted while waiting for a lock. The interrupt flag is set again before this
 * is thrown, and nothing is left locked.
 */
public class LockInterruptedException extends LockException {

    private static final long serialVersionUID = 1L;

    public LockInterruptedException(String lockName, InterruptedException cause) {
        super(lockName, "interrupted while waiting for lock '" + lockName + "'", cause);
    }
}
