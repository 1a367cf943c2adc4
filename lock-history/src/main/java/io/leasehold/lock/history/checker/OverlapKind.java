package io.leasehold.lock.history.checker;

/** How the checker judged two overlapping sections of one lock. Every overlap is reported, whatever its kind. */
public enum OverlapKind {
    /** The earlier holder was told of its loss before the later section began: allowed (G6). */
    TOLD_BEFORE,
    /**
     * Not told in time, within a declared Redis data loss: allowed only if the stale holder was told
     * afterwards and the resource rejected its accesses after the new holder's first access.
     */
    DATA_LOSS,
    /**
     * Not told in time because the earlier holder's process was declared paused: the same demands as
     * {@link #DATA_LOSS}.
     */
    HOLDER_PAUSED,
    /** Not told in time and nothing declared explains it: a violation. */
    UNTOLD
}
