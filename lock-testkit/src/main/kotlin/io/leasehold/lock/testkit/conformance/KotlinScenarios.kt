package io.leasehold.lock.testkit.conformance

import io.leasehold.lock.LeaseLoss
import io.leasehold.lock.LeaseLostException
import io.leasehold.lock.LockTimeoutException
import io.leasehold.lock.spi.ScriptNames
import io.leasehold.lock.testkit.LockBackendFixture.Fault
import io.leasehold.lock.awaitAcquire
import io.leasehold.lock.awaitTryAcquire
import io.leasehold.lock.withLock
import java.time.Duration
import kotlin.time.Duration.Companion.milliseconds
import kotlin.time.Duration.Companion.seconds
import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitCancellation
import kotlinx.coroutines.cancelAndJoin
import kotlinx.coroutines.coroutineScope
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext
import kotlinx.coroutines.withTimeout

// The Kotlin API: withLock cancels its block on loss (G6), releases on every path (G8), and is
// reentrant within the holding coroutine and its children, not across siblings (G10).

/** Runs [block] in a coroutine on the default dispatcher, bounded so that a hang fails the scenario. */
internal fun <T> coroutineScenario(block: suspend CoroutineScope.() -> T): T =
    runBlocking(Dispatchers.Default) { withTimeout(60.seconds) { block() } }

internal val kotlinScenarios: List<Scenario> = listOf(

    scenario("shouldCancelWithLockBlockOnLossAndThrowLeaseLost", "G6", Fault.DELETE_KEY) {
        val a = newClient()
        val lock = a.lock(lockName, options(leaseTime = Duration.ofMillis(900)))
        coroutineScenario {
            // Given a withLock block that suspends forever
            val started = CompletableDeferred<Unit>()
            val blockCancelled = CompletableDeferred<Throwable>()
            val call = async {
                runCatching {
                    lock.withLock(10.seconds) {
                        started.complete(Unit)
                        try {
                            awaitCancellation()
                        } catch (e: CancellationException) {
                            blockCancelled.complete(e)
                            throw e
                        }
                    }
                }
            }
            started.await()
            // When the lock is deleted behind its back
            fixture.deleteKey(lockKey())
            // Then the block is cancelled and withLock throws LeaseLostException (not a CancellationException)
            val failure = call.await().exceptionOrNull()
            val lost = withClue("withLock outcome after the loss: $failure") { failure.shouldBeInstanceOf<LeaseLostException>() }
            withClue("loss reason") { lost.loss().reason() shouldBe LeaseLoss.Reason.STOLEN }
            withClue("the block was cancelled") { blockCancelled.isCompleted shouldBe true }
        }
    },

    scenario("shouldReleaseWhenWithLockBlockThrows", "G8") {
        val a = newClient()
        val b = newClient()
        val boom = IllegalStateException("boom")
        coroutineScenario {
            // When the block throws
            val thrown = shouldThrow<IllegalStateException> { a.lock(lockName).withLock(10.seconds) { throw boom } }
            // Then that very exception propagates, and the lock was released before it did
            thrown shouldBeSameInstanceAs boom
        }
        withClue("isLocked() right after withLock threw") { b.lock(lockName).isLocked shouldBe false }
        b.lock(lockName).tryAcquire().present("tryAcquire() after the failed block").use { }
    },

    scenario("shouldReenterWithLockInSameCoroutineAndChildren", "G10") {
        val node = newNode()
        val b = newClient()
        val lock = node.client.lock(lockName)
        coroutineScenario {
            lock.withLock(10.seconds) { outer ->
                val token = outer.fencingToken()
                // When the block, and coroutines it starts, take the same lock again
                lock.withLock(10.seconds) { inner -> withClue("nested in the same coroutine") { inner.fencingToken() shouldBe token } }
                node.client.lock(lockName).withLock(10.seconds) { inner ->
                    withClue("nested through an equal handle") { inner.fencingToken() shouldBe token }
                }
                coroutineScope {
                    launch { lock.withLock(10.seconds) { inner -> withClue("in a launched child") { inner.fencingToken() shouldBe token } } }
                    async { lock.withLock(10.seconds) { inner -> inner.fencingToken() } }.await() shouldBe token
                }
                withContext(Dispatchers.IO) {
                    lock.withLock(10.seconds) { inner -> withClue("in a child on another dispatcher") { inner.fencingToken() shouldBe token } }
                }
                // Then they reuse the lease: one acquisition in all, and the lock is still held
                withClue("acquire calls for the outer and all nested withLock; all calls: ${node.counter.counts()}") {
                    node.counter.count(ScriptNames.ACQUIRE) shouldBe 1L
                }
                withClue("release calls before the outer block ends") { node.counter.count(ScriptNames.RELEASE) shouldBe 0L }
                withClue("isLocked() after the nested blocks ended") { b.lock(lockName).isLocked shouldBe true }
            }
        }
        withClue("release calls after the outer block ended") { node.counter.count(ScriptNames.RELEASE) shouldBe 1L }
        withClue("isLocked() after the outer block ended") { b.lock(lockName).isLocked shouldBe false }
    },

    scenario("shouldNotReenterWithLockAcrossSiblingCoroutines", "G10") {
        val a = newClient()
        val lock = a.lock(lockName)
        coroutineScenario {
            // Given one coroutine holds the lock
            val held = CompletableDeferred<Unit>()
            val done = CompletableDeferred<Unit>()
            val holder = launch { lock.withLock(10.seconds) { held.complete(Unit); done.await() } }
            held.await()
            // When a sibling coroutine of the same client takes the same lock
            val sibling = async { runCatching { lock.withLock(300.milliseconds) { "the sibling entered" } } }.await()
            // Then it waits like any other contender and times out
            withClue("sibling's withLock while held: $sibling") { sibling.exceptionOrNull().shouldBeInstanceOf<LockTimeoutException>() }
            done.complete(Unit)
            holder.join()
            // And once the holder is done, the sibling's turn comes
            lock.withLock(10.seconds) { "entered" } shouldBe "entered"
        }
    },

    scenario("shouldLeaveNoLockWhenWithLockIsCancelledWhileWaiting", "G8") {
        val a = newClient()
        val waiter = newNode()
        val held = a.lock(lockName).acquire(Timing.ACQUIRE_WAIT)
        coroutineScenario {
            // Given a coroutine waiting in withLock
            val waiting = launch { waiter.client.lock(lockName).withLock(30.seconds) { error("the block must not run") } }
            while (waiter.counter.count(ScriptNames.ACQUIRE) < 1) kotlinx.coroutines.delay(10)
            // When it is cancelled, and the holder then releases
            waiting.cancelAndJoin()
        }
        withClue("release() by the holder") { held.release() shouldBe true }
        // Then the cancelled waiter does not take (and keep) the lock
        val probe = newClient()
        probe.lock(lockName).tryAcquire(Duration.ofSeconds(5)).present("tryAcquire() by a third node").use { }
        await("the lock is free") { !probe.lock(lockName).isLocked }
    },

    scenario("shouldReleaseWhenWithLockIsCancelledWhileHolding", "G8") {
        val a = newClient()
        val b = newClient()
        coroutineScenario {
            // Given a coroutine holding the lock in withLock
            val held = CompletableDeferred<Unit>()
            val holder = launch { a.lock(lockName).withLock(10.seconds) { held.complete(Unit); awaitCancellation() } }
            held.await()
            // When the coroutine is cancelled
            holder.cancelAndJoin()
        }
        // Then the lock was released before the cancellation completed
        withClue("isLocked() right after the holding coroutine was cancelled") { b.lock(lockName).isLocked shouldBe false }
    },

    scenario("shouldReportContentionToCoroutinesAsNullOrTimeout", "G9") {
        val a = newClient()
        val b = newClient()
        val held = a.lock(lockName).acquire(Timing.ACQUIRE_WAIT)
        coroutineScenario {
            val lock = b.lock(lockName)
            withClue("awaitTryAcquire() of a held lock") { lock.awaitTryAcquire() shouldBe null }
            withClue("awaitTryAcquire(300 ms) of a held lock") { lock.awaitTryAcquire(300.milliseconds) shouldBe null }
            shouldThrow<LockTimeoutException> { lock.awaitAcquire(300.milliseconds) }.shouldBeAbout(lockName)
            shouldThrow<LockTimeoutException> { lock.withLock(300.milliseconds) { "entered" } }.shouldBeAbout(lockName)
        }
        withClue("release() by the holder") { held.release() shouldBe true }
    },
)
