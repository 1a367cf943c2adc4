package io.leasehold.lock.history;

/** How a critical section ended, as its holder learned it. */
public enum SectionEnding {
    /** The holder released the lease and Redis confirmed it still held it ({@code release()} returned true). */
    RELEASED,
    /**
     * The release found the lock no longer held for this lease ({@code release()} returned false, or a
     * {@code LeaseLostException} with {@code STOLEN}): the holder learned only then that it had lost it.
     */
    NOT_HELD,
    /** The section stopped because the lease was lost (a loss signal came first; see {@link LossSignal}). */
    LOST,
    /** The release failed (Redis unreachable): the holder does not know whether it still held the lock. */
    RELEASE_FAILED
}
