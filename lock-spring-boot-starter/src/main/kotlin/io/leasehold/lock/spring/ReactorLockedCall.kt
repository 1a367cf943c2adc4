package io.leasehold.lock.spring

import java.util.concurrent.atomic.AtomicReference
import kotlin.coroutines.AbstractCoroutineContextElement
import kotlin.coroutines.CoroutineContext
import kotlin.coroutines.cancellation.CancellationException
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.Job
import kotlinx.coroutines.NonCancellable
import kotlinx.coroutines.ThreadContextElement
import kotlinx.coroutines.currentCoroutineContext
import kotlinx.coroutines.reactor.mono
import kotlinx.coroutines.withContext
import org.reactivestreams.Publisher
import reactor.core.publisher.Mono

/**
 * A [Locked] suspend function where Spring calls suspend functions through Reactor
 * (kotlinx-coroutines-reactor on the class path): the call down the proxy's chain returns a `Mono` that
 * runs the function in a coroutine of its own when subscribed, and the proxy awaits the `Mono` returned
 * here with the caller's continuation. Only loaded where kotlinx-coroutines-reactor is present.
 */
internal object ReactorLockedCall {

    /**
     * A `Mono` that, when subscribed, takes the lock, awaits the function's own `Mono` (made with this
     * coroutine's context: the lease's, seen by a nested `@Locked` or `withLock`) and releases the lock.
     * Cancelling the subscription (the caller was cancelled) cancels the wait or the function, and
     * releases the lock once the function's coroutine has ended.
     */
    fun mono(call: LockedCall, callerContext: CoroutineContext): Mono<Any> =
        mono(callerContext.minusKey(Job)) { call.run { awaitFunction(call) } }

    /**
     * Subscribes to the function's `Mono` and awaits its result. If this coroutine is cancelled meanwhile
     * (its lease was lost, or the caller was cancelled), the function's coroutine is cancelled too, and
     * awaited: Spring makes it without a parent job, so without that wait the lock would be released while
     * the function still ran its `finally` blocks.
     */
    private suspend fun awaitFunction(call: LockedCall): Any? {
        val start = FunctionStart()
        // Spring makes the function's Mono with this continuation's context, minus its job
        val function = Mono.from(call.proceedWith(ContextOnly(currentCoroutineContext() + start)) as Publisher<*>)
        val result = CompletableDeferred<Any?>()
        val subscription = function.subscribe(
            { value -> result.complete(value) },
            { failure -> result.completeExceptionally(failure) },
            { result.complete(null) },
        )
        try {
            return result.await()
        } catch (cancelled: CancellationException) {
            subscription.dispose() // cancels the function's coroutine, which then ends without a signal
            start.startedJob()?.let { running -> withContext(NonCancellable) { running.join() } }
            throw cancelled
        }
    }
}

/**
 * Catches the job of the function's coroutine (Spring's, made with a context holding this element) when
 * that coroutine first runs on a thread; [startedJob] tells whether it ran, and closes the gate otherwise.
 */
internal class FunctionStart :
    AbstractCoroutineContextElement(Key),
    ThreadContextElement<Unit> {

    companion object Key : CoroutineContext.Key<FunctionStart> {
        private val CLOSED = Any()
    }

    private val job = AtomicReference<Any?>(null)

    override fun updateThreadContext(context: CoroutineContext) {
        if (job.get() == null) {
            job.compareAndSet(null, context[Job] ?: CLOSED)
        }
    }

    override fun restoreThreadContext(context: CoroutineContext, oldState: Unit) {}

    /**
     * The job of the function's coroutine if it has begun to run; null if it has not, and then it never
     * will: called after the coroutine was cancelled, and a coroutine that first runs after its cancellation
     * finds itself cancelled (it checks after this element has seen it) and does not run the function.
     */
    fun startedJob(): Job? = if (job.compareAndSet(null, CLOSED)) null else job.get() as? Job
}
