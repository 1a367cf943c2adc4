package io.leasehold.lock.internal;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LeaseLoss;
import io.leasehold.lock.LeaseLostException;
import io.leasehold.lock.LockBackendException;
import io.leasehold.lock.LockOptions;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;

/**
 * One acquisition's lease. State moves once, from HELD to RELEASED (by its owner) or to LOST (by
 * the engine), so a lease is never both released and lost, and {@link #lost()} never completes on
 * release. A deadline timer declares the loss no later than the local validity deadline (G6).
 *
 * <p>This class is threadsafe.
 */
final class DefaultLease implements Lease {

    private enum State { HELD, RELEASED, LOST }

    private final Engine engine;
    private final LeaseOwnerSide side;
    final String name;
    /** The lock's key and cluster slot, computed once: the watchdog needs both on every round. */
    final String lockKey;
    final int slot;
    final String owner;
    final LockOptions options;
    final long leaseMs;
    private final long token;
    private final long acquiredNanos;
    final long maxHoldDeadlineNanos;
    private final AtomicReference<State> state = new AtomicReference<>(State.HELD);
    private final CompletableFuture<LeaseLoss> lost = new CompletableFuture<>();
    private volatile long validUntilNanos;
    private volatile @Nullable LeaseLoss loss;
    private @Nullable ScheduledFuture<?> deadlineTimer;

    // Watchdog bookkeeping, guarded by the Renewer's lock.
    long nextRenewNanos;
    boolean renewInFlight;
    boolean holdBounded;
    @Nullable Throwable lastRenewalFailure;

    DefaultLease(Engine engine, LeaseOwnerSide side, String name, String owner, LockOptions options, long token,
            long sentNanos) {
        this.engine = engine;
        this.side = side;
        this.name = name;
        this.lockKey = engine.lockKey(name);
        this.slot = engine.backend.slot(lockKey);
        this.owner = owner;
        this.options = options;
        this.leaseMs = options.leaseTime().toMillis();
        this.token = token;
        this.acquiredNanos = sentNanos;
        this.maxHoldDeadlineNanos = options.maxHoldTime()
                .map(hold -> sentNanos + hold.toNanos())
                .orElse(Long.MAX_VALUE);
        this.validUntilNanos = Validity.validUntil(sentNanos, leaseMs);
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
        if (state.get() != State.HELD) {
            return Duration.ZERO;
        }
        long left = Math.min(validUntilNanos, maxHoldDeadlineNanos) - System.nanoTime();
        return left <= 0 ? Duration.ZERO : Duration.ofNanos(left);
    }

    @Override
    public boolean isValid() {
        return !remaining().isZero();
    }

    @Override
    public CompletableFuture<LeaseLoss> lost() {
        return lost.copy(); // a copy, so that a caller completing it cannot fake a loss
    }

    @Nullable LeaseLoss loss() {
        return loss;
    }

    boolean isHeld() {
        return state.get() == State.HELD;
    }

    long acquiredNanos() {
        return acquiredNanos;
    }

    // ---- release ------------------------------------------------------------------------------

    @Override
    public boolean release() {
        return join(releaseAsync());
    }

    @Override
    public void close() {
        release();
    }

    @Override
    public CompletableFuture<Boolean> releaseAsync() {
        if (!state.compareAndSet(State.HELD, State.RELEASED)) {
            return CompletableFuture.completedFuture(false);
        }
        stopTimers();
        return engine.release(name, owner)
                .handle((reply, error) -> {
                    side.leaseEnded(this);
                    if (error != null) {
                        throw new CompletionException(new LockBackendException(name,
                                "could not release; the lock expires after its lease time", unwrap(error)));
                    }
                    boolean released = Replies.asLong(reply, "release") == 1;
                    if (released) {
                        engine.listeners.released(name, token, Duration.ofNanos(System.nanoTime() - acquiredNanos));
                    }
                    return released;
                });
    }

    // ---- extend -------------------------------------------------------------------------------

    @Override
    public void extend(Duration leaseTime) {
        join(extendAsync(leaseTime));
    }

    @Override
    public CompletableFuture<Void> extendAsync(Duration leaseTime) {
        Checks.positive("leaseTime", leaseTime, name);
        checkUsable();
        long ms = Math.max(1, leaseTime.toMillis());
        long sent = System.nanoTime();
        return engine.call(EngineScripts.EXTEND, List.of(lockKey), List.of(owner, Long.toString(ms)))
                .handle((reply, error) -> {
                    if (error != null) {
                        throw new CompletionException(new LockBackendException(name, "could not extend", unwrap(error)));
                    }
                    if (Replies.asLong(reply, "extend") != 1) {
                        declareLost(LeaseLoss.Reason.STOLEN, null);
                        throw new CompletionException(new LeaseLostException(lossOrStolen()));
                    }
                    if (!validated(sent, ms)) {
                        throw new CompletionException(stateException());
                    }
                    engine.listeners.renewed(name, token);
                    return null;
                });
    }

    private void checkUsable() {
        State current = state.get();
        if (current == State.RELEASED) {
            throw alreadyReleased();
        }
        if (current == State.LOST) {
            throw new LeaseLostException(lossOrStolen());
        }
    }

    private RuntimeException stateException() {
        return state.get() == State.LOST ? new LeaseLostException(lossOrStolen()) : alreadyReleased();
    }

    private IllegalStateException alreadyReleased() {
        return new IllegalStateException("lease must be held, but was already released (lock '" + name + "')");
    }

    private LeaseLoss lossOrStolen() {
        LeaseLoss current = loss;
        return current != null ? current
                : new LeaseLoss(name, token, LeaseLoss.Reason.STOLEN, Instant.now(), null);
    }

    // ---- validity and loss --------------------------------------------------------------------

    /** Redis confirmed {@code ms} more from {@code sentNanos}; returns false if the lease already ended. */
    boolean validated(long sentNanos, long ms) {
        if (state.get() != State.HELD) {
            return false;
        }
        validUntilNanos = Validity.validUntil(sentNanos, ms);
        armDeadline();
        return true;
    }

    /** (Re)arms the timer that declares the loss no later than the validity deadline. */
    synchronized void armDeadline() {
        if (state.get() != State.HELD) {
            return;
        }
        if (deadlineTimer != null) {
            deadlineTimer.cancel(false);
        }
        deadlineTimer = engine.schedule(this::onDeadline, lossCheckAt() - System.nanoTime());
    }

    /** When the loss check runs: a little before the validity (or max-hold) deadline, see {@link Validity#leadNanos}. */
    private long lossCheckAt() {
        return Math.min(validUntilNanos, maxHoldDeadlineNanos) - Validity.leadNanos(leaseMs);
    }

    private void onDeadline() {
        if (state.get() != State.HELD) {
            return;
        }
        if (System.nanoTime() < lossCheckAt() - TimeUnit.MILLISECONDS.toNanos(1)) {
            armDeadline(); // a renewal moved the deadline while this timer was queued
            return;
        }
        Throwable failure;
        boolean bounded;
        synchronized (side.renewalLock()) {
            failure = lastRenewalFailure;
            bounded = holdBounded;
        }
        LeaseLoss.Reason reason;
        if (bounded || System.nanoTime() >= maxHoldDeadlineNanos - Validity.leadNanos(leaseMs)) {
            reason = LeaseLoss.Reason.MAX_HOLD_EXCEEDED;
        } else if (!options.autoRenew()) {
            reason = LeaseLoss.Reason.EXPIRED;
        } else {
            reason = LeaseLoss.Reason.BACKEND_UNAVAILABLE;
        }
        declareLost(reason, failure);
    }

    /** Ends the lease as lost (once) and signals it: lost() future, listeners. */
    void declareLost(LeaseLoss.Reason reason, @Nullable Throwable cause) {
        if (!state.compareAndSet(State.HELD, State.LOST)) {
            return;
        }
        LeaseLoss ended = new LeaseLoss(name, token, reason, Instant.now(), cause);
        loss = ended;
        stopTimers();
        side.leaseEnded(this);
        if (reason != LeaseLoss.Reason.STOLEN) {
            // Owner-checked, so harmless if someone else holds it by now; frees the lock early for others.
            engine.release(name, owner);
        }
        engine.fireEvent(() -> {
            engine.listeners.leaseLost(ended);
            lost.complete(ended);
        });
    }

    /** Reason a renewal that found the lock gone or taken should report. */
    LeaseLoss.Reason goneReason() {
        return System.nanoTime() >= validUntilNanos ? LeaseLoss.Reason.EXPIRED : LeaseLoss.Reason.STOLEN;
    }

    private synchronized void stopTimers() {
        if (deadlineTimer != null) {
            deadlineTimer.cancel(false);
            deadlineTimer = null;
        }
    }

    static Throwable unwrap(Throwable error) {
        Throwable current = error;
        while ((current instanceof CompletionException || current instanceof ExecutionException)
                && current.getCause() != null) {
            current = current.getCause();
        }
        return current;
    }

    static <T> T join(CompletableFuture<T> future) {
        try {
            return future.join();
        } catch (CompletionException e) {
            Throwable cause = unwrap(e);
            if (cause instanceof RuntimeException) {
                throw (RuntimeException) cause;
            }
            if (cause instanceof Error) {
                throw (Error) cause;
            }
            throw e;
        }
    }

    @Override
    public String toString() {
        return "Lease{lock='" + name + "', token=" + token + ", state=" + state.get() + ", remaining=" + remaining() + "}";
    }
}
