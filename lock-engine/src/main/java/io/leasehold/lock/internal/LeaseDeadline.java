package io.leasehold.lock.internal;

import io.leasehold.lock.LeaseLoss;
import io.leasehold.lock.spi.support.Durations;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * One lease's validity deadline and the timer that enforces it (G4, G6). The deadline is the
 * earlier of what Redis holds, as far as the TTL commands sent tell ({@link LeaseValidity}: every
 * renewal and extend is {@linkplain #begin begun} before it is sent and then confirmed, superseded
 * or failed), and the lease's max-hold bound. The <em>loss check</em> runs a little before it
 * ({@link Validity#leadNanos}), by the lead of the lease time in force; the timer calls
 * {@code onLossCheck} then, unless the lease ended or a renewal moved the check meanwhile.
 *
 * <p>Every outcome of a TTL command re-arms the timer for the deadline it leaves, so that a shorter
 * extend in flight brings the check forward and a confirmed renewal pushes it back.
 *
 * <p>This class is threadsafe: the validity keeps its own lock, and the timer is guarded by a
 * private lock of this class (so that a user synchronizing on the lease blocks nothing of ours).
 */
final class LeaseDeadline {

    /** How late a queued timer may find the check without re-arming: it runs at most this early. */
    private static final long TIMER_SLACK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private final Engine engine;
    private final LeaseLifecycle lifecycle;
    private final long leaseMs;
    private final long maxHoldDeadlineNanos;
    private final LeaseValidity validity;
    private final Runnable onLossCheck;
    private final Object timerLock = new Object();
    private EngineTimer.@Nullable Timeout timer; // guarded by timerLock

    /**
     * The deadline of a lease of {@code leaseMs} whose acquisition was sent at {@code sentNanos} and
     * set a TTL of {@code firstTtlMs} (the lease time, or the grant window of a grant taken from its
     * message: a shorter lease in force until a renewal lifts it), bounded by
     * {@code maxHoldDeadlineNanos} ({@link Long#MAX_VALUE} for none); {@code onLossCheck} runs on the
     * timer thread when the check is reached while the lease is held.
     */
    LeaseDeadline(
            Engine engine,
            LeaseLifecycle lifecycle,
            long sentNanos,
            long firstTtlMs,
            long leaseMs,
            long maxHoldDeadlineNanos,
            Runnable onLossCheck) {
        this.engine = engine;
        this.lifecycle = lifecycle;
        this.leaseMs = leaseMs;
        this.maxHoldDeadlineNanos = maxHoldDeadlineNanos;
        this.validity = new LeaseValidity(sentNanos, firstTtlMs);
        this.onLossCheck = onLossCheck;
    }

    // ---- the deadline ---------------------------------------------------------------------------

    /** The local validity deadline, max-hold included, on the engine's ticker. */
    long validUntil() {
        return Math.min(validity.until(), maxHoldDeadlineNanos);
    }

    /** Nanoseconds of validity left (negative once past), whatever the lease's state. */
    long leftNanos() {
        return validUntil() - engine.now();
    }

    /** What is left of the validity, zero once past. */
    Duration remaining() {
        long left = leftNanos();
        return left <= 0 ? Duration.ZERO : Duration.ofNanos(left);
    }

    /** Whether the validity has run out. */
    boolean passed() {
        return leftNanos() <= 0;
    }

    /**
     * Whether the TTL Redis holds (as the commands sent tell, not the max-hold bound) may have run out
     * by {@code nanos}: an answer that found the lock gone or taken before then proves a theft, one
     * after it may have met a plain expiry.
     */
    boolean redisMayHaveExpiredBy(long nanos) {
        return nanos - validity.until() >= 0;
    }

    /**
     * Why a lease whose validity ran out without confirmation is lost, by the watchdog's
     * {@code renewal} report: its max-hold bound; Redis not answering (a renewal failed, or is still
     * waiting for its reply); or else plain expiry, as when the process itself stalled (a long GC
     * pause, a stopped VM) and no renewal was even sent.
     */
    LeaseLoss.Reason runOutReason(RenewalReport renewal, boolean autoRenew) {
        if (renewal.holdBounded() || maxHoldReached()) {
            return LeaseLoss.Reason.MAX_HOLD_EXCEEDED;
        }
        return autoRenew && renewal.backendSilent() ? LeaseLoss.Reason.BACKEND_UNAVAILABLE : LeaseLoss.Reason.EXPIRED;
    }

    /**
     * Why renewal could not be confirmed: the last renewal's failure, or, for a renewal still waiting
     * for its reply when the validity ran out (the timer that would have judged it was late), a
     * timeout that says so; null if no renewal was even sent.
     */
    @Nullable
    Throwable runOutCause(RenewalReport renewal) {
        if (renewal.lastFailure() != null || !renewal.inFlight()) {
            return renewal.lastFailure();
        }
        return new TimeoutException("no reply to the renewal sent "
                + Durations.human(Duration.ofNanos(engine.now() - renewal.inFlightSinceNanos()))
                + " ago before the lease's validity ran out");
    }

    /** Whether the max-hold bound, less the loss check's lead, has been reached: a loss now is that bound's. */
    private boolean maxHoldReached() {
        return engine.now() - (maxHoldDeadlineNanos - Validity.leadNanos(leaseMs)) >= 0;
    }

    /**
     * When the loss check runs: a little before the validity deadline, see {@link Validity#leadNanos},
     * by the lead of the lease time in force (after an extend to a short time, that short time).
     */
    long lossCheckAt() {
        return validUntil() - Validity.leadNanos(Math.min(leaseMs, validity.leaseMsInForce()));
    }

    /** Whether the loss check has not been reached yet. */
    boolean beforeLossCheck() {
        return engine.now() - lossCheckAt() < 0;
    }

    /**
     * Whether a TTL command with a lease shorter than the lease's own (an extend to a shorter time)
     * is, or may be, in force: the watchdog must then renew by a third of the validity left, not a
     * third of the lease.
     */
    boolean shorterLeaseInForce() {
        return validity.leaseMsInForce() < leaseMs;
    }

    /**
     * When a renewal sent at {@code sentNanos} is overdue: halfway to the loss check. A renewal with no
     * reply by then makes the lease {@code UNCERTAIN} while it can still say so, with time left to act,
     * whatever the command timeout (which may be longer than the whole lease).
     */
    long renewalReplyDeadline(long sentNanos) {
        return sentNanos + Math.max(0, lossCheckAt() - sentNanos) / 2;
    }

    // ---- TTL commands (renewals and extends) ----------------------------------------------------

    /** A TTL command of {@code ms} is being sent at {@code sentNanos}; returns its sequence for the outcome. */
    long begin(long sentNanos, long ms) {
        return validity.begin(sentNanos, ms);
    }

    /** Command {@code seq} is being written now, at {@code writtenNanos} (see {@link LeaseValidity#written}). */
    void written(long seq, long writtenNanos) {
        validity.written(seq, writtenNanos);
    }

    /** Redis confirmed command {@code seq}, everywhere or only {@code partially} (see {@link LeaseValidity#confirmed(long, boolean)}). */
    void confirmed(long seq, boolean partially) {
        validity.confirmed(seq, partially);
        arm();
    }

    /** See {@link LeaseValidity#partialInForce}. */
    boolean partialInForce() {
        return validity.partialInForce();
    }

    /** Redis refused command {@code seq} as superseded by a later-numbered one. */
    void superseded(long seq) {
        validity.superseded(seq);
        arm();
    }

    /** Command {@code seq} failed or timed out: its outcome is unknown, so its TTL may be in force. */
    void failed(long seq) {
        validity.failed(seq);
        arm();
    }

    /** The latest command Redis confirmed, or 0 (see {@link LeaseValidity#confirmedSeq}). */
    long confirmedSeq() {
        return validity.confirmedSeq();
    }

    // ---- the timer ------------------------------------------------------------------------------

    /** (Re)arms the timer for the loss check, if the lease is held. */
    void arm() {
        synchronized (timerLock) {
            if (!lifecycle.isHeld()) {
                return;
            }
            if (timer != null) {
                timer.cancel();
            }
            timer = engine.timer.scheduleAt(this::onTimer, lossCheckAt());
        }
    }

    /** Stops the timer: the lease ended. */
    void stop() {
        synchronized (timerLock) {
            if (timer != null) {
                timer.cancel();
                timer = null;
            }
        }
    }

    private void onTimer() {
        if (!lifecycle.isHeld()) {
            return;
        }
        if (engine.now() - (lossCheckAt() - TIMER_SLACK_NANOS) < 0) {
            arm(); // a renewal moved the deadline while this timer was queued
            return;
        }
        onLossCheck.run();
    }
}
