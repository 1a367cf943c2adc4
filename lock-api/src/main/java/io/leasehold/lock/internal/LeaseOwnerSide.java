package io.leasehold.lock.internal;

import org.jspecify.annotations.Nullable;

/**
 * What a lease tells the client that made it: that it ended (stop renewing it, stop tracking it
 * for close), that its deadline may have dropped (renew in time for it), which lock guards its
 * watchdog bookkeeping, and which local waiter its release may hand the lock to.
 */
interface LeaseOwnerSide {

    void leaseEnded(DefaultLease lease);

    /** The lease's validity may have dropped (an extend to a shorter time was sent): renew in time for it. */
    void validityLowered(DefaultLease lease);

    Object renewalLock();

    /**
     * A local waiter of lock {@code name} that the lease's release may hand the lock to, claimed; or
     * null. {@code releasingStreak} is the releasing lease's {@link DefaultLease#handoffStreak}.
     */
    @Nullable
    HandoffTarget claimHandoff(String name, int releasingStreak);
}
