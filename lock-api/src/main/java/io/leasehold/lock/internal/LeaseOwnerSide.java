package io.leasehold.lock.internal;

/**
 * What a lease tells the client that made it: that it ended (stop renewing it, stop tracking it
 * for close), and which lock guards its watchdog bookkeeping.
 */
interface LeaseOwnerSide {

    void leaseEnded(DefaultLease lease);

    Object renewalLock();
}
