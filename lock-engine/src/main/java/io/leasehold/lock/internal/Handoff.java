package io.leasehold.lock.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * A local waiter that a releasing lease hands its lock to in the same script call (handoff.lua):
 * the waiter's current round, claimed so that the handoff is that round's attempt in flight (see
 * {@link Acquisition#claimHandoff}). The waiter then gets the lock with its own fresh owner and a
 * higher fencing token, one round trip after the release was sent instead of three (release, release
 * message, acquire).
 *
 * <p>The reply (or failure) of the handoff is the round's attempt reply: the waiter acts on it
 * exactly as on an acquire's, so a lost reply is retried with the same owner (idempotent), and a
 * late reply of a handoff that timed out is undone like a late acquire. While the releasing side
 * sends the handoff again after a failure of unknown outcome ({@link ReleaseSender}), the attempt
 * stays in flight and the waiter is told only the final outcome.
 *
 * <p>This class is immutable; the waiter it reports to is threadsafe.
 */
final class Handoff {

    private final Acquisition waiter;
    private final AcquireRound target;
    private final int streak;
    private final boolean mayYield;
    /** The round's clean-up waits for this (set on the round at the claim); completed when the release settles. */
    private final CompletableFuture<Void> releaseSettled;

    Handoff(
            Acquisition waiter,
            AcquireRound target,
            int streak,
            boolean mayYield,
            CompletableFuture<Void> releaseSettled) {
        this.waiter = waiter;
        this.target = target;
        this.streak = streak;
        this.mayYield = mayYield;
        this.releaseSettled = releaseSettled;
    }

    /** The owner the handoff grants the lock to. */
    String owner() {
        return target.owner;
    }

    /**
     * handoff.lua's ARGV for this handoff, releasing {@code releasingOwner}: the round's acquire.lua
     * ARGV (owner, lease, counter TTL), then the releasing owner, the publish command, the yield flag
     * and the waiter lease.
     */
    List<String> args(String releasingOwner, String publishCommand) {
        List<String> args = new ArrayList<>(target.args.size() + 4);
        args.addAll(target.args);
        args.add(releasingOwner);
        args.add(publishCommand);
        args.add(mayYield ? "1" : "0");
        args.add(Long.toString(GrantOrder.WAITER_LEASE_MS));
        return args;
    }

    /** The handoff's reply or failure, as the reply of the waiter's attempt sent at {@code sentNanos}. */
    void onReply(@Nullable AcquireReply reply, @Nullable Throwable error, long sentNanos) {
        waiter.onParsedReply(target, streak, reply, error, sentNanos);
    }

    /** A reply that came after the handoff's command timed out (the command ran, and may have granted the lock). */
    void onLateReply(@Nullable Object reply, @Nullable Throwable error) {
        waiter.onLateReply(target, reply, error);
    }

    /** Whether the waiter's deadline has passed (its wait must then end on the failure at hand). */
    boolean deadlinePassed() {
        return waiter.pastDeadline();
    }

    /**
     * Called once, before the first send, with the future that completes when the release (and so
     * every send of this handoff) is settled: an ending of the waiter meanwhile must not clean up
     * its owner before that, or a resend could find the lock moved on and report a false loss.
     */
    void pending(CompletableFuture<?> settled) {
        settled.whenComplete((released, error) -> releaseSettled.complete(null));
    }
}
