package io.leasehold.lock.history;

/** How an acquire attempt ended: the three outcomes of G9, and a cancelled wait. */
public enum AcquireOutcome {
    /** A lease was granted; the record carries its fencing token. */
    ACQUIRED,
    /** The lock stayed held by others for the whole wait ({@code LockTimeoutException}, or an empty {@code Optional}). */
    TIMEOUT,
    /** Redis failed or was unreachable ({@code LockBackendException}). */
    ERROR,
    /** The caller gave up (interrupt, cancelled future) or the client closed. */
    CANCELLED
}
