package io.leasehold.lock.internal;

/**
 * What a lease tells the client that made it: that it ended (stop renewing it, stop tracking it
 * for close), that an extend changed its deadline (renew in time for it), and which lock guards its
 * watchdog bookkeeping.
 */
interface LeaseOwnerSide {

    void leaseEnded(DefaultLease lease);

    /** An extend to {@code ms} was sent at {@code sentNanos}: the next renewal must come before that lease runs out. */
    void extendStarted(DefaultLease lease, long sentNanos, long ms);

    Object renewalLock();
}
