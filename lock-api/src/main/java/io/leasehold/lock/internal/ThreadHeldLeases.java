package io.leasehold.lock.internal;

import java.util.HashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Java reentrancy (G10): the leases that blocking {@code callLocked}/{@code runLocked} calls on the
 * current thread hold, keyed by lock handle (equal handles: same client, same name). Only the
 * blocking body-style calls use it; leases from {@code acquire*} are explicit handles and never
 * reentrant. Nothing about threads ever reaches Redis.
 */
final class ThreadHeldLeases {

    private static final ThreadLocal<Map<DefaultDistributedLock, DefaultLease>> HELD =
            ThreadLocal.withInitial(HashMap::new);

    private ThreadHeldLeases() {}

    static @Nullable DefaultLease get(DefaultDistributedLock lock) {
        return HELD.get().get(lock);
    }

    /** Records {@code lease} for {@code lock}; returns the entry it replaces (an outer lease released by hand), if any. */
    static @Nullable DefaultLease put(DefaultDistributedLock lock, DefaultLease lease) {
        return HELD.get().put(lock, lease);
    }

    /** Puts back what {@link #put} replaced, or removes the entry. */
    static void restore(DefaultDistributedLock lock, @Nullable DefaultLease previous) {
        Map<DefaultDistributedLock, DefaultLease> held = HELD.get();
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
