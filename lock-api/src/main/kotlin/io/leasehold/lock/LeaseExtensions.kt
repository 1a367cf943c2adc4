@file:JvmName("LeaseExtensionsKt")

package io.leasehold.lock

import kotlin.coroutines.resume
import kotlin.time.Duration
import kotlin.time.toJavaDuration
import kotlinx.coroutines.suspendCancellableCoroutine

// Kotlin coroutine API of Lease. See DistributedLockExtensions.kt for why these names: no Java member
// of Lease may shadow them.

/**
 * Releases the lock if this lease still owns it, suspending instead of blocking. Idempotent.
 * Suspending twin of [Lease.releaseAsync].
 *
 * **Not reentrant, not tied to a coroutine**: any coroutine or thread may release a lease.
 *
 * **Cancellation**: cancelling the caller stops the wait, not the release: it has been sent and
 * completes in the background (a half-done release would leave the lock to expire).
 *
 * Prefer [withLock], which releases for you on every path.
 *
 * @return true if this call deleted the lock in Redis; false if the lease was already released or
 *   lost, or Redis no longer had the lock for this owner
 * @throws LockBackendException if Redis could not be reached; renewal has stopped and the lock
 *   expires after its lease time
 */
public suspend fun Lease.awaitRelease(): Boolean = releaseAsync().awaitWithoutCancelling()

/**
 * Sets this lease's remaining time in Redis to [leaseTime] from now, suspending instead of
 * blocking. Suspending twin of [Lease.extendAsync]. With auto-renew on, later renewals go back to
 * the lock's lease time.
 *
 * **Cancellation**: cancelling the caller stops the wait, not the extension, which completes (or
 * fails) in the background.
 *
 * Prefer [withLock] with auto-renew over extending by hand.
 *
 * @throws IllegalArgumentException if [leaseTime] is not positive or too long (the Java API's message)
 * @throws IllegalStateException if the lease was released
 * @throws LeaseLostException if the lease was lost, or Redis no longer has it for this owner
 * @throws LockBackendException if Redis could not be reached
 */
public suspend fun Lease.awaitExtend(leaseTime: Duration) {
    extendAsync(leaseTime.toJavaDuration()).awaitWithoutCancelling()
}

/**
 * Suspends until this lease is lost and returns why; never resumes on a normal release (so wrap it
 * in a coroutine you cancel, or a `select`). Suspending twin of [Lease.lost].
 *
 * **Cancellation**: cancelling the caller only stops this wait; [Lease.lost] stays untouched for
 * everyone else watching it.
 *
 * Prefer [withLock], which cancels its block on loss and throws [LeaseLostException] for you.
 */
public suspend fun Lease.awaitLoss(): LeaseLoss = suspendCancellableCoroutine { continuation ->
    // A removable watcher, not a dependent of lost(): a coroutine that waits and is cancelled, over and
    // over, leaves nothing attached to a long-held lease.
    val watch = LeaseSignals.watchLoss(this) { loss -> continuation.resume(loss) }
    continuation.invokeOnCancellation { watch.close() }
}

/**
 * [Lease.extend] taking a [kotlin.time.Duration]: blocks the calling thread. In a coroutine use
 * [awaitExtend]. Prefer [withLock] with auto-renew over extending by hand.
 *
 * @throws IllegalArgumentException if [leaseTime] is not positive or too long (the Java API's message)
 * @throws IllegalStateException if the lease was released
 * @throws LeaseLostException if the lease was lost, or Redis no longer has it for this owner
 * @throws LockBackendException if Redis could not be reached
 */
public fun Lease.extend(leaseTime: Duration): Unit = extend(leaseTime.toJavaDuration())
