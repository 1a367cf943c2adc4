package io.leasehold.lock

import java.util.concurrent.CompletableFuture
import kotlin.coroutines.cancellation.CancellationException
import kotlinx.coroutines.currentCoroutineContext
import kotlinx.coroutines.ensureActive
import kotlinx.coroutines.future.await
import kotlinx.coroutines.isActive

/**
 * Awaits a future that *starts* something (an acquisition): cancelling the caller cancels the
 * future, which tells the engine to abandon the wait and clean up. A caller cancelled before this
 * returns never receives the value: [abandoned] gets it instead, and the caller its
 * [CancellationException].
 *
 * Two races are left for us to close:
 * - the future completes with a value after the caller was cancelled but before the caller resumed
 *   (a resumed-but-not-yet-dispatched continuation still throws [CancellationException]). kotlinx's
 *   `await` cancels the future synchronously in its cancellation handler, so by the time we catch,
 *   the future is either cancelled or already done: checking it there cannot race a later
 *   completion.
 * - the caller was cancelled while the future ran, and the future was done by the time the caller
 *   came to await it: kotlinx's `await` then returns the value without looking at the caller's job.
 */
internal suspend fun <T> CompletableFuture<T>.awaitOrAbandon(abandoned: (T) -> Unit): T {
    val value = try {
        await()
    } catch (e: CancellationException) {
        if (isDone && !isCompletedExceptionally) {
            abandoned(join())
        }
        throw e
    }
    val context = currentCoroutineContext()
    if (!context.isActive) {
        abandoned(value)
        context.ensureActive()
    }
    return value
}

/**
 * Awaits a future without ever cancelling it: for signals other code also watches
 * ([Lease.lost]) and for operations that must not be torn in half (release, extend). Cancelling
 * the caller stops the wait; the future and the operation behind it carry on.
 */
internal suspend fun <T> CompletableFuture<T>.awaitWithoutCancelling(): T = copy().await()
