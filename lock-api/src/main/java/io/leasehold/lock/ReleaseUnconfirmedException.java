package io.leasehold.lock;

import org.jspecify.annotations.Nullable;

/**
 * A release that Redis could not confirm, although it was asked for while the lease was still
 * valid: <b>the work under the lease ended in time</b>, and the lease is not counted as lost; only
 * whether Redis deleted the lock, or let it expire on its own, is unknown.
 *
 * <p>It happens when Redis could not be reached until the release gave up (one command timeout), or
 * the backend failed the release without confirming it (a quorum whose majority could not confirm it):
 * {@link Lease#release()} then throws this exception, the backend failure attached as its cause and
 * named in the message;
 * or when Redis answered only after the lease's validity had run out, or after an earlier attempt
 * of the same release whose reply was lost, and then found the lock gone or held by another owner:
 * the lock may have expired on its own (or been deleted by that earlier attempt) after the work
 * ended, and the answer cannot tell that from a lock taken while the work ran ({@link Lease#release()}
 * then returns false). Either way the lease is {@link LeaseState#RELEASED}, {@link Lease#lost()}
 * never completes, and {@code callLocked} / {@code withLock} / {@code callLockedAsync} return the
 * body's result; listeners hear {@link LockEventListener#onReleaseUnconfirmed} with this exception.
 *
 * <p><b>What it means for your data</b>: the work ended while the lease was valid. Redis kept the lock
 * for it until then unless Redis itself lost or handed out the lock while the work ran (a failover, a
 * flush, a force-release) — the rare case that only the {@linkplain Lease#fencingToken() fencing token}
 * makes harmless, and that no answer arriving this late (or after a lost one) can tell from the lock
 * simply expiring, or being deleted by the earlier attempt, after the work. Other nodes may wait up to
 * the lease time for the lock, since Redis may still hold it until it expires.
 *
 * @see LeaseLostException for a lease that ended while the work ran
 */
public class ReleaseUnconfirmedException extends LockBackendException {

    private static final long serialVersionUID = 1L;

    /**
     * @param why   what made the release unconfirmed, e.g. "Redis did not answer within the command timeout"
     * @param cause the backend failure, if Redis could not be reached; null if Redis answered
     */
    public ReleaseUnconfirmedException(String lockName, String why, @Nullable Throwable cause) {
        super(
                lockName,
                "release not confirmed: " + why + "; the work ended while the lease was valid, and the lock"
                        + " expires on its own after its lease time",
                cause);
    }
}
