package io.leasehold.lock;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Why a lease ended before its owner released it. Delivered by {@link Lease#lost()}, by
 * {@link LockEventListener#onLeaseLost(LeaseLoss)} and inside {@link LeaseLostException}.
 *
 * <p>This class is immutable and threadsafe.
 */
public final class LeaseLoss {

    /** The reason a lease was lost. */
    public enum Reason {
        /**
         * The lease's validity ran out without renewal: auto-renew off, or the holder's process itself
         * stalled past the deadline (a long GC pause, a stopped VM) so that no renewal was made in time.
         */
        EXPIRED,
        /**
         * Redis no longer holds the lock for this owner while the lease was valid: it was deleted,
         * flushed, or another owner has it; found by a renewal, an extend, or the lease's own release
         * (whose answer came while the lease was still valid).
         */
        STOLEN,
        /**
         * Renewal could not be confirmed before the local validity deadline: a renewal failed, or got no
         * reply in time (Redis unreachable, failing or stalled).
         */
        BACKEND_UNAVAILABLE,
        /** The lease reached {@link LockOptions#maxHoldTime()}; renewal stopped on purpose. */
        MAX_HOLD_EXCEEDED,
        /**
         * Its client was {@linkplain LockClient#close() closed} while the lease was held: the holder is
         * told (a {@code callLocked} body interrupted, a {@code withLock} block cancelled), then the
         * engine releases the lock for others.
         */
        CLIENT_CLOSED
    }

    private final String lockName;
    private final long fencingToken;
    private final Reason reason;
    private final Instant detectedAt;
    private final @Nullable Throwable cause;

    public LeaseLoss(String lockName, long fencingToken, Reason reason, Instant detectedAt, @Nullable Throwable cause) {
        this.lockName = Objects.requireNonNull(lockName, "lockName");
        this.fencingToken = fencingToken;
        this.reason = Objects.requireNonNull(reason, "reason");
        this.detectedAt = Objects.requireNonNull(detectedAt, "detectedAt");
        this.cause = cause;
    }

    public String lockName() {
        return lockName;
    }

    /** The fencing token of the lease that was lost. */
    public long fencingToken() {
        return fencingToken;
    }

    public Reason reason() {
        return reason;
    }

    /** Wall-clock time at which the engine declared the loss. */
    public Instant detectedAt() {
        return detectedAt;
    }

    /** The backend failure behind {@link Reason#BACKEND_UNAVAILABLE}, if one was seen. */
    public Optional<Throwable> cause() {
        return Optional.ofNullable(cause);
    }

    @Override
    public String toString() {
        return "LeaseLoss{lock='" + lockName + "', token=" + fencingToken + ", reason=" + reason + ", detectedAt="
                + detectedAt + (cause == null ? "" : ", cause=" + cause) + "}";
    }
}
