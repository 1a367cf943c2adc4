package io.leasehold.lock.testkit.conformance

import io.leasehold.lock.Lease
import io.leasehold.lock.LeaseLoss
import io.leasehold.lock.LeaseLostException
import io.leasehold.lock.LockEventListener
import io.leasehold.lock.testkit.LockBackendFixture.Fault
import io.leasehold.lock.withLock
import java.time.Duration
import java.util.concurrent.CompletableFuture
import java.util.concurrent.CountDownLatch
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicReference
import kotlin.time.Duration.Companion.seconds
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeout

// G13 attacked: user code (future continuations, lost() dependents, listeners, bodies) that blocks must
// not delay anything the engine owes other leases: renewals, loss signals. And G6: "is it lost?" is
// decided from the lease's state at once, never from a signal that a slow thread delivers later, and a
// holder is told of its loss before the engine lets anyone else take the lock.

/** A lease renewed every ~300 ms, so that a renewal that stalls shows up as a loss within a second. */
private val SHORT_RENEWED: Duration = Duration.ofMillis(900)

/** How long user code blocks in these scenarios: several renewal periods of [SHORT_RENEWED]. */
private val BLOCKING: Duration = Duration.ofSeconds(3)

/** A listener whose [onLeaseLost] blocks until [unblock], as a careless metrics exporter might. */
private class BlockingLossListener : LockEventListener {
    private val gate = CountDownLatch(1)

    override fun onLeaseLost(loss: LeaseLoss) {
        gate.await(30, TimeUnit.SECONDS)
    }

    fun unblock() = gate.countDown()
}

/** Polls until [lease] is no longer valid (its state changed), failing after [Timing.AWAIT]. */
private fun ScenarioContext.awaitInvalid(lease: Lease, what: String) {
    await("$what: the lease is no longer valid") { !lease.isValid }
}

internal val threadingScenarios: List<Scenario> = listOf(

    scenario("shouldKeepRenewingWhileAUserContinuationBlocks", "G5, G13") {
        val node = newNode()
        // Given a lease the watchdog must renew every ~300 ms
        val bystander = node.client.lock(lockName, options(leaseTime = SHORT_RENEWED)).acquire(Timing.ACQUIRE_WAIT)
        // When a user's continuation of another acquisition blocks whatever thread completes it
        val gate = CountDownLatch(1)
        val continuationRan = CompletableFuture<String>()
        startThread("continuation-owner") {
            node.client.lock(uniqueName("other")).acquireAsync(Timing.ACQUIRE_WAIT).thenRun {
                continuationRan.complete(Thread.currentThread().name)
                gate.await(30, TimeUnit.SECONDS)
            }
        }
        val thread = continuationRan.value("the continuation runs")
        try {
            hold(BLOCKING)
            // Then the bystander was renewed meanwhile: still valid, never lost
            withClue("bystander lost while the continuation on '$thread' blocked: ${bystander.lost().getNow(null)}") {
                bystander.lost().isDone shouldBe false
            }
            withClue("bystander isValid() while the continuation on '$thread' blocked") { bystander.isValid shouldBe true }
        } finally {
            gate.countDown()
        }
        withClue("release() of the bystander") { bystander.release() shouldBe true }
    },

    scenario("shouldSignalALossWhileAnotherLeasesLostDependentBlocks", "G6, G13", Fault.DELETE_KEY) {
        val a = newClient()
        val first = a.lock(lockName, options(leaseTime = SHORT_RENEWED)).acquire(Timing.ACQUIRE_WAIT)
        val secondName = uniqueName("second")
        val second = a.lock(secondName, options(leaseTime = SHORT_RENEWED)).acquire(Timing.ACQUIRE_WAIT)
        // Given the first lease's lost() has a dependent that blocks
        val gate = CountDownLatch(1)
        val blocking = CompletableFuture<Unit>()
        first.lost().thenRun {
            blocking.complete(Unit)
            gate.await(30, TimeUnit.SECONDS)
        }
        try {
            fixture.deleteKey(lockKey())
            blocking.value("the first lease's lost() dependent runs")
            // When the second lease is lost while that dependent still blocks
            fixture.deleteKey(lockKey(secondName))
            // Then the second lease's lost() completes all the same
            val loss = second.lost().value("lost() of the second lease while another dependent blocks")
            withClue("loss reason") { loss.reason() shouldBe LeaseLoss.Reason.STOLEN }
        } finally {
            gate.countDown()
        }
    },

    scenario("shouldSignalALossWhileAListenerBlocks", "G6, G13", Fault.DELETE_KEY) {
        val listener = BlockingLossListener()
        val a = newClient { listener(listener) }
        try {
            val first = a.lock(lockName, options(leaseTime = SHORT_RENEWED)).acquire(Timing.ACQUIRE_WAIT)
            val secondName = uniqueName("second")
            val second = a.lock(secondName, options(leaseTime = SHORT_RENEWED)).acquire(Timing.ACQUIRE_WAIT)
            // Given a listener that blocks in onLeaseLost, already stuck on the first loss
            fixture.deleteKey(lockKey())
            first.lost().value("lost() of the first lease")
            // When the second lease is lost
            fixture.deleteKey(lockKey(secondName))
            // Then its lost() completes regardless of the stuck listener
            second.lost().value("lost() of the second lease while the listener blocks")
        } finally {
            listener.unblock()
        }
    },

    scenario("shouldThrowLeaseLostFromWithLockWhenTheLossPrecedesTheBlocksReturn", "G6", Fault.DELETE_KEY) {
        val listener = BlockingLossListener()
        val a = newClient { listener(listener) }
        val lock = a.lock(lockName, options(leaseTime = SHORT_RENEWED))
        try {
            runBlocking(Dispatchers.Default) {
                withTimeout(60.seconds) {
                    // When the lease is lost (its state changes) and the block then returns normally
                    val outcome = runCatching {
                        lock.withLock(10.seconds) { lease ->
                            fixture.deleteKey(lockKey())
                            awaitInvalid(lease, "withLock block")
                            "the block's result"
                        }
                    }
                    // Then withLock reports the loss, not the block's result
                    withClue("withLock outcome after a loss declared before the block returned: $outcome") {
                        outcome.exceptionOrNull().shouldBeInstanceOf<LeaseLostException>()
                    }
                }
            }
        } finally {
            listener.unblock()
        }
    },

    scenario("shouldNotReenterWithLockOnALostLease", "G6, G10", Fault.DELETE_KEY) {
        val listener = BlockingLossListener()
        val node = newNode { listener(listener) }
        val lock = node.client.lock(lockName, options(leaseTime = SHORT_RENEWED))
        try {
            runBlocking(Dispatchers.Default) {
                withTimeout(60.seconds) {
                    val inner = AtomicReference<Result<String>>()
                    runCatching {
                        lock.withLock(10.seconds) { lease ->
                            fixture.deleteKey(lockKey())
                            awaitInvalid(lease, "outer withLock block")
                            val acquiresBefore = node.counter.count(io.leasehold.lock.spi.ScriptNames.ACQUIRE)
                            // When the block re-enters the lock after its lease was lost
                            inner.set(runCatching { lock.withLock(10.seconds) { "the inner block ran" } })
                            withClue("acquire calls made by the re-entrant withLock") {
                                node.counter.count(io.leasehold.lock.spi.ScriptNames.ACQUIRE) shouldBe acquiresBefore
                            }
                        }
                    }
                    // Then the inner withLock throws LeaseLostException without running its block or acquiring anew
                    withClue("re-entrant withLock on a lost lease: ${inner.get()}") {
                        inner.get().exceptionOrNull().shouldBeInstanceOf<LeaseLostException>()
                    }
                }
            }
        } finally {
            listener.unblock()
        }
    },

    scenario("shouldFailCallLockedAsyncWhenTheLossPrecedesTheBodysCompletion", "G6", Fault.DELETE_KEY) {
        val listener = BlockingLossListener()
        val a = newClient { listener(listener) }
        try {
            // When the lease is lost and the body's stage then completes normally
            val outcome = a.lock(lockName, options(leaseTime = SHORT_RENEWED)).callLockedAsync(Timing.ACQUIRE_WAIT) { lease ->
                CompletableFuture.supplyAsync {
                    fixture.deleteKey(lockKey())
                    awaitInvalid(lease, "callLockedAsync body")
                    "the body's value"
                }
            }
            // Then the result reports the loss, not the body's value
            outcome.failure("callLockedAsync whose lease was lost before its body completed")
                .unwrapped().shouldBeInstanceOf<LeaseLostException>()
        } finally {
            listener.unblock()
        }
    },

    scenario("shouldTellTheHolderOfALossBeforeAnotherNodeAcquires", "G6") {
        // Given a holder whose listener is slow, and a waiter on another node that records, the moment
        // it acquires, whether the holder had been told
        val slowListener = BlockingLossListener()
        val a = newClient { listener(slowListener) }
        val holder = AtomicReference<Lease>()
        val toldWhenOtherAcquired = CompletableFuture<Boolean>()
        val b = newClient {
            listener(object : LockEventListener {
                override fun onAcquired(lockName: String, fencingToken: Long, waited: Duration) {
                    holder.get()?.let { toldWhenOtherAcquired.complete(it.lost().isDone && !it.isValid) }
                }
            })
        }
        try {
            val lease = a.lock(lockName, options(leaseTime = Duration.ofSeconds(1), autoRenew = false)).acquire(Timing.ACQUIRE_WAIT)
            holder.set(lease)
            val waiting = b.lock(lockName).acquireAsync(Duration.ofSeconds(20))
            // When the holder's lease runs out (EXPIRED) and the engine frees the lock
            val next = waiting.value("the waiter's lease after the holder's lease ran out", Duration.ofSeconds(20))
            // Then the holder had been told (state changed, lost() completed) before the waiter got the lock
            withClue("holder told (lost() complete, not valid) when the other node acquired") {
                toldWhenOtherAcquired.value("the waiter's onAcquired") shouldBe true
            }
            next.release()
        } finally {
            slowListener.unblock()
        }
    },

    scenario("shouldNeverHandOutALeaseThatIsNoLongerValid", "G4, G6", Fault.LATENCY) {
        // Given every call takes longer than the lease before it reaches the store
        val a = newClient(commandTimeout = Duration.ofSeconds(5))
        val lock = a.lock(lockName, options(leaseTime = Duration.ofSeconds(1)))
        fixture.setLatency(Duration.ofMillis(1300))
        // When a lease is asked for, plainly and with a body
        val plain = runCatching { lock.acquire(Duration.ofSeconds(2)) }
        val bodyRan = CompletableFuture<Boolean>()
        val locked = runCatching { lock.callLocked(Duration.ofSeconds(2)) { bodyRan.complete(true) } }
        fixture.setLatency(Duration.ZERO)
        // Then no lease that was already over when its reply came is handed out, and no body runs under one;
        // the wait ends as a backend failure (too slow for the lease), not as contention: nobody else held it
        plain.getOrNull()?.let { lease -> withClue("isValid() of a lease handed out after a reply slower than its lease") { lease.isValid shouldBe true } }
        withClue("acquire() outcome: $plain") { plain.exceptionOrNull().shouldBeInstanceOf<io.leasehold.lock.LockBackendException>() }
        withClue("callLocked() outcome: $locked") { locked.exceptionOrNull().shouldBeInstanceOf<io.leasehold.lock.LockBackendException>() }
        withClue("callLocked body ran with a dead lease") { bodyRan.isDone shouldBe false }
        // And nothing was left locked
        val probe = newClient()
        probe.lock(lockName).tryAcquire(Duration.ofSeconds(5)).present("tryAcquire() once the latency is gone").use { }
    },

    scenario("shouldRunUserCodeOnlyOnTheCallbackExecutor", "G13", Fault.DELETE_KEY) {
        // Given a client whose user-visible completions go to an executor of the application's own
        val pool = java.util.concurrent.Executors.newCachedThreadPool { r -> Thread(r, "app-callbacks").apply { isDaemon = true } }
        try {
            val a = newClient { callbackExecutor(pool) }
            val lock = a.lock(lockName, options(leaseTime = SHORT_RENEWED))
            val seen = java.util.concurrent.ConcurrentHashMap<String, String>()
            fun record(what: String) { seen[what] = Thread.currentThread().name }
            // When user code hangs off every kind of future the API returns, and a callLockedAsync body runs
            val lease = lock.acquireAsync(Timing.ACQUIRE_WAIT).thenApply { record("acquireAsync continuation"); it }
                .value("acquireAsync")
            lease.extendAsync(SHORT_RENEWED).thenRun { record("extendAsync continuation") }.value("extendAsync")
            val lost = lease.lost().thenRun { record("lost() continuation") }
            fixture.deleteKey(lockKey())
            lost.value("lost() after the key was deleted")
            lock.tryAcquireAsync(Timing.ACQUIRE_WAIT).thenApply { record("tryAcquireAsync continuation"); it }
                .value("tryAcquireAsync").present("tryAcquireAsync lease")
                .releaseAsync().thenRun { record("releaseAsync continuation") }.value("releaseAsync")
            lock.callLockedAsync(Timing.ACQUIRE_WAIT) { record("callLockedAsync body"); CompletableFuture.completedFuture("done") }
                .thenRun { record("callLockedAsync continuation") }.value("callLockedAsync")
            // Then all of it ran on that executor (or, for a continuation added to a future that had already
            // completed, on the scenario's own thread, as CompletableFuture does): never on a driver's I/O
            // thread or the engine's timer
            val allowed = setOf("app-callbacks", Thread.currentThread().name)
            withClue("threads that ran user code: $seen") {
                seen.keys shouldBe setOf("acquireAsync continuation", "extendAsync continuation", "lost() continuation",
                    "tryAcquireAsync continuation", "releaseAsync continuation", "callLockedAsync body", "callLockedAsync continuation")
                seen.filterValues { it !in allowed } shouldBe emptyMap()
                withClue("the lost() continuation was added before the loss") { seen["lost() continuation"] shouldBe "app-callbacks" }
            }
        } finally {
            pool.shutdownNow()
        }
    },
)

