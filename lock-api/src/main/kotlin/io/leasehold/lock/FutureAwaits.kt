package io.leasehold.lock

import java.util.concurrent.CompletableFuture
import kotlin.coroutines.cancellation.CancellationException
import kotlinx.coroutines.future.await

/**
 * Awaits a future that *starts* something (an acquisition): cancelling the caller cancels the
 * future, which tells the engine to abandon the wait and clean up.
 *
 * One race is left for us to close: the future may complete with a value after the caller was
 * cancelled but before the caller resumed (a resumed-but-not-yet-dispatched continuation still
 * throws [CancellationException]). The engine has then handed over a lease nobody will ever see,
 * so [abandoned] gets it. kotlinx's `await` cancels the future synchronously in its cancellation
 * handler, so by the time we catch, the future is either cancelled or already done: checking it
 * here cannot race a later completion.
 */
internal suspend fun <T> CompletableFuture<T>.awaitOrAbandon(abandoned: (T) -> Unit): T {
    try {
        return await()
    } catch (e: CancellationException) {
        if (isDone && !isCompletedExceptionally) {
            abandoned(join())
        }
        throw e
    }
}

/**
 * Awaits a future without ever cancelling it: for signals other code also watches
 * ([Lease.lost]) and for operations that must not be torn in half (release, extend). Cancelling
 * the caller stops the wait; the future and the operation behind it carry on.
 */
internal suspend fun <T> CompletableFuture<T>.awaitWithoutCancelling(): T = copy().await()
