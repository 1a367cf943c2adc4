package io.leasehold.lock.internal;

/**
 * What a lease tells the client that made it: that it ended (stop renewing it, stop tracking it
 * for close), that its deadline may have dropped (renew in time for it), and which lock guards its
 * watchdog bookkeeping.
 */
interface LeaseOwnerSide {

    void leaseEnded(DefaultLease lease);

    /** The lease's validity may have dropped (an extend to a shorter time was sent): renew in time for it. */
    void validityLowered(DefaultLease lease);

    Object renewalLock();
}
