package io.leasehold.lock.internal;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * The attempts of one acquisition made with one random owner, so that a retried acquire is
 * idempotent (see {@link Acquisition}). A round ends when it produced a lease, or when a lease it
 * produced must not be handed out (then the acquisition goes on with a new round and a new owner).
 * Where grants are composed of several servers' (a quorum), every attempt is a round of its own: see
 * {@code AcquisitionMachine#nextAttemptOwner}.
 *
 * <p>The owner and the script arguments are fixed; the other fields are the round's bookkeeping for
 * its clean-up, guarded by the monitor of the {@link AcquisitionMachine} that made the round.
 */
final class AcquireRound {

    final String owner;
    /**
     * The waiter the round's attempts are made for: its first round's owner, the same for every round
     * of one acquisition. Where every attempt is a round of its own (a quorum), a fair waiter's place is
     * kept under it, so that a new owner does not put the waiter at the back of the queue.
     */
    final String waiter;
    /** acquire.lua's ARGV: owner, lease time, fencing counter TTL. */
    final List<String> args;
    /** Whether any attempt (or handoff) of this round was sent. */
    boolean sent;
    /**
     * Whether the round's latest attempt was answered contended, so that the backend holds nothing for
     * its owner; where every attempt is a round of its own (grants composed of several servers'), such
     * a round needs no clean-up when the next attempt starts.
     */
    boolean answeredContended;
    /**
     * Completes once the release that claimed this round for its handoff has settled (null if none
     * did): set at the claim, so that the round's clean-up waits for it from then on, see
     * {@link Handoff#pending}.
     */
    @Nullable
    CompletableFuture<?> handoffSettled;
    /**
     * Completes once the round's latest attempt has been answered and its reply acted on (null before
     * any attempt): a clean-up that overtook an attempt still on its way would find nothing, and the
     * attempt would then take the lock for a lease time.
     */
    @Nullable
    CompletableFuture<?> attemptSettled;
    /** The lease this round produced, once it did. */
    @Nullable
    DefaultLease lease;

    /** The first round of an acquisition: its owner is its waiter too. */
    AcquireRound(long leaseMs) {
        this(leaseMs, null);
    }

    /** A later round of the acquisition whose waiter is {@code waiter} (null: a first round). */
    AcquireRound(long leaseMs, @Nullable String waiter) {
        this.owner = OwnerIds.next();
        this.waiter = waiter == null ? owner : waiter;
        this.args = List.of(owner, Long.toString(leaseMs), Long.toString(Engine.FENCE_COUNTER_TTL_MS));
    }

    /**
     * What the round's clean-up must follow: the handoff that may still be resent to it, and its
     * attempt still on its way; null if neither is pending.
     */
    @Nullable
    CompletableFuture<?> settledFirst() {
        boolean attemptPending = attemptSettled != null && !attemptSettled.isDone();
        if (handoffSettled == null) {
            return attemptPending ? attemptSettled : null;
        }
        return attemptPending ? CompletableFuture.allOf(handoffSettled, attemptSettled) : handoffSettled;
    }
}
