package io.leasehold.lock;

/**
 * Where a {@link Lease} stands. A lease starts {@link #HELD} and moves once, to {@link #RELEASED}
 * (its owner released it) or to {@link #LOST} (the engine declared it lost); it never moves back.
 *
 * <p>What a holder should do in each state:
 * <ul>
 *   <li>{@link #HELD} — the lease is believed valid; still check {@link Lease#isValid()} or pass the
 *       {@linkplain Lease#fencingToken() fencing token} before a write that matters.</li>
 *   <li>{@link #LOST} — stop working under the lock at once: another holder may already have it.
 *       {@link Lease#lost()} says why.</li>
 *   <li>{@link #RELEASED} — the work under the lock is over.</li>
 * </ul>
 *
 * @see Lease#state()
 */
public enum LeaseState {
    /** Held: not released, not declared lost. */
    HELD,
    /** Released by its owner (or by {@link LockClient#close()}). */
    RELEASED,
    /** Declared lost by the engine; see {@link LeaseLoss.Reason}. */
    LOST
}
