package io.leasehold.lock.internal;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LeaseLoss;
import io.leasehold.lock.LeaseLostException;
import io.leasehold.lock.LeaseState;
import io.leasehold.lock.LockBackendException;
import io.leasehold.lock.LockOptions;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * One acquisition's lease. Its state moves once, from HELD to RELEASED (by its owner) or to LOST
 * (by the engine), so a lease is never both released and lost, and {@link #lost()} never completes
 * on release. A deadline timer declares the loss no later than the local validity deadline (G6),
 * which {@link LeaseValidity} keeps honest under renewals and extends of unknown outcome (G4).
 *
 * <p><b>Declaring a loss</b> (G6): the state changes first, on the declaring thread, with a
 * {@code callLocked} thread interrupted at once; then, on the callback executor, Kotlin blocks are
 * cancelled and {@link #lost()} completes; only then does the engine release the lock for others.
 *
 * <p><b>Uncertain</b>: while a renewal or extend has failed and no later one was confirmed, the lease
 * is still HELD in {@link #status} (it may be released, renewed, handed out) but reports
 * {@link LeaseState#UNCERTAIN}; see {@link #markUncertain}.
 *
 * <p><b>Events</b> of one lease reach the listeners in order, from {@code onAcquired} to exactly one
 * ending, and only for a lease that was {@linkplain #announceAcquired announced} (handed to a
 * caller): {@link #tell} sends them under {@link #eventLock}, after the announcement.
 *
 * <p>This class is threadsafe.
 */
final class DefaultLease implements Lease {

    /** {@link #status} while held and after a release; once lost it holds the {@link LeaseLoss}. */
    private static final Object HELD_NOW = LeaseState.HELD;

    private static final Object RELEASED_NOW = LeaseState.RELEASED;
    /** extend.lua's and renew.lua's reply for a command that a later-numbered one superseded. */
    static final long TTL_SUPERSEDED = 2;

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
    /**
     * How many local handoffs in a row (a release of this client handing the lock to the next waiter
     * of this client) led to this lease: 0 if it was taken by an attempt of its own. Its release
     * hands over to a local waiter with this streak + 1, and asks Redis to yield to other clients'
     * waiters instead once the streak reaches {@link WaitQueues#HANDOFFS_BEFORE_YIELD}: carried from
     * lease to lease, so that it needs no per-name state and survives the local queue emptying
     * between two handoffs.
     */
    final int handoffStreak;

    private final long acquiredNanos;
    final long maxHoldDeadlineNanos;
    /**
     * {@link #HELD_NOW}, {@link #RELEASED_NOW}, or the {@link LeaseLoss} itself once lost: state and
     * loss change in one step, so whoever sees the state LOST also sees why.
     */
    private final AtomicReference<Object> status = new AtomicReference<>(HELD_NOW);

    private final LeaseValidity validity;
    private final LossSignal signal = new LossSignal();
    /** Guards {@link #deadlineTimer}; private, so that a user synchronizing on the lease blocks nothing of ours. */
    private final Object timerLock = new Object();

    private EngineTimer.@Nullable Timeout deadlineTimer; // guarded by timerLock
    /** Orders this lease's listener events after its announcement; private for the same reason. */
    private final Object eventLock = new Object();

    private boolean announced; // guarded by eventLock
    /** See {@link #settled()}. */
    private final CompletableFuture<Void> settled = new CompletableFuture<>();

    // Watchdog bookkeeping, guarded by the Renewer's lock (its schedule keeps the times).
    boolean renewInFlight;
    boolean holdBounded;

    @Nullable
    Throwable lastRenewalFailure;
    /** A renewal or extend failed and none was confirmed since; written under eventLock. */
    private volatile boolean uncertain;

    private @Nullable Throwable uncertainCause; // guarded by eventLock

    DefaultLease(
            Engine engine,
            LeaseOwnerSide side,
            String name,
            String owner,
            LockOptions options,
            long token,
            long sentNanos,
            int handoffStreak) {
        this.engine = engine;
        this.side = side;
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
        this.validity = new LeaseValidity(sentNanos, leaseMs);
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
        if (status.get() != HELD_NOW) {
            return Duration.ZERO;
        }
        long left = validUntil() - engine.now();
        return left <= 0 ? Duration.ZERO : Duration.ofNanos(left);
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
        return currentState();
    }

    private LeaseState currentState() {
        Object now = status.get();
        if (now == HELD_NOW) {
            return uncertain ? LeaseState.UNCERTAIN : LeaseState.HELD;
        }
        return now instanceof LeaseLoss ? LeaseState.LOST : (LeaseState) now;
    }

    @Override
    public CompletableFuture<LeaseLoss> lost() {
        return signal.future();
    }

    /** The loss, once declared; null while held or after a release. */
    @Nullable
    LeaseLoss loss() {
        Object now = status.get();
        return now instanceof LeaseLoss ? (LeaseLoss) now : null;
    }

    boolean isHeld() {
        return status.get() == HELD_NOW;
    }

    long acquiredNanos() {
        return acquiredNanos;
    }

    /** See {@link LossSignal#onLossNow}: for interrupting a {@code callLocked} thread. */
    AutoCloseable onLossNow(Runnable hook) {
        return signal.onLossNow(hook);
    }

    /** See {@link LossSignal#watch}: for cancelling a Kotlin block or failing a {@code callLockedAsync}. */
    AutoCloseable watchLoss(Consumer<LeaseLoss> watcher) {
        return signal.watch(watcher);
    }

    /**
     * The loss to report when a release found that Redis no longer had the lock for this owner
     * (flushed, failed over, force-released, expired unnoticed): the work under it may have
     * overlapped with another holder.
     */
    LeaseLoss lossFoundAtRelease() {
        return new LeaseLoss(name, token, LeaseLoss.Reason.STOLEN, Instant.now(), null);
    }

    /**
     * Completes once this lease has ended and, if it was released, once that release has had its
     * outcome; if it was lost, once its holder has been told (a holder hears of its loss before the
     * lock is freed for others). A clean-up of this lease's owner (the late reply of an acquire whose
     * retry produced this lease) waits for it: sent earlier, it could delete the lock just before the
     * holder's own release runs, which would then find the lock gone and report a false loss.
     */
    CompletableFuture<Void> settled() {
        return settled;
    }

    /** Loss hooks and watchers attached now (for tests and diagnostics). */
    int lossAttachments() {
        return signal.attachedCount();
    }

    /**
     * The loss if the lease is lost, declaring it first if its validity has run out but the deadline
     * timer has not fired yet (a busy timer must not let a caller work under an expired lease);
     * null while the lease is valid or after a release.
     */
    @Nullable
    LeaseLoss lossIfInvalid() {
        if (status.get() == HELD_NOW && engine.now() - validUntil() >= 0) {
            declareLost(deadlineReason(), lastFailure());
        }
        return loss();
    }

    // ---- release ------------------------------------------------------------------------------

    @Override
    public boolean release() {
        return join(releaseInternal()); // the caller's own thread waits: no hop to the callback executor
    }

    @Override
    public void close() {
        release();
    }

    @Override
    public CompletableFuture<Boolean> releaseAsync() {
        return engine.toCaller(releaseInternal());
    }

    /** {@code future}, completing on the callback executor (for {@link LeaseSignals}). */
    <T> CompletableFuture<T> engineToCaller(CompletableFuture<T> future) {
        return engine.toCaller(future);
    }

    /**
     * Ends the lease as released (if it is still held) and deletes the lock if Redis still has it for
     * this owner. The future completes wherever the reply arrives, with true if this call deleted the
     * lock; it fails with {@link LockBackendException} when Redis could not be reached.
     */
    CompletableFuture<Boolean> releaseInternal() {
        return releaseTelling().thenApply(outcome -> outcome == Released.DELETED);
    }

    /** What a release did. */
    enum Released {
        /** This call ended the lease and deleted its lock. */
        DELETED,
        /** This call ended the lease, but Redis no longer had the lock for this owner: it was lost unnoticed. */
        GONE,
        /** The lease had already ended (released, or lost) before this call. */
        ALREADY_ENDED
    }

    /** {@link #releaseInternal()}, telling apart a lock found gone from a lease that had already ended. */
    CompletableFuture<Released> releaseTelling() {
        // A lease past its validity is lost, not released: whoever releases it must hear that the
        // work may have overlapped with another holder (a paused process wakes up and releases).
        lossIfInvalid();
        if (!status.compareAndSet(HELD_NOW, RELEASED_NOW)) {
            return CompletableFuture.completedFuture(Released.ALREADY_ENDED);
        }
        stopTimers();
        side.leaseEnded(this);
        // Owner-checked, so safe to send again after a transient failure, within one command timeout.
        // The next local waiter, if one can take it, gets the lock in the same call (a handoff).
        HandoffTarget next = side.claimHandoff(name, handoffStreak);
        return engine.releaseRetrying(name, owner, engine.commandTimeoutNanos, next)
                .whenComplete((reply, error) -> {
                    settled.complete(null); // after the release's outcome, whatever it was: see settled()
                })
                .handle((reply, error) -> {
                    Duration held = Duration.ofNanos(engine.now() - acquiredNanos);
                    if (error != null) {
                        // The lease has ended here all the same (nothing renews it, and its lock expires after
                        // its lease time): listeners hear of its ending, so that nothing counts it as held.
                        tell(listeners -> listeners.released(name, token, held));
                        throw new CompletionException(new LockBackendException(
                                name, "could not release; the lock expires after its lease time", unwrap(error)));
                    }
                    boolean released = Replies.asLong(reply, "release") == 1;
                    if (released) {
                        tell(listeners -> listeners.released(name, token, held));
                    } else {
                        // Lost unnoticed until now: listeners (and the metrics built on them) count it as a loss.
                        LeaseLoss gone = lossFoundAtRelease();
                        tell(listeners -> listeners.leaseLost(gone));
                    }
                    return released ? Released.DELETED : Released.GONE;
                });
    }

    // ---- extend -------------------------------------------------------------------------------

    @Override
    public void extend(Duration leaseTime) {
        join(extendInternal(leaseTime)); // the caller's own thread waits: no hop to the callback executor
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
        long seq = validity.begin(sent, ms);
        armDeadline();
        side.validityLowered(this);
        return engine.call(
                        EngineScripts.EXTEND, List.of(lockKey), List.of(owner, Long.toString(ms), Long.toString(seq)))
                .handle((reply, error) -> {
                    if (error != null) {
                        Throwable cause = unwrap(error);
                        validity.failed(seq); // unknown outcome: the shorter TTL may be in force
                        armDeadline();
                        tellWhileHeld(listeners -> listeners.renewalFailed(name, token, cause));
                        markUncertain(cause);
                        throw new CompletionException(new LockBackendException(name, "could not extend", cause));
                    }
                    long code = Replies.asLong(reply, "extend");
                    if (code == TTL_SUPERSEDED) {
                        // A renewal or extend sent after this one was applied first: its TTL stands.
                        validity.superseded(seq);
                    } else if (code != 1) {
                        declareLost(LeaseLoss.Reason.STOLEN, null); // no-op if released meanwhile
                        throw new CompletionException(stateException());
                    } else {
                        validity.confirmed(seq);
                    }
                    if (status.get() != HELD_NOW) {
                        throw new CompletionException(stateException());
                    }
                    armDeadline();
                    tellWhileHeld(listeners -> listeners.renewed(name, token));
                    markCertain();
                    return null;
                });
    }

    private void checkUsable() {
        LeaseState current = currentState();
        if (current == LeaseState.RELEASED) {
            throw alreadyReleased();
        }
        if (current == LeaseState.LOST) {
            throw new LeaseLostException(lossOrStolen());
        }
    }

    private RuntimeException stateException() {
        return currentState() == LeaseState.LOST ? new LeaseLostException(lossOrStolen()) : alreadyReleased();
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
        return validity.begin(sentNanos, ms);
    }

    /**
     * The lock value Redis holds for this lease as far as the engine knows: {@code "<owner>:<token>"},
     * with {@code ":<seq>"} of the latest renewal or extend confirmed (renew.lua's {@code expected}).
     */
    String knownLockValue() {
        long seq = validity.confirmedSeq();
        return seq == 0 ? owner + ":" + token : lockValue(seq);
    }

    /** This lease's lock value as a TTL command numbered {@code seq} writes it (renew.lua's {@code value}). */
    String lockValue(long seq) {
        return owner + ":" + token + ":" + seq;
    }

    /** Redis confirmed renewal {@code seq}: the lease is certain again, and its listeners hear of the renewal. */
    void renewalConfirmed(long seq) {
        validity.confirmed(seq);
        if (status.get() != HELD_NOW) {
            return;
        }
        armDeadline();
        tellWhileHeld(listeners -> listeners.renewed(name, token));
        markCertain();
    }

    /**
     * Redis refused renewal {@code seq} as superseded by a later-numbered extend: not a failure, not a
     * renewal, but proof that Redis still has the lock for this owner.
     */
    void renewalSuperseded(long seq) {
        validity.superseded(seq);
        armDeadline();
        markCertain();
    }

    /** Renewal {@code seq} failed or timed out: its outcome is unknown, so the lease is uncertain. */
    void renewalFailed(long seq, Throwable cause) {
        validity.failed(seq);
        armDeadline();
        tellWhileHeld(listeners -> listeners.renewalFailed(name, token, cause));
        markUncertain(cause);
    }

    /**
     * A renewal or extend failed: unless the lease already was, it goes {@link LeaseState#UNCERTAIN}
     * and the listeners hear of it once for this streak of failures. State and event change under
     * {@link #eventLock}, so that the events of a quick fail-then-confirm arrive in that order.
     */
    private void markUncertain(Throwable cause) {
        synchronized (eventLock) {
            if (uncertain || status.get() != HELD_NOW) {
                return;
            }
            uncertain = true;
            uncertainCause = cause;
            if (announced) {
                engine.listeners.leaseUncertain(name, token, remaining(), cause);
            }
        }
    }

    /** Redis confirmed the lease: an uncertain lease is held again. */
    private void markCertain() {
        synchronized (eventLock) {
            if (!uncertain) {
                return;
            }
            uncertain = false;
            uncertainCause = null;
            if (announced && status.get() == HELD_NOW) {
                engine.listeners.leaseReconfirmed(name, token);
            }
        }
    }

    // ---- events ---------------------------------------------------------------------------------

    /**
     * Announces the lease to the listeners as acquired (after {@code onHandoff} when a release message
     * woke its waiter {@code sinceReleaseSeen} ago; null otherwise), if it is still held and before its
     * loss check: from now on its events are reported. Returns false, announcing nothing, if it already
     * ended or is about to be declared lost.
     */
    boolean announceAcquired(Duration waited, @Nullable Duration sinceReleaseSeen) {
        synchronized (eventLock) {
            // Checked here, after the caller's own reads of the clock: a hand-out thread paused between
            // an earlier check and this announcement must not hand out a lease past its loss check.
            if (!heldBeforeLossCheck()) {
                return false;
            }
            announced = true;
            if (sinceReleaseSeen != null) {
                engine.listeners.handoff(name, token, sinceReleaseSeen);
            }
            engine.listeners.acquired(name, token, waited);
            if (uncertain && uncertainCause != null) {
                // It went uncertain before it was handed out (a slow hand-out): its listeners start from there.
                engine.listeners.leaseUncertain(name, token, remaining(), uncertainCause);
            }
            return true;
        }
    }

    /** Sends this lease's ending event, in order, if the lease was announced; only enqueues, never blocks. */
    private void tell(Consumer<Listeners> event) {
        synchronized (eventLock) {
            if (announced) {
                event.accept(engine.listeners);
            }
        }
    }

    /**
     * Sends an event of a lease in progress (renewed, uncertain, ...) if the lease was announced and
     * has not ended: an ending's event is sent after its state changed, so none follows it.
     */
    private void tellWhileHeld(Consumer<Listeners> event) {
        synchronized (eventLock) {
            if (announced && status.get() == HELD_NOW) {
                event.accept(engine.listeners);
            }
        }
    }

    // ---- validity and loss --------------------------------------------------------------------

    /**
     * Whether a TTL command with a lease shorter than this lease's own (an extend to a shorter time)
     * is, or may be, in force: the watchdog must then renew by a third of the validity left, not a
     * third of the lease.
     */
    boolean shorterLeaseInForce() {
        return validity.leaseMsInForce() < leaseMs;
    }

    /** Nanoseconds of local validity left (negative once past), whatever the state: for the watchdog's schedule. */
    long validityLeftNanos() {
        return validUntil() - engine.now();
    }

    /** The local validity deadline, max-hold included, on the engine's ticker. */
    private long validUntil() {
        return Math.min(validity.until(), maxHoldDeadlineNanos);
    }

    /** (Re)arms the timer that declares the loss no later than the validity deadline. */
    void armDeadline() {
        synchronized (timerLock) {
            if (status.get() != HELD_NOW) {
                return;
            }
            if (deadlineTimer != null) {
                deadlineTimer.cancel();
            }
            deadlineTimer = engine.timer.scheduleAt(this::onDeadline, lossCheckAt());
        }
    }

    /**
     * When the loss check runs: a little before the validity deadline, see {@link Validity#leadNanos},
     * by the lead of the lease time in force (after an extend to a short time, that short time).
     */
    long lossCheckAt() {
        return validUntil() - Validity.leadNanos(Math.min(leaseMs, validity.leaseMsInForce()));
    }

    private void onDeadline() {
        if (status.get() != HELD_NOW) {
            return;
        }
        if (engine.now() - (lossCheckAt() - TimeUnit.MILLISECONDS.toNanos(1)) < 0) {
            armDeadline(); // a renewal moved the deadline while this timer was queued
            return;
        }
        declareLost(deadlineReason(), lastFailure());
    }

    /**
     * Why a lease whose validity ran out without confirmation is lost: its max-hold bound; Redis not
     * answering (a renewal failed, or is still waiting for its reply); or else plain expiry, as when
     * the process itself stalled (a long GC pause, a stopped VM) and no renewal was even sent.
     */
    private LeaseLoss.Reason deadlineReason() {
        boolean bounded;
        boolean backendSilent;
        synchronized (side.renewalLock()) {
            bounded = holdBounded;
            backendSilent = lastRenewalFailure != null || renewInFlight;
        }
        if (bounded || engine.now() - (maxHoldDeadlineNanos - Validity.leadNanos(leaseMs)) >= 0) {
            return LeaseLoss.Reason.MAX_HOLD_EXCEEDED;
        }
        return options.autoRenew() && backendSilent ? LeaseLoss.Reason.BACKEND_UNAVAILABLE : LeaseLoss.Reason.EXPIRED;
    }

    /**
     * Whether the lease is held and its loss check (a lead before the validity deadline) not reached
     * yet: only such a lease is handed out (nobody receives a lease declared lost at once) or renewed
     * (a lease past its check is left to the check, which calls a process that stalled past it
     * {@code EXPIRED}, not the backend's fault).
     */
    boolean heldBeforeLossCheck() {
        return status.get() == HELD_NOW && engine.now() - lossCheckAt() < 0;
    }

    private @Nullable Throwable lastFailure() {
        synchronized (side.renewalLock()) {
            return lastRenewalFailure;
        }
    }

    /**
     * Ends the lease as lost (once) and tells its holder, in this order: the state changes and a
     * {@code callLocked} thread is interrupted (here, at once); the listeners are told (event
     * thread); then, on the callback executor, watchers and {@link #lost()} are told and only after
     * them the lock is released for others (unless someone else has it already).
     */
    void declareLost(LeaseLoss.Reason reason, @Nullable Throwable cause) {
        LeaseLoss ended = new LeaseLoss(name, token, reason, Instant.now(), cause);
        if (!status.compareAndSet(HELD_NOW, ended)) {
            return;
        }
        stopTimers();
        side.leaseEnded(this);
        signal.declare(ended);
        tell(listeners -> listeners.leaseLost(ended));
        engine.runCallback(() -> {
            signal.tell(ended);
            settled.complete(null); // only now may a clean-up of this owner free the lock for others
            if (reason != LeaseLoss.Reason.STOLEN) {
                // Owner-checked, so harmless if someone else holds it by now; frees the lock early for others.
                engine.releaseEventually(name, owner, leaseMs);
            }
        });
    }

    /** Reason a renewal that found the lock gone or taken should report. */
    LeaseLoss.Reason goneReason() {
        return engine.now() - validUntil() >= 0 ? LeaseLoss.Reason.EXPIRED : LeaseLoss.Reason.STOLEN;
    }

    private void stopTimers() {
        synchronized (timerLock) {
            if (deadlineTimer != null) {
                deadlineTimer.cancel();
                deadlineTimer = null;
            }
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
        return "Lease{lock='" + name + "', token=" + token + ", state=" + currentState() + ", remaining=" + remaining()
                + "}";
    }
}
