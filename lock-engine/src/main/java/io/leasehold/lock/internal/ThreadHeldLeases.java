package io.leasehold.lock.internal;

import java.util.HashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Java reentrancy (G10): the leases that blocking {@code callLocked}/{@code runLocked} calls on the
 * current thread hold, keyed by lock handle (equal handles: same client, same name), each with the
 * number of nested calls running under it (for {@code holdCount()}). Only the blocking body-style
 * calls use it; leases from {@code acquire*} are explicit handles and never reentrant. Nothing about
 * threads ever reaches Redis.
 *
 * <p>Each thread touches only its own entries, so nothing here needs a lock.
 */
final class ThreadHeldLeases {

    /** Null on a thread that holds nothing: a query never leaves a map behind on a pooled thread. */
    private static final ThreadLocal<@Nullable Map<DefaultDistributedLock, Hold>> HELD = new ThreadLocal<>();

    private ThreadHeldLeases() {}

    /** One thread's hold on one lock: the lease of its outermost call and how many calls run under it. */
    static final class Hold {
        final DefaultLease lease;
        /** The outermost call and the reentrant calls nested in it (written by the owning thread only). */
        int depth = 1;

        Hold(DefaultLease lease) {
            this.lease = lease;
        }
    }

    /** The current thread's hold on {@code lock} (or an equal handle), or null. */
    static @Nullable Hold hold(DefaultDistributedLock lock) {
        Map<DefaultDistributedLock, Hold> held = HELD.get();
        return held == null ? null : held.get(lock);
    }

    static @Nullable DefaultLease get(DefaultDistributedLock lock) {
        Hold hold = hold(lock);
        return hold == null ? null : hold.lease;
    }

    /** Records {@code lease} for {@code lock}; returns the hold it replaces (an outer lease released by hand), if any. */
    static @Nullable Hold put(DefaultDistributedLock lock, DefaultLease lease) {
        Map<DefaultDistributedLock, Hold> held = HELD.get();
        if (held == null) {
            held = new HashMap<>();
            HELD.set(held);
        }
        return held.put(lock, new Hold(lease));
    }

    /** Puts back what {@link #put} replaced, or removes the entry. */
    static void restore(DefaultDistributedLock lock, @Nullable Hold previous) {
        Map<DefaultDistributedLock, Hold> held = HELD.get();
        if (held == null) {
            return;
        }
        if (previous != null) {
            held.put(lock, previous);
            return;
        }
        held.remove(lock);
        if (held.isEmpty()) {
            HELD.remove(); // leave nothing behind on pooled threads
        }
    }
}
