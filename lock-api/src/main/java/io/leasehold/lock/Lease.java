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
 * <p>A lease ends in exactly one of two ways: its owner {@linkplain #release() releases} it, or it
 * is <em>lost</em> ({@link #lost()} completes with the reason). While auto-renew is on the engine
 * renews it in the background. Prefer {@link DistributedLock#callLocked} or Kotlin's
 * {@code withLock}, which release for you and react to loss.
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
     * engine's timer is late, as after a long GC pause). Changes to {@code LOST} before
     * {@link #lost()} completes and before the engine lets anyone else take the lock. See
     * {@link LeaseState} for what to do in each state.
     */
    LeaseState state();

    /**
     * Completes when the lease is lost, with the reason; never completes on a normal release. It
     * completes on the client's callback executor after {@link #state()} became
     * {@link LeaseState#LOST}, and before the engine frees the lock for others; the future is shared
     * and read-only (completing or cancelling it has no effect), so calling this often costs nothing.
     */
    CompletableFuture<LeaseLoss> lost();

    /**
     * Releases the lock if this lease still owns it. Idempotent. A lease whose validity has already
     * run out is not released but declared lost ({@link #lost()} completes), since the work under it
     * may have overlapped with another holder. A transient failure is retried within one command
     * timeout (the release is owner-checked, so repeating it is safe).
     *
     * @return true if this call deleted the lock in Redis; false if the lease was already released
     *         or lost, or Redis no longer had the lock for this owner
     * @throws LockBackendException if Redis could not be reached; renewal has stopped and the lock
     *                              expires after its lease time
     */
    boolean release();

    /** Asynchronous {@link #release()}: the future fails with {@link LockBackendException} on a Redis failure. */
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
