package io.leasehold.lock;

import org.jspecify.annotations.Nullable;

/**
 * Base of every exception Leasehold throws on purpose. Unchecked.
 *
 * <p>The three outcomes of an acquisition are never conflated: a contended lock is a
 * {@link LockTimeoutException}, a Redis failure is a {@link LockBackendException}, and a lease that
 * ended while work ran under it is a {@link LeaseLostException}.
 */
public class LockException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String lockName;

    protected LockException(String lockName, String message, @Nullable Throwable cause) {
        super(message, cause);
        this.lockName = lockName;
    }

    /** The name of the lock this failure is about. */
    public String lockName() {
        return lockName;
    }
}
