package io.leasehold.lock.internal;

import io.leasehold.lock.spi.LockKeys;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

/**
 * A fair waiter's place in a lock's wait queue in Redis, kept alive by the watchdog ({@link Renewer})
 * while the waiter waits: renewed every {@link GrantOrder#WAITER_RENEW_MS} ms in the watchdog's renew
 * calls (renew.lua's places), batched per cluster slot with the leases and other places due then, so
 * that any number of waiters costs a share of one call per period instead of an acquire each.
 *
 * <p>Each renewal's outcome goes to the waiter's {@link Listener}: kept, with the holder's token
 * (which serves the waiter as a contended acquire's reply does), or lost (its place is gone, the lock
 * is free, or the renewal failed), upon which the waiter asks Redis itself.
 *
 * <p>Owner: the waiter's {@link AcquisitionMachine}, whose {@code Queued} state holds it; leaving that
 * state {@linkplain #cancel() cancels} it. Cancelling takes no lock (the machine does it under its
 * monitor, and the watchdog calls lease code under its own lock): the watchdog drops a cancelled
 * place when it next comes due, without sending it, and tells its listener nothing more. A renewal
 * already sent may still be answered; the machine ignores the answers of a place it no longer holds.
 */
final class WaiterPlace implements Renewer.Renewable {

    /** What the watchdog tells the waiter; called outside the watchdog's lock, never on a user's thread. */
    interface Listener {

        /**
         * The place was kept by a renewal written at {@code sentNanos}, while the lock was held with
         * {@code holderToken}; its reply took {@code roundTripNanos}.
         */
        void kept(WaiterPlace place, long sentNanos, long holderToken, long roundTripNanos);

        /**
         * The place was not kept: it is gone or the lock is free ({@code failure} null), or its renewal
         * failed ({@code failure}): the waiter asks Redis.
         */
        void lost(WaiterPlace place, @Nullable Throwable failure);
    }

    final String owner;
    /** renew.lua's keys of this place: the lock key, the wait queue, the waiter leases. */
    final List<String> keys;

    final Listener listener;
    /** When the attempt that took (or last kept) the place was sent: its first renewal is due a period later. */
    final long sentNanos;

    private final int slot;
    private final AtomicBoolean cancelled = new AtomicBoolean();

    WaiterPlace(Engine engine, String name, String owner, long sentNanos, Listener listener) {
        this.owner = owner;
        String lockKey = engine.lockKey(name);
        this.keys = List.of(
                lockKey, LockKeys.queueKey(engine.keyPrefix, name), LockKeys.waitersKey(engine.keyPrefix, name));
        this.slot = engine.backend.slot(lockKey);
        this.sentNanos = sentNanos;
        this.listener = listener;
    }

    @Override
    public int slot() {
        return slot;
    }

    /** Stops keeping the place (the waiter moved on): nothing more is sent for it or told of it. */
    void cancel() {
        cancelled.set(true);
    }

    boolean cancelled() {
        return cancelled.get();
    }
}
