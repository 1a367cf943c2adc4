package io.leasehold.lock.quorum;

/**
 * The timing rules of an acquisition over the quorum (see {@link QuorumAcquire}): how long a phase waits
 * for the members that have not answered, and how much of a lease the clocks' drift takes. Stateless.
 */
final class AcquireTiming {

    /** The bounds of {@link #patienceMs}. */
    static final long MIN_PATIENCE_MS = 100;

    static final long MAX_PATIENCE_MS = 1_000;

    private AcquireTiming() {}

    /**
     * How long phase 1 waits, once a majority answered, for the members that have not answered when the
     * answers so far leave the vote open (the least a commit waits from its send): a tenth of the lease, from {@value #MIN_PATIENCE_MS} ms to {@value #MAX_PATIENCE_MS} ms (Redlock's
     * "a timeout small compared to the auto-release time"). Then the silent members count as failed: the
     * attempt ends as a split vote, releases everywhere and asks again after its back-off, instead of
     * waiting for a dead member's command timeout (a minute by Lettuce's default); a minority member that
     * is only slower than that costs one more attempt, and is skipped for a second.
     */
    static long patienceMs(long leaseMs) {
        return Math.max(MIN_PATIENCE_MS, Math.min(MAX_PATIENCE_MS, leaseMs / 10));
    }

    /** The drift allowance of a lease of {@code leaseMs}: 2 ms + 1 % (as the engine's validity). */
    static long driftMs(long leaseMs) {
        return 2 + leaseMs / 100;
    }
}
