package io.leasehold.lock.history.fencing;

/**
 * A {@link FencedResource} access that got no answer: the connection failed or the reply did not
 * come in time. <b>The access may or may not have taken effect</b> (a write may have been applied
 * and only its reply lost), so it must be recorded as
 * {@link io.leasehold.lock.history.AccessOutcome#UNKNOWN}, never retried as if it had not
 * happened. The next access opens a new connection.
 */
public final class FencedResourceException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public FencedResourceException(String message, Throwable cause) {
        super(message, cause);
    }
}
