package io.leasehold.lock;

/**
 * Where a {@link Lease} stands. A lease starts {@link #HELD}; while held it may go
 * {@link #UNCERTAIN} and back any number of times; it ends once, {@link #RELEASED} (its owner
 * released it) or {@link #LOST} (the engine declared it lost), and never moves on from there.
 *
 * <p>Like Apache Curator's {@code SUSPENDED} before {@code LOST}: {@code UNCERTAIN} is the early
 * warning, {@code LOST} the verdict. What a holder should do in each state:
 * <ul>
 *   <li>{@link #HELD} — the last renewal (or the acquire) was confirmed by Redis; carry on. Still
 *       pass the {@linkplain Lease#fencingToken() fencing token} with every write that matters.</li>
 *   <li>{@link #UNCERTAIN} — the last renewal or extend failed or got no reply in time, so the lease
 *       may be renewed in Redis or not; it is still locally valid ({@link Lease#isValid()} is true,
 *       {@link Lease#remaining()} says for how long) and the engine keeps retrying. Finish or pause
 *       what is in progress, but <em>do not start new work</em> under the lock; wait for
 *       {@code HELD} again, or for {@code LOST}, which comes no later than the end of the validity.</li>
 *   <li>{@link #LOST} — stop working under the lock at once: another holder may already have it.
 *       {@link Lease#lost()} says why.</li>
 *   <li>{@link #RELEASED} — the work under the lock is over.</li>
 * </ul>
 *
 * @see Lease#state()
 * @see LockEventListener#onLeaseUncertain
 */
public enum LeaseState {
    /** Held, and Redis confirmed the latest renewal (or the acquire). */
    HELD,
    /**
     * Held and still locally valid, but the latest renewal or extend failed or timed out: Redis may
     * or may not have renewed it. Goes back to {@link #HELD} on the next confirmed renewal, or to
     * {@link #LOST} no later than the end of the local validity.
     */
    UNCERTAIN,
    /** Released by its owner (or by {@link LockClient#close()}). */
    RELEASED,
    /** Declared lost by the engine; see {@link LeaseLoss.Reason}. */
    LOST
}
