package io.leasehold.lock;

/**
 * Where a {@link Lease} stands. A lease starts {@link #HELD}; while held it may go
 * {@link #UNCERTAIN} and back any number of times; once its owner asks for the release it is
 * {@link #RELEASING} until Redis has answered; it ends once, {@link #RELEASED} or {@link #LOST}, and
 * never moves on from there.
 *
 * <p>Like Apache Curator's {@code SUSPENDED} before {@code LOST}: {@code UNCERTAIN} is the early
 * warning, {@code LOST} the verdict; a lease lost because Redis stopped answering
 * ({@link LeaseLoss.Reason#BACKEND_UNAVAILABLE}) is always {@code UNCERTAIN} first. What a holder
 * should do in each state:
 * <ul>
 *   <li>{@link #HELD} — the last renewal (or the acquire) was confirmed by Redis; carry on. Still
 *       pass the {@linkplain Lease#fencingToken() fencing token} with every write that matters.</li>
 *   <li>{@link #UNCERTAIN} — the last renewal or extend failed or got no reply in time, so the lease
 *       may be renewed in Redis or not; it is still locally valid ({@link Lease#isValid()} is true,
 *       {@link Lease#remaining()} says for how long) and the engine keeps retrying. Finish or pause
 *       what is in progress, but <em>do not start new work</em> under the lock; wait for
 *       {@code HELD} again, or for {@code LOST}, which comes no later than the end of the validity.</li>
 *   <li>{@link #RELEASING} — the work is over; the release is on its way to Redis. It ends
 *       {@code RELEASED}, or {@code LOST} if Redis answers that the lock had been taken from this
 *       lease while it was valid.</li>
 *   <li>{@link #LOST} — stop working under the lock at once: another holder may already have it.
 *       {@link Lease#lost()} says why.</li>
 *   <li>{@link #RELEASED} — the work under the lock ended while the lease was valid.</li>
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
    /**
     * Its owner asked for the release and Redis has not answered yet: no longer valid (no new work),
     * not renewed; ends {@link #RELEASED} or {@link #LOST}.
     */
    RELEASING,
    /**
     * Released by its owner while it was valid: Redis deleted the lock, or could not confirm that it
     * did (see {@link ReleaseUnconfirmedException}); either way the work ended in time.
     */
    RELEASED,
    /** Declared lost by the engine (or found lost when its release reached Redis); see {@link LeaseLoss.Reason}. */
    LOST
}
