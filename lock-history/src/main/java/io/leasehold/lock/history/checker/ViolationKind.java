package io.leasehold.lock.history.checker;

/** What a {@link Violation} breaks: safety (two holders' work, stale data) or progress. */
public enum ViolationKind {
    /** A lock's acquisition that began after another one had ended got a smaller fencing token. */
    NON_MONOTONIC_TOKEN(true),
    /** Two acquisitions of one lock got the same fencing token. */
    DUPLICATE_TOKEN(true),
    /** The resource accepted an access whose token was lower than one it had already accepted. */
    STALE_ACCEPTED(true),
    /** An update was lost: the counter disagrees with its log, a write did not build on the one before, or an acknowledged write is missing from the log. */
    LOST_UPDATE(true),
    /** The resource's log holds a write that no worker recorded (neither accepted nor unknown). */
    UNLOGGED_UPDATE(true),
    /** Two sections overlapped, the earlier holder was not told before the later began, and no declared data loss or pause explains it. */
    UNTOLD_OVERLAP(true),
    /** An overlap explained by a data loss or a pause, but the stale holder was never told it had lost the lease. */
    HOLDER_NEVER_TOLD(true),
    /** An overlap explained by a data loss or a pause, but the resource accepted an access of the stale holder after the new holder's first access. */
    STALE_HOLDER_ACCESS_ACCEPTED(true),
    /** An access recorded outside any section of its process, lock and token (or outside that section's times). */
    ACCESS_OUTSIDE_SECTION(true),
    /** Records that cannot belong to a well-formed run (a section ended twice or never started, ends before it starts). */
    MALFORMED_HISTORY(true),
    /** A worker got fewer leases than required. */
    STARVED(false),
    /** A worker wrote no record for longer than allowed. */
    HUNG(false),
    /** A worker started but never finished, and no declared kill explains it. */
    UNFINISHED(false);

    private final boolean safety;

    ViolationKind(boolean safety) {
        this.safety = safety;
    }

    /** True for safety (never acceptable), false for progress. */
    public boolean safety() {
        return safety;
    }
}
