package io.leasehold.lock;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * Proof of ownership of a {@link DistributedLock}: one acquisition, with its own random owner
 * value in Redis and its own fencing token.
 *
 * <p><b>Not reentrant, not tied to a thread.</b> A lease may be released from any thread or
 * coroutine; it is the lease, not the thread that acquired it, that owns the lock.
 *
 * <p>A lease ends in exactly one of two ways, and every observer ({@link #state()}, {@link #lost()},
 * the listeners and metrics, what {@code callLocked} / {@code withLock} report) agrees on which:
 * <ul>
 *   <li><b>released</b> ({@link LeaseState#RELEASED}): its owner released it while it was valid, and
 *       Redis confirmed it, or could not (see {@link ReleaseUnconfirmedException}: the work ended in
 *       time all the same);</li>
 *   <li><b>lost</b> ({@link LeaseState#LOST}, {@link #lost()} completes with the reason): it ran out, a
 *       renewal or extend found it gone or another owner's, Redis stopped answering, it reached its
 *       max-hold bound, its client closed, or its release found it taken while it was valid.</li>
 * </ul>
 * While auto-renew is on the engine renews it in the background. Prefer
 * {@link DistributedLock#callLocked} or Kotlin's {@code withLock}, which release for you and react to
 * loss.
 *
 * <p><b>Deciding.</b> {@link #state()} and {@link #isValid()} change the moment the engine decides;
 * {@link #lost()} and the listeners are told a little later, on other threads. Decide "may I still
 * write?" from {@link #isValid()} (or the fencing token), never from whether {@link #lost()} has
 * completed yet.
 *
 * <p><b>Threads.</b> The futures this interface returns complete on the client's
 * {@linkplain LockClient.Builder#callbackExecutor callback executor}, never on a Redis driver's I/O
 * thread or on the thread that renews leases, so their dependent actions may block without delaying
 * any lock's renewal or loss signal.
 *
 * <p>This interface's implementation is threadsafe.
 */
public interface Lease extends AutoCloseable {

    String lockName();

    /**
     * A number strictly greater than every earlier lease's token for this lock name: it is
     * {@code max(last token + 1, Redis server time in microseconds)}, so it keeps rising across
     * clients, key expiry, loss of Redis data, and a failover to a replica that missed the latest
     * acquisitions, as long as the failover takes longer than the clock skew between the servers.
     *
     * <p>Pass it to the resource you protect, and let the resource check it on every access that
     * matters, reads included, record the highest token it has seen, and refuse smaller ones.
     * Checking writes alone lets a paused holder's late write in while the new holder has read but
     * not yet written.
     */
    long fencingToken();

    /**
     * How long this lease is still certainly valid: counted from when the acquire (or last
     * renewal) request was <em>sent</em>, on the monotonic clock, minus a drift margin. Never more
     * than Redis's own TTL. Zero once released or lost.
     */
    Duration remaining();

    /**
     * True while the lease is neither released nor lost and {@link #remaining()} is above zero
     * (also while {@link LeaseState#UNCERTAIN}: it is still locally valid).
     */
    boolean isValid();

    /**
     * Where the lease stands right now: {@link LeaseState#HELD}, or {@link LeaseState#UNCERTAIN}
     * while its latest renewal or extend failed and none has been confirmed since, until its owner
     * releases it or the engine declares it lost, which happens no later than the end of its local
     * validity (a lease read after its validity ran out is declared lost right then, even if the
     * engine's timer is late, as after a long GC pause). A lease lost because Redis stopped
     * answering is {@code UNCERTAIN} first: a renewal that gets no reply is judged failed halfway to
     * the loss check, whatever the command timeout. Changes to {@code LOST} before {@link #lost()}
     * completes and before the engine lets anyone else take the lock. See {@link LeaseState} for what
     * to do in each state.
     */
    LeaseState state();

    /**
     * Completes when the lease is lost, with the reason (also when its release finds it taken while
     * it was valid, or its client closes while it is held); never completes on a release. It
     * completes on the client's callback executor after {@link #state()} became
     * {@link LeaseState#LOST}, and before the engine frees the lock for others; the future is shared
     * and read-only (completing or cancelling it has no effect), so calling this often costs nothing.
     */
    CompletableFuture<LeaseLoss> lost();

    /**
     * Releases the lock if this lease still owns it; the lease is {@link LeaseState#RELEASING} until
     * Redis answers, then final. Idempotent. Under a {@linkplain LockOptions#minHoldTime() min-hold
     * time} that is not up yet, the release leaves the lock taken in Redis until it is, and ends the
     * lease all the same (what follows holds for it too, "deleted" meaning "left to expire then"). A lease whose validity has already run out is not
     * released but declared lost ({@link #lost()} completes), since the work under it may have
     * overlapped with another holder. A transient failure is retried within one command timeout (the
     * release is owner-checked, so repeating it is safe). How it can end:
     * <ul>
     *   <li>Redis deleted the lock: {@code RELEASED}, returns true;</li>
     *   <li>Redis answered, while the lease was still valid, that the lock was gone or another owner's:
     *       it was taken while the work ran, so the lease is {@code LOST} ({@code STOLEN}; {@link #lost()}
     *       completes) and this returns false;</li>
     *   <li>Redis answered so only after the validity ran out, or after an attempt whose answer was
     *       lost (the lock may have expired on its own after the work): {@code RELEASED}, unconfirmed,
     *       returns false;</li>
     *   <li>Redis could not be reached until the release gave up, or the backend failed the release
     *       without confirming it (a quorum whose majority could not confirm it): {@code RELEASED},
     *       unconfirmed, throws {@link ReleaseUnconfirmedException}, which names the reason.</li>
     * </ul>
     *
     * @return true if this call deleted the lock in Redis; false if the lease was already released,
     *         being released or lost, or Redis no longer had the lock for this owner
     * @throws ReleaseUnconfirmedException if Redis could not be reached or could not confirm the release; renewal has stopped and the
     *                                     lock expires after its lease time (a {@link LockBackendException})
     */
    boolean release();

    /**
     * Asynchronous {@link #release()}: the future fails with {@link ReleaseUnconfirmedException} if
     * Redis could not be reached.
     */
    CompletableFuture<Boolean> releaseAsync();

    /**
     * Sets the lease's remaining time in Redis to {@code leaseTime} from now, and its local validity
     * accordingly. With auto-renew on, the watchdog renews the lease in time for the new deadline,
     * and later renewals go back to the lock's lease time.
     *
     * <p>While the call is in flight, and after it failed (the outcome is then unknown: Redis may have
     * applied it), the lease counts with the smaller of its old deadline and the new one, so that
     * {@link #remaining()} never overestimates what Redis holds.
     *
     * @throws IllegalArgumentException if {@code leaseTime} is below {@link LockOptions#MIN_LEASE_TIME} or too long
     * @throws IllegalStateException    if the lease was released
     * @throws LeaseLostException       if the lease was lost, or Redis no longer has it for this owner
     * @throws LockBackendException     if Redis could not be reached
     */
    void extend(Duration leaseTime);

    /** Asynchronous {@link #extend(Duration)}; argument errors are thrown, not put in the future. */
    CompletableFuture<Void> extendAsync(Duration leaseTime);

    /** Same as {@link #release()}, for try-with-resources. */
    @Override
    void close();
}
