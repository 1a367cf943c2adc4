@file:JvmName("DistributedLockExtensionsKt")

package io.leasehold.lock

import java.util.concurrent.atomic.AtomicReference
import kotlin.coroutines.cancellation.CancellationException
import kotlin.time.Duration
import kotlin.time.toJavaDuration
import kotlin.time.toKotlinDuration
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.NonCancellable
import kotlinx.coroutines.cancelChildren
import kotlinx.coroutines.currentCoroutineContext
import kotlinx.coroutines.isActive
import kotlinx.coroutines.job
import kotlinx.coroutines.withContext

// Kotlin coroutine API of DistributedLock.
//
// Names are chosen so that no Java member of DistributedLock shadows them: a Java member with the same
// name and an applicable signature wins over an extension, and a Kotlin lambda SAM-converts to
// Callable/Runnable, so e.g. a Kotlin `callLocked(wait) { }` would silently call the blocking Java
// method. Hence `withLock` and `await*`, and overloads only where the parameter type
// (kotlin.time.Duration) makes the Java member inapplicable.

/**
 * Acquires this lock, runs [block] with the [Lease] and releases the lock, suspending (not
 * blocking) while it waits.
 *
 * **Reentrant within the coroutine that holds the lock and its children**: a `withLock` on an equal
 * lock (same client, same name) inside [block], or inside a coroutine launched from [block], reuses
 * the held lease without any Redis call and ignores its own [wait]; only the outermost `withLock`
 * releases. A sibling coroutine launched outside [block] does not share the lease and waits like any
 * other contender. Reentrancy is carried by the coroutine context, never by thread: the block may
 * resume on any thread. Reentering a lock whose held lease was lost throws [LeaseLostException] at
 * once; reentering one whose lease the block released by hand acquires it afresh. Whether the
 * current coroutine holds the lock, and how many blocks deep, is [isHeldInCurrentCoroutine] and
 * [holdCountInCurrentCoroutine].
 *
 * **Owner**: the lease, one fresh random owner value in Redis per acquisition, not a thread or a
 * coroutine.
 *
 * **Fairness**: waiters of one [LockClient] queue first-in first-out per lock name; across clients,
 * as [DistributedLock] documents (each client's head waiter queues in Redis, and another client's
 * queued waiter gets the lock within 8 local handoffs; strict order across clients with
 * [LockClient.fairLock]).
 *
 * **Cancellation**: the wait is cancellable; if the caller is cancelled while waiting, the
 * acquisition is abandoned and nothing stays locked (if the acquire reached Redis anyway, the engine
 * releases it). If cancelled after acquisition, the lock is released before the
 * [CancellationException] propagates; if that was before [block] started, [block] never runs and
 * the lease is released as unused (no [LockOptions.minHoldTime] is kept). The release always runs in a [NonCancellable] context, on
 * normal return, on exceptions and on cancellation. Whatever [block] throws propagates after the
 * release as the very same instance (never a stack-trace-recovery copy); if [block] fails, the
 * coroutines it launched are cancelled, as in `coroutineScope`.
 *
 * **Loss**: [block] runs in a child scope. If the lease is lost while [block] runs (see
 * [LeaseLoss.Reason]), that scope is cancelled (on the client's callback executor, before the engine
 * frees the lock for others), so [block] is cancelled at its next suspension point, and `withLock`
 * throws [LeaseLostException] carrying the [LeaseLoss], not a [CancellationException], because the
 * caller itself was not cancelled. The outcome is decided from the lease's state at the release, never
 * from whether [Lease.lost] has completed yet: a loss declared before the release wins over the
 * block's result or exception (the exception is added as suppressed), exactly as in `callLocked`; the
 * work may have overlapped with another holder, so use [Lease.fencingToken] where it matters. A
 * re-entrant `withLock` on a lease that is lost throws [LeaseLostException] at once. If the caller is
 * cancelled as well, its [CancellationException] propagates.
 *
 * **Release not confirmed**: if Redis cannot be reached to release (or answers only after the lease
 * ran out), the block still ended while the lease was valid, so `withLock` returns its result (or
 * throws its exception) as usual; the lock expires after its lease time, and the listeners
 * ([LockEventListener.onReleaseUnconfirmed]) and the log say so. See [ReleaseUnconfirmedException].
 *
 * Prefer this function to [awaitAcquire] plus a manual release: it releases on every path and
 * reacts to loss.
 *
 * @param wait how long to wait for the lock; defaults to the lock's [LockOptions.defaultWait].
 *   Zero makes one attempt.
 * @throws LockTimeoutException if another owner held the lock for the whole wait
 * @throws LockBackendException if Redis failed while acquiring
 * @throws LeaseLostException if the lease was lost while [block] ran, or its release found it taken
 *   by another owner while it was valid
 * @throws IllegalArgumentException if [wait] is negative or longer than a year (the Java API's message)
 */
public suspend fun <T> DistributedLock.withLock(
    wait: Duration = options().defaultWait().toKotlinDuration(),
    block: suspend CoroutineScope.(Lease) -> T,
): T {
    val held = HeldLeases.of(currentCoroutineContext())
    val reentered = held.leaseFor(this)
    if (reentered != null && reentered.state().let { it != LeaseState.RELEASED && it != LeaseState.RELEASING }) {
        // Decided from the lease's state, at once: never from whether lost() has completed yet.
        LeaseSignals.lossIfInvalid(reentered)?.let { throw LeaseLostException(it) }
        // No acquisition, and no release either: the outermost withLock owns the lease.
        return runUnderLease(reentered, held.reentered(this)) { block(it) }.also {
            LeaseSignals.lossIfInvalid(reentered)?.let { throw LeaseLostException(it) }
        }
    }
    // Not held in this coroutine, or released by hand inside the outer block: acquire afresh.
    val lease = awaitAcquire(wait)
    // Never start the block under a lease that was lost on its way here.
    LeaseSignals.lossIfInvalid(lease)?.let { loss ->
        lease.releaseAsync() // a no-op for the engine's own leases, whose loss releases them
        throw LeaseLostException(loss)
    }
    var failure: Throwable? = null
    var started = false
    try {
        return runUnderLease(lease, held.with(this, lease)) {
            started = true
            block(it)
        }
    } catch (e: Throwable) {
        failure = e
        throw e
    } finally {
        if (started) {
            releaseAfterBlock(lease, failure)
        } else {
            // Cancelled between the acquisition and the block: no work ran under the lease, so it is
            // released as unused (no min-hold time is kept), and the CancellationException propagates.
            LeaseSignals.releaseUnused(lease)
        }
    }
}

/**
 * Runs [block] in a child scope carrying [context], and turns a loss of [lease] while it runs into
 * [LeaseLostException].
 *
 * The block's own exception is carried out of the scope as a value, not thrown through it: with
 * kotlinx's stack-trace recovery on (debug mode, `-ea`), an exception thrown out of `withContext`
 * reaches the caller as a copy, and a lock must hand back exactly what its block threw. The block's
 * children are then cancelled by hand, as `coroutineScope` would have done.
 */
private suspend fun <T> runUnderLease(
    lease: Lease,
    context: HeldLeases,
    block: suspend CoroutineScope.(Lease) -> T,
): T {
    val blockFailure = AtomicReference<Throwable?>(null)
    val outcome: Result<T> = try {
        withContext(context) {
            val scopeJob = coroutineContext.job
            // Runs on the client's callback executor (or right here if the loss is already known),
            // before the engine frees the lock for others. The watcher is removed when the block ends,
            // so that many short re-entrant blocks leave nothing attached to a long-held lease.
            val watch = LeaseSignals.watchLoss(lease) { loss -> scopeJob.cancel(LeaseLossCancellation(loss)) }
            try {
                Result.success(block(lease))
            } catch (e: CancellationException) {
                throw e
            } catch (e: Throwable) {
                blockFailure.set(e)
                scopeJob.cancelChildren(CancellationException("the withLock block failed: $e"))
                Result.failure(e)
            } finally {
                watch.close()
            }
        }
    } catch (e: Throwable) {
        val loss = LeaseSignals.lossIfInvalid(lease)
        if (loss == null || !currentCoroutineContext().isActive) {
            throw e
        }
        throw LeaseLostException(loss).also { lost ->
            (blockFailure.get() ?: e.takeUnless { it is CancellationException })?.let(lost::addSuppressed)
        }
    }
    return outcome.getOrThrow()
}

/**
 * Releases under [NonCancellable] and decides the outcome from how the lease ended: a loss (declared
 * while the block ran, or found by the release) wins over the block's result or exception, exactly as
 * in `callLocked`. A release Redis could not confirm is no failure: the block ended while the lease
 * was valid.
 */
private suspend fun releaseAfterBlock(lease: Lease, blockFailure: Throwable?) {
    val ending = LeaseSignals.endAfterWork(lease)
    val loss = withContext(NonCancellable) { ending.awaitWithoutCancelling() } ?: return
    if (blockFailure is LeaseLostException && blockFailure.loss() === loss) {
        return // the block's own LeaseLostException (thrown by runUnderLease) propagates
    }
    if (blockFailure is CancellationException && !currentCoroutineContext().isActive) {
        return // the caller itself was cancelled: its CancellationException propagates
    }
    throw LeaseLostException(loss).also { lost -> blockFailure?.let(lost::addSuppressed) }
}

/** The cause with which [withLock] cancels its block when the lease is lost. */
internal class LeaseLossCancellation(val loss: LeaseLoss) :
    CancellationException("lease on lock '${loss.lockName()}' was lost: ${loss.reason()}")

/**
 * Suspends until this lock is acquired and returns the new [Lease]; the caller must release it
 * ([Lease.awaitRelease] or [Lease.close]). Suspending twin of [DistributedLock.acquireAsync].
 *
 * **Not reentrant**: every call makes a new acquisition, so calling it while this coroutine already
 * holds the lock waits like any other contender (and, with no other release in sight, times out with
 * a [LockTimeoutException] whose [LockTimeoutException.heldByCaller] is true).
 *
 * **Cancellation**: cancelling the caller before this returns cancels the acquisition and leaves
 * nothing locked: if the acquire reached Redis anyway, or its lease arrived just as the caller was
 * cancelled (or before it came to wait), the lease is released as unused (no
 * [LockOptions.minHoldTime] is kept) and the caller gets its [CancellationException], never the
 * lease.
 *
 * Prefer [withLock]: it releases on every path and reacts to loss.
 *
 * @param wait how long to wait; defaults to the lock's [LockOptions.defaultWait]. Zero makes one attempt.
 * @throws LockTimeoutException if another owner held the lock for the whole wait
 * @throws LockBackendException if Redis failed
 */
public suspend fun DistributedLock.awaitAcquire(
    wait: Duration = options().defaultWait().toKotlinDuration(),
): Lease =
    try {
        acquireAsync(wait.toJavaDuration()).awaitOrAbandon { lease -> LeaseSignals.releaseUnused(lease) }
    } catch (contended: LockTimeoutException) {
        throw blamingReentry(contended)
    }

/**
 * [contended], or one that says the caller re-entered (G10) if this coroutine holds this lock in
 * [withLock]: the engine cannot tell, since coroutine reentrancy lives in the coroutine context.
 */
private suspend fun DistributedLock.blamingReentry(contended: LockTimeoutException): LockTimeoutException {
    val ownLease = HeldLeases.of(currentCoroutineContext()).leaseFor(this)
    if (contended.heldByCaller() || ownLease == null || !ownLease.isValid()) {
        return contended
    }
    return LockTimeoutException(contended.lockName(), contended.waited(), true, true)
}

/**
 * Suspends up to [wait] for this lock and returns the new [Lease], or `null` if another owner held
 * it for the whole wait. Suspending twin of [DistributedLock.tryAcquireAsync], returning `null`
 * rather than an empty `Optional`.
 *
 * **Not reentrant**, cancellable like [awaitAcquire]. Prefer [withLock].
 *
 * @param wait how long to wait; zero (the default) makes one attempt.
 * @throws LockBackendException if Redis failed (never for a merely contended lock)
 */
public suspend fun DistributedLock.awaitTryAcquire(wait: Duration = Duration.ZERO): Lease? =
    tryAcquireAsync(wait.toJavaDuration())
        .awaitOrAbandon { maybeLease -> maybeLease.ifPresent { LeaseSignals.releaseUnused(it) } }
        .orElse(null)

/**
 * Blocks the calling thread up to [wait] for this lock: [DistributedLock.acquire] taking a
 * [kotlin.time.Duration]. In a coroutine use [awaitAcquire] instead, or better [withLock].
 *
 * **Not reentrant.**
 *
 * @throws LockTimeoutException if another owner held the lock for the whole wait
 * @throws LockBackendException if Redis failed
 * @throws LockInterruptedException if the thread was interrupted while waiting
 */
public fun DistributedLock.acquire(wait: Duration): Lease = acquire(wait.toJavaDuration())

/**
 * Blocks the calling thread up to [wait] for this lock, returning `null` if another owner held it
 * for the whole wait: [DistributedLock.tryAcquire] taking a [kotlin.time.Duration].
 *
 * Unlike the Java overload taking a `java.time.Duration`, which returns `Optional<Lease>`, this one
 * returns `Lease?`, the Kotlin way (as [awaitTryAcquire] does); the parameter type alone picks the
 * overload. In a coroutine use [awaitTryAcquire] instead, or better [withLock].
 *
 * **Not reentrant.**
 *
 * @throws LockBackendException if Redis failed
 * @throws LockInterruptedException if the thread was interrupted while waiting
 */
public fun DistributedLock.tryAcquire(wait: Duration): Lease? = tryAcquire(wait.toJavaDuration()).orElse(null)

/**
 * Whether the current coroutine holds this lock: it runs inside a [withLock] block of this lock
 * (through this handle or an equal one), or in a coroutine launched from such a block, and that
 * block's lease is still valid. The coroutine twin of [DistributedLock.isHeldByCurrentThread]; no
 * Redis call, never throws, never suspends (it only reads the coroutine context).
 *
 * **Owner**: the coroutine that holds the lock in [withLock] and its children, by the same rule that
 * makes [withLock] reentrant (G10); never a thread. A sibling coroutine launched outside the block
 * does not hold it. A lease from [awaitAcquire] or [awaitTryAcquire] is an explicit handle bound to
 * no coroutine, so it does not count: ask the lease ([Lease.isValid]). Conversely,
 * [DistributedLock.isHeldByCurrentThread] is false inside [withLock]: a coroutine may resume on any
 * thread.
 *
 * **Held means valid**: inside a block whose lease was lost (the block is being cancelled) or
 * released by hand, this is false.
 */
public suspend fun DistributedLock.isHeldInCurrentCoroutine(): Boolean = holdCountInCurrentCoroutine() > 0

/**
 * How many [withLock] blocks of this lock hold it for the current coroutine: 0 outside any, 1 in the
 * outermost, and one more for each reentrant [withLock] of this lock (or an equal handle) nested in
 * it. A coroutine launched from a block counts the blocks it was launched in. The coroutine twin of
 * [DistributedLock.holdCount]; no Redis call, never throws, never suspends.
 *
 * The same owner and rules as [isHeldInCurrentCoroutine]: leases from [awaitAcquire] do not count,
 * and a lost or released lease counts 0. A nested [withLock] that had to acquire afresh (its outer
 * lease was released by hand) counts from 1 again.
 */
public suspend fun DistributedLock.holdCountInCurrentCoroutine(): Int {
    val held = HeldLeases.of(currentCoroutineContext())
    val lease = held.leaseFor(this)
    return if (lease != null && lease.isValid()) held.depthOf(this) else 0
}

