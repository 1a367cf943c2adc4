package io.leasehold.lock.spring

import io.leasehold.lock.LeaseLostException
import io.leasehold.lock.LockClient
import io.leasehold.lock.LockTimeoutException
import io.leasehold.lock.spring.boot.LeaseholdAutoConfiguration
import io.leasehold.lock.spring.boot.LeaseholdLockedAutoConfiguration
import java.io.IOException
import java.time.Duration
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.CopyOnWriteArrayList
import java.util.concurrent.atomic.AtomicInteger
import kotlin.coroutines.AbstractCoroutineContextElement
import kotlin.coroutines.CoroutineContext
import kotlin.coroutines.cancellation.CancellationException
import kotlin.time.Duration.Companion.seconds
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.CoroutineStart
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.Job
import kotlinx.coroutines.ThreadContextElement
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitCancellation
import kotlinx.coroutines.coroutineScope
import kotlinx.coroutines.delay
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.flowOf
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext
import kotlinx.coroutines.withTimeout
import kotlinx.coroutines.yield
import org.assertj.core.api.Assertions.assertThat
import org.assertj.core.api.Assertions.assertThatThrownBy
import org.junit.jupiter.api.Test
import org.springframework.boot.autoconfigure.AutoConfigurations
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration
import org.springframework.boot.test.context.runner.ApplicationContextRunner
import org.springframework.context.annotation.Bean
import org.springframework.context.annotation.Configuration
import org.springframework.util.ClassUtils

/**
 * [Locked] on Kotlin `suspend` functions, on a real `redis-server`: the lock is held for the whole
 * function (across its suspensions and thread switches), waiting, skipping, reentrancy, the lease in
 * the function, a lost lease cancelling it, and a cancelled caller releasing the lock.
 *
 * Runs twice: in the normal run Spring calls suspend functions through Reactor
 * (kotlinx-coroutines-reactor is on the test class path); the surefire execution
 * `without-coroutines-reactor` runs it again without that jar, where Spring calls them directly.
 */
class LockedSuspendFunctionsTest : OnRealRedis() {

    /** What the locked functions saw; a bean of its own (a proxied bean's own fields are the proxy's). */
    class Seen {
        val running = AtomicInteger()
        val maxRunning = AtomicInteger()
        val completed = AtomicInteger()
        val threads: MutableSet<String> = ConcurrentHashMap.newKeySet()
        val wrongLease = CopyOnWriteArrayList<String>()
        val ran = CopyOnWriteArrayList<String>()
        val started = CompletableDeferred<Unit>()
        val cancelled = CompletableDeferred<Throwable>()

        fun onThread() {
            threads += Thread.currentThread().name
        }
    }

    open class Stock(private val seen: Seen) {

        /**
         * Suspends four times, on other dispatchers and in a child coroutine, and checks the lease each time and
         * that no other call runs meanwhile.
         */
        @Locked(name = "stock", key = "#sku", waitTime = "30s")
        open suspend fun restock(sku: String): Long {
            seen.onThread()
            val token = LockedLease.current().fencingToken()
            seen.maxRunning.accumulateAndGet(seen.running.incrementAndGet(), ::maxOf)
            try {
                delay(5)
                checkLease(sku, token)
                withContext(Dispatchers.IO) { checkLease(sku, token) }
                coroutineScope { launch(Dispatchers.IO) { checkLease(sku, token) } } // a child coroutine
                yield()
                checkLease(sku, token)
                if (server.command("EXISTS", "leasehold:{stock:$sku}") != 1L) {
                    seen.wrongLease += "no lock in Redis while the function ran"
                }
                return token
            } finally {
                seen.running.decrementAndGet()
                seen.completed.incrementAndGet()
            }
        }

        private fun checkLease(sku: String, token: Long) {
            seen.onThread()
            val lease = LockedLease.find().orElse(null)
            if (lease == null || lease.lockName() != "stock:$sku" || lease.fencingToken() != token) {
                seen.wrongLease += "on ${Thread.currentThread().name}: $lease"
            }
        }

        @Locked(name = "stock", key = "#sku", fair = true, waitTime = "30s")
        open suspend fun restockInLine(sku: String) {
            seen.maxRunning.accumulateAndGet(seen.running.incrementAndGet(), ::maxOf)
            try {
                delay(5)
            } finally {
                seen.running.decrementAndGet()
                seen.completed.incrementAndGet()
            }
        }

        @Locked(name = "stock", key = "#sku")
        open suspend fun outer(sku: String, self: Stock): String {
            val outer = LockedLease.current()
            delay(1)
            val inner = self.inner(sku)
            return if (inner == outer.fencingToken()) "reused the outer lease" else "took another lease"
        }

        @Locked(name = "stock", key = "#sku", waitTime = "0s")
        open suspend fun inner(sku: String): Long {
            delay(1)
            return LockedLease.current().fencingToken()
        }

        @Locked(name = "stock", key = "#sku", waitTime = "0s", onBusy = Locked.OnBusy.SKIP)
        open suspend fun restockIfFree(sku: String): String? {
            seen.ran += "restockIfFree $sku"
            delay(1)
            return "restocked $sku"
        }

        @Locked(name = "stock", key = "#sku", waitTime = "200ms")
        open suspend fun restockWithin200ms(sku: String) {
            seen.ran += "restockWithin200ms $sku"
        }

        /** Runs until cancelled (a lost lease or a cancelled caller); renewed every 100 ms. */
        @Locked(name = "stock", key = "#sku", leaseTime = "300ms", waitTime = "30s")
        open suspend fun countUntilCancelled(sku: String) {
            seen.ran += "countUntilCancelled $sku"
            seen.started.complete(Unit)
            try {
                awaitCancellation()
            } catch (e: CancellationException) {
                seen.cancelled.complete(e)
                throw e
            }
        }

        /** Keeps its lock ten minutes after it ran: a lease ended as worked under stays in Redis. */
        @Locked(name = "stock", key = "#sku", minHoldTime = "10m")
        open suspend fun restockAndHold(sku: String) {
            seen.ran += "restockAndHold $sku"
        }

        /**
         * (attack h60) Holds the lock while a child coroutine's nested (reentrant) call of the same lock is
         * cancelled as that call is about to start; then records whether its own lock is still in Redis.
         */
        @Locked(name = "stock", key = "#sku")
        open suspend fun outerWhileANestedCallIsCancelled(sku: String, self: Stock): Boolean {
            val canceller = CancelAsTheLeaseIsReentered()
            coroutineScope { launch(canceller) { self.inner(sku) }.join() }
            seen.ran += "nested call cancelled: ${canceller.cancelled}"
            seen.ran += "outer lock in Redis after it: ${server.command("EXISTS", "leasehold:{stock:$sku}")}"
            return canceller.cancelled
        }

        /**
         * (attack h61) Holds its lock while a child coroutine's nested call of ANOTHER lock (stock:<other>,
         * ten minutes of hold) is cancelled as that call is about to start; then records whether each lock
         * is in Redis.
         */
        @Locked(name = "stock", key = "#sku")
        open suspend fun outerWhileANestedCallOfAnotherLockIsCancelled(sku: String, other: String, self: Stock): Boolean {
            val canceller = CancelAsTheLeaseIsReentered()
            coroutineScope { launch(canceller) { self.restockAndHold(other) }.join() }
            seen.ran += "outer lock in Redis after it: ${server.command("EXISTS", "leasehold:{stock:$sku}")}"
            seen.ran += "other lock in Redis after it: ${server.command("EXISTS", "leasehold:{stock:$other}")}"
            return canceller.cancelled
        }

        /** (attack h60) Keeps ten minutes of hold; runs until cancelled. */
        @Locked(name = "stock", key = "#sku", minHoldTime = "10m")
        open suspend fun holdTenMinutesUntilCancelled(sku: String) {
            seen.started.complete(Unit)
            awaitCancellation()
        }

        @Locked(name = "stock", key = "#sku")
        open suspend fun changes(sku: String): Flow<String> = flowOf(sku)

        @Locked(name = "stock", key = "#sku")
        open suspend fun failAfterSuspending(sku: String, failure: Exception): String {
            delay(1)
            throw failure
        }
    }

    @Configuration(proxyBeanMethods = false)
    open class Beans {
        @Bean
        open fun seen() = Seen()

        @Bean
        open fun stock(seen: Seen) = Stock(seen)
    }

    private fun app(): ApplicationContextRunner = ApplicationContextRunner()
        .withConfiguration(
            AutoConfigurations.of(
                DataRedisAutoConfiguration::class.java,
                LeaseholdAutoConfiguration::class.java,
                LeaseholdLockedAutoConfiguration::class.java,
            ),
        )
        .withPropertyValues("spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port())
        .withUserConfiguration(Beans::class.java)

    @Test
    fun shouldCallThroughReactorOrDirectlyAsTheClassPathSays() {
        val expected = System.getProperty("leasehold.test.coroutines-reactor") != "absent"
        assertThat(ClassUtils.isPresent("kotlinx.coroutines.reactor.MonoKt", javaClass.classLoader))
            .`as`("kotlinx-coroutines-reactor on the class path")
            .isEqualTo(expected)
    }

    @Test
    fun shouldHoldTheLockForTheWholeFunctionAcrossItsSuspensionsAndThreads() {
        app().run { context ->
            val stock = context.getBean(Stock::class.java)
            val seen = context.getBean(Seen::class.java)
            val calls = 8

            val tokens = runBlocking {
                (1..calls).map { i ->
                    // half of the callers on a dispatcher that resumes on any thread: the calls must still not run
                    // on Leasehold's threads
                    async(if (i % 2 == 0) Dispatchers.Default else Dispatchers.Unconfined) { stock.restock("socks") }
                }.map { it.await() }
            }

            assertThat(seen.maxRunning.get()).`as`("calls running at once").isEqualTo(1)
            assertThat(seen.completed.get()).isEqualTo(calls)
            assertThat(tokens).doesNotHaveDuplicates()
            assertThat(seen.wrongLease).isEmpty()
            assertThat(seen.threads).noneMatch { it.startsWith("leasehold") || it.startsWith("lettuce") }
            assertThat(server.command("EXISTS", "leasehold:{stock:socks}")).`as`("released").isEqualTo(0L)
        }
    }

    @Test
    fun shouldWaitInLineForAFairLock() {
        app().run { context ->
            val stock = context.getBean(Stock::class.java)
            val seen = context.getBean(Seen::class.java)

            runBlocking { (1..4).map { async(Dispatchers.Default) { stock.restockInLine("boots") } }.forEach { it.await() } }

            assertThat(seen.maxRunning.get()).`as`("calls running at once").isEqualTo(1)
            assertThat(seen.completed.get()).isEqualTo(4)
            assertThat(context.getBean(LockClient::class.java).fairLock("stock:boots").isLocked).isFalse()
        }
    }

    @Test
    fun shouldRunANestedLockedFunctionOfTheSameLockUnderTheOuterLease() {
        app().run { context ->
            val stock = context.getBean(Stock::class.java)

            assertThat(runBlocking { stock.outer("hats", stock) }).isEqualTo("reused the outer lease")
            assertThat(server.command("EXISTS", "leasehold:{stock:hats}")).isEqualTo(0L)
        }
    }

    @Test
    fun shouldSkipTheFunctionWhenTheLockIsBusyAndSaidSo() {
        app().run { context ->
            val stock = context.getBean(Stock::class.java)
            val seen = context.getBean(Seen::class.java)
            val other = context.getBean(LockClient::class.java).lock("stock:7").acquire(Duration.ZERO)

            assertThat(runBlocking { stock.restockIfFree("7") }).isNull()
            assertThat(seen.ran).`as`("the function did not run").isEmpty()

            other.release()
            assertThat(runBlocking { stock.restockIfFree("7") }).isEqualTo("restocked 7")
        }
    }

    @Test
    fun shouldThrowLockTimeoutWhenTheLockStaysBusyForTheWholeWait() {
        app().run { context ->
            val stock = context.getBean(Stock::class.java)
            val seen = context.getBean(Seen::class.java)
            val other = context.getBean(LockClient::class.java).lock("stock:9").acquire(Duration.ZERO)

            assertThatThrownBy { runBlocking { stock.restockWithin200ms("9") } }
                .isInstanceOf(LockTimeoutException::class.java)
            assertThat(seen.ran).isEmpty()
            other.release()
        }
    }

    @Test
    fun shouldCancelTheFunctionAndThrowLeaseLostWhenItsLockIsDeletedInRedis() {
        app().run { context ->
            val stock = context.getBean(Stock::class.java)
            val seen = context.getBean(Seen::class.java)

            val outcome = runBlocking {
                val call = async(Dispatchers.Default) { runCatching { stock.countUntilCancelled("3") } }
                withTimeout(10.seconds) { seen.started.await() }

                server.command("DEL", "leasehold:{stock:3}") // the renewal finds the lock gone

                withTimeout(10.seconds) { call.await() }
            }

            assertThat(outcome.exceptionOrNull()).isInstanceOf(LeaseLostException::class.java)
            assertThat(seen.cancelled.isCompleted).`as`("the function was cancelled").isTrue()
        }
    }

    @Test
    fun shouldReleaseTheLockWhenTheCallerIsCancelledWhileTheFunctionRuns() {
        app().run { context ->
            val stock = context.getBean(Stock::class.java)
            val seen = context.getBean(Seen::class.java)
            val locks = context.getBean(LockClient::class.java)

            runBlocking {
                val call = launch(Dispatchers.Default) { stock.countUntilCancelled("4") }
                withTimeout(10.seconds) { seen.started.await() }

                call.cancel()
                call.join()
                withTimeout(10.seconds) { seen.cancelled.await() }
            }

            // released at once where Spring calls the function directly; where it goes through Reactor, the
            // caller's cancellation reaches the lock a moment later
            assertThat(awaitAtMost({ locks.diagnostics().leases().toLong() }, 0)).isZero()
            assertThat(server.command("EXISTS", "leasehold:{stock:4}")).`as`("released").isEqualTo(0L)
            assertThat(locks.lock("stock:4").tryAcquire()).`as`("free for others").isPresent
        }
    }

    @Test
    fun shouldLeaveNoLockWhenTheCallerIsCancelledWhileWaiting() {
        app().run { context ->
            val stock = context.getBean(Stock::class.java)
            val seen = context.getBean(Seen::class.java)
            val locks = context.getBean(LockClient::class.java)
            val other = locks.lock("stock:5").acquire(Duration.ZERO)

            runBlocking {
                val call = launch(Dispatchers.Default, CoroutineStart.UNDISPATCHED) { stock.countUntilCancelled("5") }
                assertThat(awaitAtMost({ 1L - locks.diagnostics().acquisitions() }, 0))
                    .`as`("the call waits for the lock")
                    .isZero()

                call.cancel()
                call.join()
            }
            assertThat(awaitAtMost({ locks.diagnostics().acquisitions().toLong() }, 0))
                .`as`("the wait ended")
                .isZero()
            other.release()

            assertThat(seen.ran).`as`("the function never ran").isEmpty()
            assertThat(locks.lock("stock:5").tryAcquire()).`as`("nobody took the lock").isPresent
        }
    }

    /**
     * The caller cancelled as the lock is taken, before the function started: no work ran under the lease,
     * so it is released as unused and the function's ten-minute hold is not kept. The cancel lands inside
     * `withLock`'s block, before the function's own context is entered (where a cancel from another thread
     * can land too): a context element of the caller's cancels the call as the lease's context is entered.
     */
    @Test
    fun shouldReleaseTheLockAsUnusedWhenTheCallerIsCancelledAsTheFunctionIsAboutToStart() {
        app().run { context ->
            val stock = context.getBean(Stock::class.java)
            val seen = context.getBean(Seen::class.java)
            val locks = context.getBean(LockClient::class.java)
            val cancelAsLeaseHeld = CancelAsTheLeaseIsEntered()

            val outcome = runCatching { runBlocking(cancelAsLeaseHeld) { stock.restockAndHold("11") } }

            assertThat(cancelAsLeaseHeld.cancelled).`as`("the hook cancelled the call").isTrue()
            assertThat(outcome.exceptionOrNull()).isInstanceOf(CancellationException::class.java)
            assertThat(seen.ran).`as`("the function never ran").isEmpty()
            assertThat(awaitAtMost({ server.command("EXISTS", "leasehold:{stock:11}") as Long }, 0))
                .`as`("released at once, no ten-minute hold (PTTL %s ms)", server.command("PTTL", "leasehold:{stock:11}"))
                .isZero()
            assertThat(locks.lock("stock:11").tryAcquire()).`as`("free for others").isPresent
        }
    }

    /**
     * (attack h60) A reentrant @Locked call, cancelled before the function started, must not release the
     * outer call's lease: the outer function still runs under it.
     */
    @Test
    fun shouldKeepTheOuterLeaseWhenANestedCallOfTheSameLockIsCancelledBeforeItStarts() {
        app().run { context ->
            val stock = context.getBean(Stock::class.java)
            val seen = context.getBean(Seen::class.java)

            val cancelled = runBlocking(Dispatchers.Default) { stock.outerWhileANestedCallIsCancelled("12", stock) }

            assertThat(cancelled).`as`("the hook cancelled the nested call").isTrue()
            assertThat(seen.ran).`as`("the outer lock stayed in Redis while the outer function ran")
                .contains("outer lock in Redis after it: 1")
        }
    }

    /**
     * (attack h61) A nested @Locked call of a DIFFERENT lock, cancelled before its function started: its own
     * lease (acquired by that call) is released as unused, its ten-minute hold not kept; the outer lease stays.
     */
    @Test
    fun shouldReleaseANestedCallsOwnLeaseOfAnotherLockAsUnusedAndKeepTheOuterWhenCancelledBeforeItStarts() {
        app().run { context ->
            val stock = context.getBean(Stock::class.java)
            val seen = context.getBean(Seen::class.java)

            val cancelled = runBlocking(Dispatchers.Default) {
                stock.outerWhileANestedCallOfAnotherLockIsCancelled("30", "31", stock)
            }

            assertThat(cancelled).`as`("the hook cancelled the nested call").isTrue()
            assertThat(seen.ran).`as`("the nested function never ran").doesNotContain("restockAndHold 31")
            assertThat(seen.ran).`as`("the outer lock stayed in Redis while the outer function ran")
                .contains("outer lock in Redis after it: 1")
            assertThat(awaitAtMost({ server.command("EXISTS", "leasehold:{stock:31}") as Long }, 0))
                .`as`("the nested call's own lease released as unused (PTTL %s ms)", server.command("PTTL", "leasehold:{stock:31}"))
                .isZero()
        }
    }

    /** (attack h60) Cancelled after the function started: the min-hold time is kept. */
    @Test
    fun shouldKeepTheMinHoldTimeWhenTheCallerIsCancelledAfterTheFunctionStarted() {
        app().run { context ->
            val stock = context.getBean(Stock::class.java)
            val seen = context.getBean(Seen::class.java)
            val locks = context.getBean(LockClient::class.java)

            runBlocking {
                val call = launch(Dispatchers.Default) { stock.holdTenMinutesUntilCancelled("14") }
                withTimeout(10.seconds) { seen.started.await() }
                call.cancel()
                call.join()
            }

            assertThat(awaitAtMost({ locks.diagnostics().leases().toLong() }, 0)).isZero()
            assertThat(server.command("PTTL", "leasehold:{stock:14}") as Long)
                .`as`("the ten-minute hold kept")
                .isGreaterThan(300_000L)
        }
    }

    /**
     * (attack h60) Cancels the coroutine's job the first time it enters a context whose HeldLeases element
     * differs from the first one it saw: a reentrant withLock's block, right after it started.
     */
    private class CancelAsTheLeaseIsReentered :
        AbstractCoroutineContextElement(Key),
        ThreadContextElement<Unit> {
        companion object Key : CoroutineContext.Key<CancelAsTheLeaseIsReentered>

        @Volatile
        var cancelled = false

        @Volatile
        private var first: Any? = null

        override fun updateThreadContext(context: CoroutineContext) {
            val held = context.fold(null as Any?) { found, element ->
                found ?: element.takeIf { it.javaClass.simpleName == "HeldLeases" }
            } ?: return
            if (first == null) {
                first = held
            } else if (held !== first && !cancelled) {
                cancelled = true
                context[Job]?.cancel()
            }
        }

        override fun restoreThreadContext(context: CoroutineContext, oldState: Unit) {}
    }

    /**
     * Cancels the coroutine's job the first time the coroutine enters a context that holds a lease
     * (`withLock`'s block context, whose element is `HeldLeases`): the moment right after the block started.
     */
    private class CancelAsTheLeaseIsEntered :
        AbstractCoroutineContextElement(Key),
        ThreadContextElement<Unit> {
        companion object Key : CoroutineContext.Key<CancelAsTheLeaseIsEntered>

        @Volatile
        var cancelled = false

        override fun updateThreadContext(context: CoroutineContext) {
            val holdsALease = context.fold(false) { found, element -> found || element.javaClass.simpleName == "HeldLeases" }
            if (holdsALease && !cancelled) {
                cancelled = true
                context[Job]?.cancel()
            }
        }

        override fun restoreThreadContext(context: CoroutineContext, oldState: Unit) {}
    }

    @Test
    fun shouldHandBackWhatTheFunctionThrewAndReleaseTheLock() {
        app().run { context ->
            val stock = context.getBean(Stock::class.java)
            val failure = IOException("the shelf is full")

            val thrown = runCatching { runBlocking { stock.failAfterSuspending("8", failure) } }.exceptionOrNull()

            assertThat(thrown).isInstanceOf(IOException::class.java).hasMessage("the shelf is full")
            assertThat(server.command("EXISTS", "leasehold:{stock:8}")).`as`("released").isEqualTo(0L)
        }
    }

    @Test
    fun shouldRefuseAFunctionThatReturnsAFlow() {
        app().run { context ->
            val stock = context.getBean(Stock::class.java)

            assertThatThrownBy { runBlocking { stock.changes("6") } }
                .isInstanceOf(IllegalArgumentException::class.java)
                .hasMessageStartingWith(
                    "@Locked on Stock.changes() returns kotlinx.coroutines.flow.Flow: the lock would be released",
                )
        }
    }
}
