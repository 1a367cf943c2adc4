package io.leasehold.lock;

/**
 * Redis could not be reached or answered with an error, so the outcome of the operation is not
 * known to be a success. The cause is the driver's exception. When this ends an acquisition, the
 * engine has already asked Redis to release whatever that acquisition may have taken.
 */
public class LockBackendException extends LockException {

    private static final long serialVersionUID = 1L;

    public LockBackendException(String lockName, String message, Throwable cause) {
        super(lockName, message + " (lock '" + lockName + "'): " + cause, cause);
    }
}
