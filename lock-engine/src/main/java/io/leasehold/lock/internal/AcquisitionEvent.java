package io.leasehold.lock.internal;

import org.jspecify.annotations.Nullable;

/**
 * What can happen to an {@link Acquisition}: the inputs of {@link AcquisitionMachine#on}. Events carry
 * what the machine may not ask for under its monitor (whether the waiter heads its queue, how long a
 * local lease still holds the lock), gathered by {@link Acquisition} before it enters the machine.
 */
sealed interface AcquisitionEvent {

    /** {@code start()}: queue behind this client's waiters of the name (no barging), or attempt now. */
    record Start(boolean behindLocalWaiters) implements AcquisitionEvent {}

    /**
     * The head of the local queue was woken: it became head, or its fallback alarm fired
     * ({@code firedBy}, null otherwise). While a lease of this client holds the lock
     * ({@code localHolderLeftNanos} > 0) it does not ask Redis: that lease's release hands the lock
     * over, or publishes if it cannot; its loss wakes the head; and an alarm at the end of its
     * validity covers anything missed.
     */
    record Woken(long localHolderLeftNanos, AcquisitionMachine.@Nullable Alarm firedBy) implements AcquisitionEvent {}

    /** A release message reached the queue while this waiter was its head (or, with {@code head} false, just before it left). */
    record ReleaseSeen(boolean head) implements AcquisitionEvent {}

    /**
     * A release granted the lock to another waiter (its message names that waiter): nothing to ask
     * now, but that waiter may be gone, and then its grant lapses after its window.
     *
     * @param head whether this waiter heads its client's queue (or is a fair waiter)
     */
    record GrantToAnotherSeen(boolean head) implements AcquisitionEvent {}

    /**
     * A release granted the lock in Redis to this waiter's owner (its message names it): take the
     * grant from the message if it proves when the grant ran, else ask now.
     *
     * @param token the grant's fencing token, or {@link GrantOrder#NO_TOKEN} if the message has none
     */
    record GrantNamesThisWaiter(long token) implements AcquisitionEvent {}

    /** The release channel was subscribed again: a release may have been published while it was down. */
    record Resubscribed(boolean head) implements AcquisitionEvent {}

    /**
     * A release may have granted the lock in Redis to this waiter, queued behind its client's head,
     * while its client could not hear the channel (before the subscription was active, while it was
     * down, or in more messages than the queue remembers): it asks once if its attempt took a place
     * in Redis's queue, as the grant's message would have made it.
     */
    record GrantMayHaveBeenMissed() implements AcquisitionEvent {}

    /**
     * A releasing lease of this client wants to hand the lock to this waiter (the queue's head) in its
     * release call.
     *
     * @param streak   local handoffs in a row that the lease will close if this one grants it
     * @param mayYield whether the handoff may yield to other clients' waiters instead of granting
     */
    record ClaimHandoff(int streak, boolean mayYield) implements AcquisitionEvent {}

    /** An attempt of {@code from} was granted {@code lease}, in time. */
    record Granted(AcquireRound from, DefaultLease lease) implements AcquisitionEvent {}

    /** An attempt of {@code from} was granted, but its reply came after the lease ran out (G6). */
    record GrantedTooLate(AcquireRound from) implements AcquisitionEvent {}

    /**
     * An attempt of {@code from} found the lock held.
     *
     * @param holderTtlMs the holder's TTL left: the fallback alarm
     * @param sentNanos   when the attempt was sent (a lingering subscription may have seen a release since)
     * @param holderToken the holder's fencing token (a grant to this waiter with a higher one ran
     *                    after {@code sentNanos})
     */
    record Contended(AcquireRound from, long holderTtlMs, long sentNanos, long holderToken)
            implements AcquisitionEvent {}

    /**
     * The watchdog kept this waiter's {@code place} in Redis's queue (see {@link WaiterPlace}): its
     * renewal, written at {@code sentNanos}, found the lock held with {@code holderToken}, which serves
     * as a contended reply does for taking a grant from its message.
     */
    record PlaceKept(WaiterPlace place, long sentNanos, long holderToken, long roundTripNanos)
            implements AcquisitionEvent {}

    /**
     * The watchdog could not keep this waiter's {@code place}: it is gone or the lock is free
     * ({@code failure} null), or the renewal failed. The waiter asks Redis.
     */
    record PlaceLost(WaiterPlace place, @Nullable Throwable failure) implements AcquisitionEvent {}

    /** An attempt of {@code from} failed (or its reply was malformed). */
    record Failed(AcquireRound from, Throwable cause) implements AcquisitionEvent {}

    /** A reply of {@code from} that came after its command timed out; the command ran, and {@code grants} says whether it took the lock. */
    record LateReply(AcquireRound from, boolean grants) implements AcquisitionEvent {}

    /** The back-off alarm fired. */
    record RetryDue(AcquisitionMachine.Alarm firedBy) implements AcquisitionEvent {}

    /** The wait's deadline passed. */
    record DeadlinePassed() implements AcquisitionEvent {}

    /** The hand-out, on the caller's side: announce {@code lease} and give it, or discard it if it ran out. */
    record HandOut(DefaultLease lease) implements AcquisitionEvent {}

    /** The caller's future was done before the hand-out: the lease was released, the acquisition ends. */
    record HandOutRefused() implements AcquisitionEvent {}

    /** After a lease that must not be handed out was discarded: go on waiting with the new round. */
    record GoOn() implements AcquisitionEvent {}

    /** The caller cancelled its future. */
    record Cancelled() implements AcquisitionEvent {}

    /** The client is closing. */
    record Closed() implements AcquisitionEvent {}
}
