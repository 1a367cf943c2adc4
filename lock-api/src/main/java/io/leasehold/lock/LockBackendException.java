package io.leasehold.lock;

import org.jspecify.annotations.Nullable;

/**
 * Redis could not be reached or answered with an error, so the outcome of the operation is not
 * known to be a success. The cause is the driver's exception; the message names it and, when it
 * wraps another, its root cause too (a refused connection, say). When this ends an acquisition,
 * the engine has already asked Redis to release whatever that acquisition may have taken.
 */
public class LockBackendException extends LockException {

    private static final long serialVersionUID = 1L;

    /** @param cause the driver's exception; null only when Redis answered but could not settle the outcome */
    public LockBackendException(String lockName, String message, @Nullable Throwable cause) {
        super(lockName, message + " (lock '" + lockName + "')" + (cause == null ? "" : ": " + describe(cause)), cause);
    }

    private static String describe(Throwable cause) {
        Throwable root = cause;
        for (int depth = 0; root.getCause() != null && root.getCause() != root && depth < 16; depth++) {
            root = root.getCause();
        }
        return root == cause ? cause.toString() : cause + " (root cause: " + root + ")";
    }
}
