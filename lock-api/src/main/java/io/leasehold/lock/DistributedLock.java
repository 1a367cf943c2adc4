package io.leasehold.lock;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * A named lock shared through Redis: a cheap handle, obtained from {@link LockClient#lock(String)}.
 *
 * <p><b>Ownership</b> is an explicit {@link Lease}: each acquisition stores a fresh 128-bit random
 * owner value in Redis, never a thread or client id. <b>Reentrancy</b> is explicit: the blocking
 * {@link #callLocked}/{@link #runLocked} are reentrant on the same thread (a nested call reuses the
 * outer lease without a Redis call); Kotlin's {@code withLock} is reentrant within the coroutine that
 * holds the lock and its children; {@code acquire*} always make a new acquisition and so are
 * <em>not</em> reentrant (a second acquire on a held lock waits like any other contender, and its
 * timeout says so: {@link LockTimeoutException#heldByCaller()}). Whether the current thread holds
 * the lock, and how many nested calls deep, is {@link #isHeldByCurrentThread()} and
 * {@link #holdCount()} (Kotlin: {@code isHeldInCurrentCoroutine()}, {@code holdCountInCurrentCoroutine()}).
 *
 * <p><b>Fairness.</b> Waiters of one {@link LockClient} queue first-in first-out per lock name, and
 * only the head of that queue contends. A newcomer makes one immediate attempt only when nobody of
 * its client waits for the name already (or when it does not wait at all, as {@link #tryAcquire()}):
 * otherwise it queues behind them without one. A lease's release hands the lock straight to its
 * client's next waiter, with that waiter's own fresh owner and a higher fencing token, in the same
 * Redis call. Across clients, the head waiter of each client takes a place in the lock's wait queue
 * in Redis, and a release with no local waiter grants the lock to the head of that queue; local
 * handoffs pass the queue by, but at most 8 in a row: the 8th grants the lock to the head of the
 * queue (another client's waiter) instead, and queues its own waiter behind it. So a waiter of
 * another client that has queued gets the lock within 8 local handoffs, decided in Redis, not by
 * thread scheduling. A waiter whose client died costs the queue one grant window (about 1.5 s).
 * For strict first-in first-out across all clients, see {@link LockClient#fairLock(String)}.
 *
 * <p><b>Waiting</b> is driven by the lock's release channel with a fallback retry when the holder's
 * TTL runs out: no polling.
 *
 * <p><b>Cancellation.</b> A wait that times out, is interrupted, or whose future is cancelled leaves no
 * lock behind: if the acquire reached Redis anyway, the engine releases it with the same owner
 * value. If it is cancelled after acquisition, the lease is released before the cancellation is
 * reported.
 *
 * <p>Every wait makes at least one attempt unless it queues without one (above); a call returns
 * within its wait plus at most one
 * command timeout ({@link LockClient.Builder#commandTimeout}). A transient backend failure (a
 * refused or reset connection, a timeout, a server that is loading or failing over) is retried with
 * back-off while the wait has time left; {@link LockBackendException} means the backend stayed
 * unusable for the rest of the wait, or failed for good (a script error, say).
 *
 * <p><b>Hand-out.</b> A lease is handed out only if it is still valid at that moment: an acquire
 * whose reply came later than its lease (after an outage, say) counts as a failed attempt, is
 * released, and the wait goes on.
 *
 * <p><b>Threads.</b> The futures returned here complete, and {@link #callLockedAsync} bodies run, on
 * the client's {@linkplain LockClient.Builder#callbackExecutor callback executor}: never on a Redis
 * driver's I/O thread or on the thread that renews leases and detects their loss.
 *
 * <p>Two handles obtained from the same {@link LockClient} for the same name are {@code equals}
 * (reentrancy keys on that), whatever their options.
 *
 * <p>Prefer {@link #callLocked} / {@link #runLocked} (or Kotlin's {@code withLock}): they release on
 * every path and react to lease loss. This interface's implementation is threadsafe.
 */
public interface DistributedLock {

    String name();

    LockOptions options();

    /**
     * Waits up to {@code wait} for the lock. Prefer {@link #callLocked}.
     *
     * @throws LockTimeoutException  if another owner held it for the whole wait
     * @throws LockBackendException  if Redis failed
     * @throws LockInterruptedException if the thread was interrupted before this method returned, even if a lease was granted meanwhile (it is then released; the interrupt flag is set again)
     */
    Lease acquire(Duration wait);

    /**
     * One attempt, no waiting: empty if another owner holds the lock. Prefer {@link #callLocked}.
     *
     * @throws LockBackendException     if Redis failed
     * @throws LockInterruptedException if the thread was interrupted before this method returned (as for {@link #acquire})
     */
    Optional<Lease> tryAcquire();

    /**
     * Waits up to {@code wait}: empty if another owner held the lock for the whole wait.
     *
     * @throws LockBackendException     if Redis failed
     * @throws LockInterruptedException if the thread was interrupted before this method returned (as for {@link #acquire})
     */
    Optional<Lease> tryAcquire(Duration wait);

    /**
     * Asynchronous {@link #acquire(Duration)}: the future fails with {@link LockTimeoutException} or
     * {@link LockBackendException}. Cancelling the future abandons the wait cleanly.
     */
    CompletableFuture<Lease> acquireAsync(Duration wait);

    /** Asynchronous {@link #tryAcquire(Duration)}. */
    CompletableFuture<Optional<Lease>> tryAcquireAsync(Duration wait);

    /**
     * Runs {@code body} while holding the lock, and releases it afterwards, also on exceptions.
     * <b>Reentrant on this thread</b>: a nested {@code callLocked}/{@code runLocked} on an equal
     * handle reuses the outer lease without a Redis call. If the lease is lost while {@code body}
     * runs, the thread running it is interrupted (before the engine frees the lock for others) and,
     * once it returns, {@link LeaseLostException} is thrown. A loss declared before the release wins
     * over the body's result or exception (added as suppressed). The body never starts with a lease
     * that is no longer valid.
     *
     * @throws LockTimeoutException  if another owner held it for the whole wait
     * @throws LockBackendException  if Redis failed while acquiring
     * @throws LeaseLostException    if the lease was lost while {@code body} ran, or before it started, or if
     *                               the release found that Redis no longer had the lock for this lease (a
     *                               flush, a failover, a force-release): the work may have overlapped
     * @throws LockInterruptedException if the thread was interrupted while it waited for the lock, before {@code body} started (as for {@link #acquire(Duration)})
     * @throws Exception             whatever {@code body} threw (the lock is released first)
     */
    <T> T callLocked(Duration wait, Callable<T> body) throws Exception;

    /**
     * {@link #callLocked(Duration, Callable)} whose body receives the {@link Lease}, to pass its
     * {@linkplain Lease#fencingToken() fencing token} to the resource it protects or to check
     * {@link Lease#isValid()} before a write. Reentrant on this thread like {@code callLocked} (a
     * nested call receives the outer lease), and the same in every other respect.
     *
     * <p>(Not an overload of {@code callLocked}: a Kotlin lambda {@code { ... }} fits both a
     * {@code Callable} and a one-argument interface, so same-named overloads would make every Kotlin
     * {@code callLocked(wait) { ... }} ambiguous.)
     */
    <T> T callWithLease(Duration wait, LeaseCallable<T> body) throws Exception;

    /** {@link #callLocked} for a {@link Runnable}; throws no checked exception. */
    void runLocked(Duration wait, Runnable body);

    /** {@link #runLocked(Duration, Runnable)} whose body receives the {@link Lease}; see {@link #callWithLease}. */
    void runWithLease(Duration wait, Consumer<Lease> body);

    /**
     * Acquires asynchronously, runs {@code body} with the lease on the callback executor, and
     * releases when the returned stage completes (either way). Not reentrant. If the lease is lost
     * before the body's stage completes, the result fails with {@link LeaseLostException} and the
     * body's stage is cancelled. Cancelling the result abandons the wait, or, once the body runs,
     * cancels the body's stage and releases the lock.
     */
    <T> CompletableFuture<T> callLockedAsync(Duration wait, Function<Lease, ? extends CompletionStage<T>> body);

    /**
     * Whether the current thread holds this lock: it runs inside a blocking {@link #callLocked},
     * {@link #runLocked}, {@link #callWithLease} or {@link #runWithLease} of this lock (through this
     * handle or an equal one), and that call's lease is still valid. Like {@code ReentrantLock}'s
     * {@code isHeldByCurrentThread}; no Redis call, never throws.
     *
     * <p><b>Owner</b>: the thread, by the same rule that makes those calls reentrant (G10). A lease
     * from {@link #acquire}, {@link #tryAcquire()}, {@link #acquireAsync} or {@link #callLockedAsync} is
     * an explicit handle bound to no thread, so it does not count, whichever thread took it: ask the
     * lease ({@link Lease#isValid()}). Kotlin's {@code withLock} holds by coroutine, not thread: ask
     * {@code isHeldInCurrentCoroutine()} there.
     *
     * <p><b>Held means valid</b>: inside a body whose lease was lost (or released by hand) this is
     * false, though the body still runs. Whether anyone holds the lock at all is {@link #isLocked()}.
     */
    boolean isHeldByCurrentThread();

    /**
     * How many calls of the current thread hold this lock: 0 outside any, 1 in the outermost blocking
     * {@link #callLocked}/{@link #runLocked}/{@link #callWithLease}/{@link #runWithLease} of this lock,
     * and one more for each reentrant call nested in it (through this handle or an equal one). Like
     * {@code ReentrantLock}'s {@code getHoldCount}; no Redis call, never throws.
     *
     * <p>The same owner and rules as {@link #isHeldByCurrentThread()}: leases from {@code acquire*} and
     * {@code callLockedAsync} do not count, and a lost or released lease counts 0. A nested call that
     * had to acquire afresh (its outer lease was released by hand) counts from 1 again.
     */
    int holdCount();

    /** Whether anyone holds the lock right now, as Redis sees it. */
    boolean isLocked();

    /** The current holder's fencing token and remaining TTL, if the lock is held. */
    Optional<LockInfo> inspect();

    /**
     * Deletes the lock whoever holds it and wakes waiters: an operator's tool. The holder's lease
     * is signalled {@link LeaseLoss.Reason#STOLEN} at its next renewal.
     *
     * @return true if a lock was deleted
     */
    boolean forceRelease();
}
