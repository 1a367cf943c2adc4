package io.leasehold.lock.internal;

import io.leasehold.lock.LeaseLoss;
import io.leasehold.lock.LeaseLostException;
import io.leasehold.lock.LeaseState;
import io.leasehold.lock.LockBackendException;
import io.leasehold.lock.LockOptions;
import io.leasehold.lock.ReleaseUnconfirmedException;
import io.leasehold.lock.spi.EngineLease;
import io.leasehold.lock.spi.LockBackend;
import io.leasehold.lock.spi.support.Checks;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * One acquisition's lease: the public {@link Lease}, and what its client's engine asks of it. It is
 * made of three parts with one job each:
 * <ul>
 *   <li>its {@link LeaseLifecycle}, where it stands: held (perhaps uncertain), releasing, then released
 *       or lost, once; every observer reads it there, so {@link #state()}, {@link #lost()}, the
 *       listeners and what {@code callLocked} / {@code withLock} report agree on how a lease ended;
 *       it also orders the events (announced before lost, told before the lock is freed);</li>
 *   <li>its {@link LeaseDeadline}: the validity deadline, kept honest under renewals and extends of
 *       unknown outcome (G4), and the timer that declares the loss no later than it (G6);</li>
 *   <li>its release, written by the client's {@link ReleaseSender}; the lifecycle judges from the
 *       answer how the lease ended ({@link LeaseLifecycle#releaseAnswered}).</li>
 * </ul>
 *
 * <p><b>Declaring a loss</b> (G6): the state changes first, on the declaring thread, with a
 * {@code callLocked} thread interrupted at once; then, on the callback executor, Kotlin blocks are
 * cancelled and {@link #lost()} completes; only then does the engine release the lock for others.
 *
 * <p><b>Releasing</b>: a release ends {@code RELEASED} when Redis deleted the lock (confirmed), or
 * could not confirm it while the work ended in time (no answer within the release's budget, or an
 * answer that cannot tell "expired on its own after the work" from "taken while it ran": see
 * {@link LeaseLifecycle#releaseAnswered}); it ends {@code LOST} ({@code STOLEN}) when an answer that came while the
 * lease was valid says the lock was no longer its own.
 *
 * <p>This class is threadsafe.
 */
final class DefaultLease implements EngineLease {

    /**
     * The sequence number of a release's min-hold TTL (2^53 - 1, the largest integer Lua's numbers hold
     * exactly): no renewal or extend of the lease can be numbered after it, so none applies over it, and
     * a resend of it finds its own number applied ("superseded").
     */
    static final long FINAL_TTL_SEQ = (1L << 53) - 1;

    /** extend.lua's and renew.lua's reply for a command that a later-numbered one superseded. */
    static final long TTL_SUPERSEDED = 2;

    private final Engine engine;
    /** The client that made it: tracks it, renews it, and holds the waiters its release may hand the lock to. */
    private final DefaultLockClient client;

    final String name;
    /** The lock's key and cluster slot, computed once: the watchdog needs both on every round. */
    final String lockKey;

    final int slot;
    final String owner;
    final LockOptions options;
    final long leaseMs;
    private final long token;
    /**
     * How many local handoffs in a row (a release of this client handing the lock to the next waiter
     * of this client) led to this lease: 0 if it was taken by an attempt of its own. Its release
     * hands over to a local waiter with this streak + 1, and asks Redis to yield to the head of the
     * lock's wait queue instead once the streak ends the client's turn (one pass over its waiters,
     * at most {@link WaitQueues#HANDOFFS_BEFORE_YIELD}; see {@link WaitQueues#claimHandoff}): carried
     * from lease to lease, so that it survives the local queue emptying between two handoffs.
     */
    final int handoffStreak;
    /** How its lock is granted: its release hands over locally, or through the lock's queue in Redis. */
    private final GrantOrder order;

    private final long acquiredNanos;
    final long maxHoldDeadlineNanos;
    /**
     * The thread whose blocking {@code acquire} took this lease, or null for an asynchronous one:
     * only so that a later blocking acquire of the same lock on that thread can be told it re-entered
     * (see {@link DefaultLockClient#heldByCallerThread}). Never used for ownership.
     */
    final @Nullable Thread takenBy;

    private final LeaseLifecycle lifecycle;
    private final LeaseDeadline deadline;

    DefaultLease(
            DefaultLockClient client,
            String name,
            String owner,
            LockOptions options,
            long token,
            long sentNanos,
            int handoffStreak) {
        this(
                client,
                name,
                owner,
                options,
                token,
                sentNanos,
                options.leaseTime().toMillis(),
                handoffStreak,
                null,
                GrantOrder.CLIENT_QUEUE);
    }

    DefaultLease(
            DefaultLockClient client,
            String name,
            String owner,
            LockOptions options,
            long token,
            long sentNanos,
            long firstTtlMs,
            int handoffStreak,
            @Nullable Thread takenBy,
            GrantOrder order) {
        this.engine = client.engine();
        this.order = order;
        this.client = client;
        this.takenBy = takenBy;
        this.name = name;
        this.lockKey = engine.lockKey(name);
        this.slot = engine.backend.slot(lockKey);
        this.owner = owner;
        this.options = options;
        this.leaseMs = options.leaseTime().toMillis();
        this.token = token;
        this.handoffStreak = handoffStreak;
        this.acquiredNanos = sentNanos;
        this.maxHoldDeadlineNanos =
                options.maxHoldTime().map(hold -> sentNanos + hold.toNanos()).orElse(Long.MAX_VALUE);
        this.lifecycle = new LeaseLifecycle(name, token, engine.listeners, engine::runCallback);
        this.deadline = new LeaseDeadline(
                engine, lifecycle, sentNanos, firstTtlMs, leaseMs, maxHoldDeadlineNanos, this::declareRunOut);
    }

    @Override
    public String lockName() {
        return name;
    }

    @Override
    public long fencingToken() {
        return token;
    }

    @Override
    public Duration remaining() {
        if (!lifecycle.isHeld()) {
            return Duration.ZERO;
        }
        return deadline.remaining();
    }

    @Override
    public boolean isValid() {
        return !remaining().isZero();
    }

    /**
     * {@inheritDoc}
     *
     * <p>A lease whose validity has run out is declared lost right here if the deadline timer has not
     * done it yet (on a busy machine it may fire a little late), so this never says HELD for a lease
     * that is no longer valid.
     */
    @Override
    public LeaseState state() {
        lossIfInvalid();
        return lifecycle.state();
    }

    @Override
    public CompletableFuture<LeaseLoss> lost() {
        return lifecycle.lostFuture();
    }

    /** The loss, once declared (or found at the release); null while held or releasing, or after a release. */
    @Nullable
    LeaseLoss loss() {
        return lifecycle.loss();
    }

    boolean isHeld() {
        return lifecycle.isHeld();
    }

    long acquiredNanos() {
        return acquiredNanos;
    }

    /** See {@link LossSignal#onLossNow}: for interrupting a {@code callLocked} thread. */
    AutoCloseable onLossNow(Runnable hook) {
        return lifecycle.onLossNow(hook);
    }

    /** See {@link LossSignal#watch}: for cancelling a Kotlin block or failing a {@code callLockedAsync}. */
    @Override
    public AutoCloseable watchLoss(Consumer<LeaseLoss> watcher) {
        return lifecycle.watchLoss(watcher);
    }

    /** See {@link LeaseLifecycle#ended()}. */
    CompletableFuture<Void> ended() {
        return lifecycle.ended();
    }

    /** See {@link LeaseLifecycle#settled()}. */
    CompletableFuture<Void> settled() {
        return lifecycle.settled();
    }

    /** Loss hooks and watchers attached now (for tests and diagnostics). */
    int lossAttachments() {
        return lifecycle.lossAttachments();
    }

    /**
     * The loss if the lease is lost, declaring it first if its validity has run out but the deadline
     * timer has not fired yet (a busy timer must not let a caller work under an expired lease);
     * null while the lease is valid, releasing, or after a release.
     */
    @Override
    public @Nullable LeaseLoss lossIfInvalid() {
        if (lifecycle.isHeld() && deadline.passed()) {
            declareRunOut();
        }
        return loss();
    }

    // ---- release ------------------------------------------------------------------------------

    @Override
    public boolean release() {
        return Futures.join(releaseInternal()); // the caller's own thread waits: no hop to the callback executor
    }

    @Override
    public void close() {
        release();
    }

    @Override
    public CompletableFuture<Boolean> releaseAsync() {
        return engine.toCaller(releaseInternal());
    }

    @Override
    public CompletableFuture<@Nullable LeaseLoss> endAfterWork() {
        return engine.toCaller(releaseAfterWork().thenApply(ended -> loss()));
    }

    /**
     * {@link #release()}'s answer, completing wherever the reply arrives: true if this call released
     * the lease and Redis confirmed it; false if the lease was not held (already released, releasing
     * or lost), if the release found it lost, or if Redis answered but could not confirm it; fails
     * with {@link ReleaseUnconfirmedException} if Redis could not be reached until the release gave up.
     * Never waits for the callback executor, so a blocking release on a callback thread cannot deadlock.
     */
    CompletableFuture<Boolean> releaseInternal() {
        return releaseInternal(true);
    }

    /**
     * Releases a lease that no work ran under (its caller gave up while it was on its way): as
     * {@link #releaseInternal()}, but at once, whatever the min-hold time, which holds a lock for work
     * done, not for a wait abandoned.
     */
    @Override
    public CompletableFuture<Boolean> releaseUnused() {
        return releaseInternal(false);
    }

    private CompletableFuture<Boolean> releaseInternal(boolean holdAtLeast) {
        CompletableFuture<LeaseLifecycle.Status> releasing = beginRelease(holdAtLeast);
        if (releasing == null) {
            return CompletableFuture.completedFuture(false);
        }
        return releasing.thenApply(status -> {
            if (status instanceof LeaseLifecycle.Released released) {
                ReleaseUnconfirmedException unconfirmed = released.unconfirmed();
                if (unconfirmed == null) {
                    return true;
                }
                if (unconfirmed.getCause() != null) {
                    throw new CompletionException(unconfirmed); // Redis could not be reached
                }
            }
            return false;
        });
    }

    /**
     * Ends the lease after the work under it ({@code callLocked}, {@code withLock},
     * {@code callLockedAsync}): releases it if it is still held, and completes once its ending is
     * final, whoever ended it (this call, the body's own release, a loss); never fails. Then
     * {@link #loss()} tells whether the work may have overlapped with another holder.
     */
    CompletableFuture<Void> releaseAfterWork() {
        beginRelease(true);
        return lifecycle.ended();
    }

    /**
     * Asks for the release if the lease is held (a lease past its validity is declared lost instead:
     * whoever releases it must hear that the work may have overlapped with another holder, as when a
     * paused process wakes up and releases). Returns a future of the lease's final status, completing
     * where Redis's answer arrives; null if the lease was not held, so this call released nothing.
     * {@code holdAtLeast}: whether the lock stays taken until the min-hold time is up (see
     * {@link LockOptions#minHoldTime()}), as after work done under the lease.
     */
    private @Nullable CompletableFuture<LeaseLifecycle.Status> beginRelease(boolean holdAtLeast) {
        lossIfInvalid();
        if (!lifecycle.releaseAsked()) {
            return null;
        }
        deadline.stop();
        // Released before its min-hold time is up: the lock stays taken in Redis until then (see
        // LockOptions#minHoldTime), with the last number a TTL command of the lease can have, so that no
        // renewal, whether sent before or numbered after the release began, can shorten or lengthen it.
        long holdUntil = acquiredNanos + options.minHoldTime().toNanos();
        boolean holding = holdAtLeast && holdUntil - engine.now() > 0;
        client.leaseEnded(this, holding);
        CompletableFuture<ReleaseReply> answer;
        if (holding) {
            answer = client.releases()
                    .releaseHolding(name, lockKey, owner, holdUntil, FINAL_TTL_SEQ, engine.commandTimeoutNanos);
        } else {
            // Owner-checked, so safe to send again after a transient failure, within one command timeout.
            // The next local waiter, if one can take it, gets the lock in the same call (a handoff).
            // A fair lock's release grants it to the head of its queue in Redis instead (release.lua); and
            // where grants are composed of several servers' (a quorum), a handoff could land on some of
            // them only: the release releases, and the local head asks once it settled (see leaseEnded).
            Handoff next = order.ordersLocally() && !engine.backend.grantsAreComposed()
                    ? client.claimHandoff(name, handoffStreak)
                    : null;
            answer = client.releases().release(name, owner, engine.commandTimeoutNanos, next);
        }
        CompletableFuture<LeaseLifecycle.Status> outcome = new CompletableFuture<>();
        Futures.whenDone(answer, "the reply of a release", name, (reply, error) -> {
            try {
                outcome.complete(lifecycle.releaseAnswered(
                        reply,
                        error,
                        engine::isTransient,
                        deadline::redisMayHaveExpiredBy,
                        Duration.ofNanos(engine.now() - acquiredNanos)));
            } catch (RuntimeException | Error bug) {
                outcome.completeExceptionally(bug); // the caller hears of it rather than waiting forever
                throw bug;
            }
        });
        return outcome;
    }

    /**
     * Ends the lease because its client is closing: a held lease is declared lost
     * ({@link LeaseLoss.Reason#CLIENT_CLOSED}: its holder is told, then the lock is released for
     * others). Returns {@link #settled()}, which a releasing lease completes once its release settles.
     */
    CompletableFuture<Void> endByClose() {
        if (lifecycle.isHeld()) {
            declareLost(LeaseLoss.Reason.CLIENT_CLOSED, null);
        }
        return lifecycle.settled();
    }

    // ---- extend -------------------------------------------------------------------------------

    @Override
    public void extend(Duration leaseTime) {
        Futures.join(extendInternal(leaseTime)); // the caller's own thread waits: no hop to the callback executor
    }

    @Override
    public CompletableFuture<Void> extendAsync(Duration leaseTime) {
        return engine.toCaller(extendInternal(leaseTime));
    }

    private CompletableFuture<Void> extendInternal(Duration leaseTime) {
        Checks.positive("leaseTime", leaseTime, name);
        Checks.atLeast("leaseTime", leaseTime, LockOptions.MIN_LEASE_TIME, name);
        checkUsable();
        long ms = leaseTime.toMillis();
        long sent = engine.now();
        // From now on Redis may run the extend at any moment: count with its shorter TTL at once.
        long seq = deadline.begin(sent, ms);
        deadline.arm();
        client.validityLowered(this);
        return engine.call(
                        EngineScripts.EXTEND, List.of(lockKey), List.of(owner, Long.toString(ms), Long.toString(seq)))
                .handle((reply, error) -> {
                    if (error != null) {
                        Throwable cause = Futures.unwrap(error);
                        ttlFailed(seq, cause); // unknown outcome: the shorter TTL may be in force
                        throw new CompletionException(new LockBackendException(name, "could not extend", cause));
                    }
                    long code = Replies.asLong(reply, "extend");
                    boolean partially = confirmedPartially(code);
                    if (code == TTL_SUPERSEDED) {
                        // A renewal or extend sent after this one was applied first: its TTL stands.
                        deadline.superseded(seq);
                    } else if (code != 1 && !partially) {
                        declareLost(LeaseLoss.Reason.STOLEN, null); // no-op if released meanwhile
                        throw new CompletionException(stateException());
                    } else {
                        deadline.confirmed(seq, partially);
                    }
                    // Redis answered for the lock: a renewal's failure before it no longer tells why a
                    // later run-out happened (a stall after this is EXPIRED, not BACKEND_UNAVAILABLE).
                    client.ttlConfirmed(this);
                    if (!lifecycle.isHeld()) {
                        throw new CompletionException(stateException());
                    }
                    lifecycle.tellWhileHeld(listeners -> listeners.renewed(name, token));
                    followConfirmationInForce();
                    return null;
                });
    }

    /**
     * Whether a renew or extend reply {@code code} says the TTL was set where it counts but not on
     * every server (see {@link io.leasehold.lock.spi.LockBackend#confirmsPartially}); never on a
     * backend that does not confirm partially, where the code is no confirmation at all.
     */
    boolean confirmedPartially(long code) {
        return code == LockBackend.CONFIRMED_PARTIALLY && engine.backend.confirmsPartially();
    }

    /**
     * After a TTL command's confirmation (or its refusal as superseded): the lease is {@code UNCERTAIN}
     * while the confirmation in force, that of the highest-numbered command confirmed, is partial, and
     * certain again otherwise, whatever order the replies came in.
     */
    private void followConfirmationInForce() {
        if (deadline.partialInForce()) {
            lifecycle.renewalFailed(partialConfirmation(), this::remaining);
        } else {
            lifecycle.confirmed();
        }
    }

    /** Why a lease confirmed partially is {@code UNCERTAIN}: one more failure could lose it. */
    private LockBackendException partialConfirmation() {
        return new LockBackendException(
                name, "the lease was renewed on enough of the backend's servers, but not on all of them", null);
    }

    private void checkUsable() {
        LeaseState current = lifecycle.state();
        if (current == LeaseState.RELEASED || current == LeaseState.RELEASING) {
            throw alreadyReleased();
        }
        if (current == LeaseState.LOST) {
            throw new LeaseLostException(lossOrStolen());
        }
    }

    private RuntimeException stateException() {
        return lifecycle.state() == LeaseState.LOST ? new LeaseLostException(lossOrStolen()) : alreadyReleased();
    }

    private IllegalStateException alreadyReleased() {
        return new IllegalStateException("lease must be held, but was already released (lock '" + name + "')");
    }

    private LeaseLoss lossOrStolen() {
        LeaseLoss current = loss();
        return current != null ? current : new LeaseLoss(name, token, LeaseLoss.Reason.STOLEN, Instant.now(), null);
    }

    // ---- renewal (called by the Renewer) ---------------------------------------------------

    /** A renewal of {@code ms} is being sent at {@code sentNanos}; returns its sequence for the outcome. */
    long renewalSent(long sentNanos, long ms) {
        return deadline.begin(sentNanos, ms);
    }

    /**
     * Renewal {@code seq}, begun earlier, is being written now, at {@code writtenNanos}: Redis cannot
     * run it before, so its TTL runs out no earlier than that plus the lease (see {@link LeaseValidity#written}).
     */
    void renewalWritten(long seq, long writtenNanos) {
        deadline.written(seq, writtenNanos);
    }

    /**
     * The lock value Redis holds for this lease as far as the engine knows: {@code "<owner>:<token>"},
     * with {@code ":<seq>"} of the latest renewal or extend confirmed (renew.lua's {@code expected}).
     */
    String knownLockValue() {
        long seq = deadline.confirmedSeq();
        return seq == 0 ? owner + ":" + token : lockValue(seq);
    }

    /** This lease's lock value as a TTL command numbered {@code seq} writes it (renew.lua's {@code value}). */
    String lockValue(long seq) {
        return owner + ":" + token + ":" + seq;
    }

    /**
     * Redis confirmed renewal {@code seq}, everywhere or only {@code partially} (see
     * {@link #confirmedPartially}): it counts as a renewal (the validity moves on from its send, and the
     * listeners hear of it); the lease is certain again unless the confirmation in force is partial.
     */
    void renewalConfirmed(long seq, boolean partially) {
        deadline.confirmed(seq, partially);
        if (!lifecycle.isHeld()) {
            return;
        }
        lifecycle.tellWhileHeld(listeners -> listeners.renewed(name, token));
        followConfirmationInForce();
    }

    /**
     * Redis refused renewal {@code seq} as superseded by a later-numbered extend: not a failure, not a
     * renewal, but proof that Redis still has the lock for this owner (certain again, unless that later
     * command was confirmed only partially).
     */
    void renewalSuperseded(long seq) {
        deadline.superseded(seq);
        followConfirmationInForce();
    }

    /**
     * The renewal in flight has no reply at its {@linkplain #renewalReplyDeadline overdue point}: the
     * lease goes {@code UNCERTAIN} (the listeners hear {@code onLeaseUncertain}, not a failed renewal:
     * the call is still waiting, and a reply before the loss check makes the lease {@code HELD} again).
     */
    void renewalOverdue(Throwable cause) {
        lifecycle.renewalFailed(cause, this::remaining);
    }

    /** Renewal {@code seq} failed or timed out: its outcome is unknown, so the lease is uncertain. */
    void renewalFailed(long seq, Throwable cause) {
        ttlFailed(seq, cause);
    }

    /** A TTL command (renewal or extend) {@code seq} failed or timed out: its outcome is unknown, so the lease is uncertain. */
    private void ttlFailed(long seq, Throwable cause) {
        deadline.failed(seq);
        lifecycle.tellWhileHeld(listeners -> listeners.renewalFailed(name, token, cause));
        lifecycle.renewalFailed(cause, this::remaining);
    }

    /**
     * When a renewal sent at {@code sentNanos} is overdue: halfway to the loss check. A renewal with no
     * reply by then makes the lease {@code UNCERTAIN} while it can still say so, with time left to act,
     * whatever the command timeout (which may be longer than the whole lease); see {@link #renewalOverdue}.
     */
    long renewalReplyDeadline(long sentNanos) {
        return deadline.renewalReplyDeadline(sentNanos);
    }

    // ---- events ---------------------------------------------------------------------------------

    /**
     * Announces the lease to the listeners as acquired (after {@code onHandoff} when a release message
     * woke its waiter {@code sinceReleaseSeen} ago; null otherwise), if it is still held and before its
     * loss check: from now on its events are reported. Returns false, announcing nothing, if it already
     * ended or is about to be declared lost.
     */
    boolean announceAcquired(Duration waited, @Nullable Duration sinceReleaseSeen) {
        // The loss check is read under the lifecycle's lock, after the caller's own reads of the clock.
        return lifecycle.announce(this::heldBeforeLossCheck, waited, sinceReleaseSeen, this::remaining);
    }

    // ---- validity and loss --------------------------------------------------------------------

    /** See {@link LeaseDeadline#shorterLeaseInForce}. */
    boolean shorterLeaseInForce() {
        return deadline.shorterLeaseInForce();
    }

    /** Nanoseconds of local validity left (negative once past), whatever the state: for the watchdog's schedule. */
    long validityLeftNanos() {
        return deadline.leftNanos();
    }

    /** (Re)arms the timer that declares the loss no later than the validity deadline. */
    void armDeadline() {
        deadline.arm();
    }

    /**
     * Whether the lease is held and its loss check (a lead before the validity deadline) not reached
     * yet: only such a lease is handed out (nobody receives a lease declared lost at once) or renewed
     * (a lease past its check is left to the check, which calls a process that stalled past it
     * {@code EXPIRED}, not the backend's fault).
     */
    boolean heldBeforeLossCheck() {
        return lifecycle.isHeld() && deadline.beforeLossCheck();
    }

    /** Declares the lease lost because its validity ran out unconfirmed; why, the deadline tells from the watchdog's report. */
    private void declareRunOut() {
        RenewalReport renewal = client.renewal(this);
        declareLost(deadline.runOutReason(renewal, options.autoRenew()), deadline.runOutCause(renewal));
    }

    /**
     * Ends the lease as lost (once) and tells its holder, in this order: the state changes and a
     * {@code callLocked} thread is interrupted (here, at once); the listeners are told (event
     * thread); then, on the callback executor, watchers and {@link #lost()} are told and only after
     * them the lock is released for others (unless someone else has it already).
     */
    void declareLost(LeaseLoss.Reason reason, @Nullable Throwable cause) {
        LeaseLoss loss = new LeaseLoss(name, token, reason, Instant.now(), cause);
        if (!lifecycle.lost(loss, false)) {
            return;
        }
        deadline.stop();
        client.leaseEnded(this, false);
        lifecycle.tellLoss(loss, () -> {
            if (reason != LeaseLoss.Reason.STOLEN) {
                // Owner-checked, so harmless if someone else holds it by now; frees the lock early for others.
                client.releases().releaseEventually(name, owner, leaseMs);
            }
        });
    }

    /** See {@link LeaseLifecycle#tellNowIfUntold}. */
    void tellNowIfUntold() {
        lifecycle.tellNowIfUntold();
    }

    /** Reason a renewal that found the lock gone or taken should report. */
    LeaseLoss.Reason goneReason() {
        return deadline.passed() ? LeaseLoss.Reason.EXPIRED : LeaseLoss.Reason.STOLEN;
    }

    @Override
    public String toString() {
        return "Lease{lock='" + name + "', token=" + token + ", state=" + lifecycle.state() + ", remaining="
                + remaining() + "}";
    }
}
