package io.leasehold.lock.quorum;

/**
 * A call to a {@link QuorumBackend} that could not reach a majority of its members: too many of them
 * failed (refused the connection, timed out, or answered an error) for the majority's answer to be
 * known. Each member's failure is attached as a suppressed exception. The engine wraps it in a
 * {@link io.leasehold.lock.LockBackendException}.
 *
 * <p>{@link #isTransient()} tells whether the same call may succeed if retried: true when at least one
 * member's failure is transient as that member judges it ({@link
 * io.leasehold.lock.spi.LockBackend#isTransient}); {@link QuorumBackend#isTransient} answers it.
 */
public final class QuorumUnavailableException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** Whether some member's failure was transient. */
    private final boolean transientFailure;

    QuorumUnavailableException(String message, boolean transientFailure) {
        super(message);
        this.transientFailure = transientFailure;
    }

    /**
     * Whether retrying the call may succeed.
     *
     * @return true when some member failed transiently
     */
    public boolean isTransient() {
        return transientFailure;
    }
}
