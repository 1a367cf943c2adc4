package io.leasehold.lock.spring

import io.leasehold.lock.DistributedLock
import io.leasehold.lock.Lease
import io.leasehold.lock.LockTimeoutException
import io.leasehold.lock.holdCountInCurrentCoroutine
import io.leasehold.lock.spi.EngineLease
import io.leasehold.lock.withLock
import kotlin.coroutines.AbstractCoroutineContextElement
import kotlin.coroutines.Continuation
import kotlin.coroutines.ContinuationInterceptor
import kotlin.coroutines.CoroutineContext
import kotlin.coroutines.cancellation.CancellationException
import kotlin.coroutines.intrinsics.startCoroutineUninterceptedOrReturn
import kotlin.coroutines.intrinsics.suspendCoroutineUninterceptedOrReturn
import kotlin.time.toKotlinDuration
import kotlinx.coroutines.CoroutineDispatcher
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.ThreadContextElement
import kotlinx.coroutines.currentCoroutineContext
import kotlinx.coroutines.withContext
import org.aopalliance.intercept.MethodInvocation
import org.springframework.aop.ProxyMethodInvocation
import org.springframework.aop.support.AopUtils
import org.springframework.util.ClassUtils

/**
 * Runs a [Locked] Kotlin `suspend` function inside [withLock], so that the lock is held from before
 * the function starts until after it completes, across its suspensions and whatever threads it resumes
 * on; [withLock] brings the rest: cancellable waiting, release under `NonCancellable`, reentrancy by
 * coroutine context, and a lost lease cancelling the function and ending the call with
 * [io.leasehold.lock.LeaseLostException].
 *
 * Spring's proxy calls a suspend function in one of two ways, and the lock follows it:
 * - **directly** (kotlinx-coroutines-reactor absent): the proxy passes the caller's continuation as the
 *   last argument and returns the function's result or `COROUTINE_SUSPENDED`. The locked call is then
 *   itself a suspend call: a coroutine body started on the caller's continuation (as a suspend function
 *   called from the caller would run), which calls the function with its own continuation in place of
 *   the caller's.
 * - **through Reactor** (kotlinx-coroutines-reactor present, as `AopUtils` decides): the call down the
 *   interceptor chain returns a `Mono` that runs the function when subscribed, and the proxy awaits
 *   whatever this interceptor returns with the caller's continuation. The locked call is then a `Mono`
 *   ([ReactorLockedCall]) that awaits the function's `Mono` inside [withLock].
 *
 * Where the caller's coroutine has no dispatcher, or one that runs continuations on whatever thread
 * resumes them (`Dispatchers.Unconfined`, as Spring WebFlux calls controllers), the locked call runs on
 * `Dispatchers.Default`: otherwise the function would resume on Leasehold's own threads (which complete
 * the acquisition) and could delay other leases' signals.
 *
 * This class is stateless and threadsafe.
 */
internal class KotlinSuspendingLockedCall : SuspendingLockedCall {

    override fun call(
        invocation: MethodInvocation,
        lock: DistributedLock,
        wait: java.time.Duration,
        skipWhenBusy: Boolean,
        skipped: Any?,
    ): Any? {
        val arguments = invocation.arguments
        @Suppress("UNCHECKED_CAST")
        val caller = arguments[arguments.size - 1] as Continuation<Any?>
        val call = LockedCall(proxied(invocation), lock, wait, skipWhenBusy, skipped)
        if (THROUGH_REACTOR) {
            return ReactorLockedCall.mono(call, caller.context)
        }
        val body: suspend () -> Any? = { call.run(call::proceedDirectly) }
        return body.startCoroutineUninterceptedOrReturn(caller)
    }

    private fun proxied(invocation: MethodInvocation): ProxyMethodInvocation =
        invocation as? ProxyMethodInvocation
            ?: throw IllegalStateException(
                "@Locked on the suspend function ${invocation.method} needs Spring's proxy invocation" +
                    " (ProxyMethodInvocation), but was called through ${invocation.javaClass.name}",
            )

    private companion object {
        /** Whether Spring's proxies call suspend functions through Reactor: `AopUtils`' own test. */
        val THROUGH_REACTOR: Boolean =
            ClassUtils.isPresent("kotlinx.coroutines.reactor.MonoKt", AopUtils::class.java.classLoader)
    }
}

/** One call of a [Locked] suspend function: the lock around it and the call down the proxy's chain. */
internal class LockedCall(
    private val invocation: ProxyMethodInvocation,
    private val lock: DistributedLock,
    private val wait: java.time.Duration,
    private val skipWhenBusy: Boolean,
    private val skipped: Any?,
) {
    /**
     * Runs [proceed] under the lock; what it returns or throws is the call's, carried out of the
     * lease's context as a value (an exception thrown out of `withContext` may otherwise reach the caller
     * as a stack-trace-recovery copy). A caller cancelled after the lock was taken but before the function
     * started (`withContext` refuses to enter a cancelled job) gets its lease released as unused, as
     * [withLock] does before its block: no work ran, so no [Locked.minHoldTime] is kept. Not a nested
     * call's: it runs under the outer call's lease.
     */
    suspend fun run(proceed: suspend () -> Any?): Any? {
        var started = false
        try {
            return offLeaseholdThreads {
                lock.withLock(wait.toKotlinDuration()) { lease ->
                    started = true
                    var proceeded = false
                    try {
                        withContext(LockedLeaseElement(lease)) {
                            proceeded = true
                            try {
                                Result.success(proceed())
                            } catch (cancelled: CancellationException) {
                                throw cancelled
                            } catch (failed: Throwable) {
                                Result.failure(failed)
                            }
                        }.getOrThrow()
                    } catch (cancelled: CancellationException) {
                        // Only a lease this call acquired: a nested call of the same lock runs under the
                        // outer call's lease, which the outer function still works under.
                        if (!proceeded && lock.holdCountInCurrentCoroutine() == 1) {
                            releaseUnused(lease) // withLock's own release then finds it ended
                        }
                        throw cancelled
                    }
                }
            }
        } catch (busy: LockTimeoutException) {
            if (!started && skipWhenBusy) {
                return skipped
            }
            throw busy
        }
    }

    /**
     * The function called directly, as a suspend call: its continuation is this coroutine's, so the
     * function resumes it when it completes, and runs in its context (the lease's, and the job that a
     * lost lease cancels).
     */
    suspend fun proceedDirectly(): Any? = suspendCoroutineUninterceptedOrReturn { continuation ->
        proceedWith(continuation)
    }

    /**
     * Calls down the proxy's chain with [continuation] as the function's last argument, and returns what
     * the chain returns (the function's result or `COROUTINE_SUSPENDED`, or through Reactor a `Mono`). The
     * arguments go in a new array: the proxy keeps the caller's own, whose continuation it awaits with.
     */
    fun proceedWith(continuation: Continuation<*>): Any? {
        val arguments = invocation.arguments.copyOf()
        arguments[arguments.size - 1] = continuation
        invocation.setArguments(*arguments)
        return invocation.proceed()
    }

    /** Releases [lease] at once, whatever its min-hold time: the engine's own leases know how. */
    private fun releaseUnused(lease: Lease) {
        if (lease is EngineLease) lease.releaseUnused() else lease.releaseAsync()
    }

    private suspend fun <T> offLeaseholdThreads(block: suspend () -> T): T {
        val context = currentCoroutineContext()
        val interceptor = context[ContinuationInterceptor]
        val confined = interceptor != null &&
            (interceptor !is CoroutineDispatcher || interceptor.isDispatchNeeded(context))
        return if (confined) block() else withContext(Dispatchers.Default) { block() }
    }
}

/**
 * Makes [lease] [LockedLease.current] on every thread the coroutine runs on, for as long as it runs
 * there: set when the coroutine starts or resumes on a thread, unset when it suspends or ends. A
 * coroutine launched inside inherits it.
 */
internal class LockedLeaseElement(private val lease: Lease) :
    AbstractCoroutineContextElement(Key),
    ThreadContextElement<Unit> {

    companion object Key : CoroutineContext.Key<LockedLeaseElement>

    override fun updateThreadContext(context: CoroutineContext) {
        LockedLease.enter(lease)
    }

    override fun restoreThreadContext(context: CoroutineContext, oldState: Unit) {
        LockedLease.leave()
    }

    override fun toString(): String = "LockedLease(${lease.lockName()}, token ${lease.fencingToken()})"
}

/**
 * A continuation that only carries a context: what the function's `Mono` is made with, where Spring
 * calls the function through Reactor. Spring reads its context and never resumes it.
 */
internal class ContextOnly(override val context: CoroutineContext) : Continuation<Any?> {
    override fun resumeWith(result: Result<Any?>) {
        throw IllegalStateException("a @Locked suspend function called through Reactor resumed no continuation")
    }
}
