package io.leasehold.lock.testkit.conformance

import io.leasehold.lock.DistributedLock
import io.leasehold.lock.Lease
import io.leasehold.lock.LeaseLostException
import io.leasehold.lock.LeaseState
import io.leasehold.lock.awaitAcquire
import io.leasehold.lock.awaitRelease
import io.leasehold.lock.holdCountInCurrentCoroutine
import io.leasehold.lock.isHeldInCurrentCoroutine
import io.leasehold.lock.testkit.LockBackendFixture.Fault
import io.leasehold.lock.withLock
import java.time.Duration
import kotlin.time.Duration.Companion.seconds
import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.NonCancellable
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitCancellation
import kotlinx.coroutines.coroutineScope
import kotlinx.coroutines.withContext

// G10: "do I hold it?" and "how many times?", for the current thread (Java) and the current coroutine
// (Kotlin), by the same rules that make callLocked and withLock reentrant; held means a valid lease.

/** A lease renewed every ~300 ms, so that a loss is noticed quickly. */
private val RENEWED_LEASE: Duration = Duration.ofMillis(900)

/** The current thread's answer for [lock]: (isHeldByCurrentThread, holdCount). */
private fun threadHold(lock: DistributedLock): Pair<Boolean, Int> = lock.isHeldByCurrentThread to lock.holdCount()

/** The current coroutine's answer for [lock]: (isHeldInCurrentCoroutine, holdCountInCurrentCoroutine). */
private suspend fun coroutineHold(lock: DistributedLock): Pair<Boolean, Int> =
    lock.isHeldInCurrentCoroutine() to lock.holdCountInCurrentCoroutine()

/**
 * Waits until [lease] is lost, on a thread whose body the loss interrupts (callLocked does): the
 * interrupt is the signal, not a reason to stop waiting.
 */
private fun awaitLossIgnoringInterrupts(lease: Lease) {
    val deadline = System.nanoTime() + Timing.AWAIT.toNanos()
    while (lease.state() != LeaseState.LOST) {
        if (System.nanoTime() - deadline > 0) throw AssertionError("timed out after ${Timing.AWAIT} waiting for the loss")
        try {
            Thread.sleep(ScenarioContext.POLL_MILLIS)
        } catch (e: InterruptedException) {
            // callLocked interrupts its body on loss: expected here
        }
    }
    Thread.interrupted()
}

internal val holdQueryScenarios: List<Scenario> = listOf(

    scenario("shouldTellWhetherTheCurrentThreadHoldsTheLockAndHowManyCallsDeep", "G10") {
        val node = newNode()
        val other = newClient()
        val lock = node.client.lock(lockName, options(autoRenew = false))
        withClue("before any call") { threadHold(lock) shouldBe (false to 0) }
        lock.runLocked(Timing.ACQUIRE_WAIT) {
            val callsBefore = node.counter.total()
            // When the thread holds it, and nests reentrant calls, also through an equal handle
            withClue("in the outermost runLocked") { threadHold(lock) shouldBe (true to 1) }
            node.client.lock(lockName).callWithLease(Duration.ZERO) {
                withClue("in a nested callWithLease through an equal handle") { threadHold(lock) shouldBe (true to 2) }
                lock.callLocked(Duration.ZERO) { withClue("two calls deep") { threadHold(lock) shouldBe (true to 3) } }
                withClue("after the innermost call returned") { threadHold(lock) shouldBe (true to 2) }
            }
            withClue("back in the outermost runLocked") { threadHold(lock) shouldBe (true to 1) }
            // Then only this thread, this client's handles and this name count
            val elsewhere = startThread("other-thread") { threadHold(lock) }.result.value("the query on another thread")
            withClue("on another thread of the same client") { elsewhere shouldBe (false to 0) }
            withClue("through another client's handle") { threadHold(other.lock(lockName)) shouldBe (false to 0) }
            withClue("for another name") { threadHold(node.client.lock(uniqueName("other"))) shouldBe (false to 0) }
            // And asking costs no Redis call
            withClue("Redis calls made by the queries; all calls: ${node.counter.counts()}") {
                node.counter.total() shouldBe callsBefore
            }
        }
        withClue("after the outermost runLocked returned") { threadHold(lock) shouldBe (false to 0) }
        // And a lease from acquire is an explicit handle, bound to no thread: it does not count
        lock.acquire(Timing.ACQUIRE_WAIT).use { lease ->
            withClue("isValid() of the explicit lease") { lease.isValid shouldBe true }
            withClue("while this thread keeps a lease from acquire()") { threadHold(lock) shouldBe (false to 0) }
        }
    },

    scenario("shouldTellWhetherTheCurrentCoroutineHoldsTheLockAndHowManyBlocksDeep", "G10") {
        val node = newNode()
        val lock = node.client.lock(lockName, options(autoRenew = false))
        coroutineScenario {
            val outside = this
            withClue("before any block") { coroutineHold(lock) shouldBe (false to 0) }
            lock.withLock(10.seconds) {
                val callsBefore = node.counter.total()
                // When the coroutine holds it, and nests reentrant blocks, also through an equal handle
                withClue("in the outermost withLock") { coroutineHold(lock) shouldBe (true to 1) }
                node.client.lock(lockName).withLock(10.seconds) {
                    withClue("in a nested withLock through an equal handle") { coroutineHold(lock) shouldBe (true to 2) }
                    // A coroutine launched from the block holds it too, as many blocks deep as it was launched
                    val child = coroutineScope { async(Dispatchers.IO) { coroutineHold(lock) }.await() }
                    withClue("in a child launched two blocks deep") { child shouldBe (true to 2) }
                }
                withClue("back in the outermost withLock") { coroutineHold(lock) shouldBe (true to 1) }
                // Then a sibling coroutine does not hold it, nor does the thread the block runs on
                val sibling = outside.async { coroutineHold(lock) }.await()
                withClue("in a sibling coroutine launched outside the block") { sibling shouldBe (false to 0) }
                withClue("isHeldByCurrentThread/holdCount inside withLock") { threadHold(lock) shouldBe (false to 0) }
                withClue("Redis calls made by the queries; all calls: ${node.counter.counts()}") {
                    node.counter.total() shouldBe callsBefore
                }
            }
            withClue("after the outermost withLock returned") { coroutineHold(lock) shouldBe (false to 0) }
            // And a lease from awaitAcquire is an explicit handle, bound to no coroutine: it does not count
            val lease = lock.awaitAcquire(10.seconds)
            withClue("while this coroutine keeps a lease from awaitAcquire()") { coroutineHold(lock) shouldBe (false to 0) }
            lease.awaitRelease()
        }
    },

    scenario("shouldNotCountALostOrReleasedLeaseAsHeld", "G6, G10", Fault.DELETE_KEY) {
        val a = newClient()
        val lock = a.lock(lockName, options(leaseTime = RENEWED_LEASE))
        // When a body releases its lease by hand, it no longer holds the lock
        val afterRelease = lock.callWithLease(Timing.ACQUIRE_WAIT) { lease ->
            withClue("release() by the body") { lease.release() shouldBe true }
            threadHold(lock)
        }
        withClue("in callWithLease after the body released its lease") { afterRelease shouldBe (false to 0) }
        // And when a body's lease is lost (its lock deleted behind its back), nor does it
        var afterLoss: Pair<Boolean, Int>? = null
        shouldThrow<LeaseLostException> {
            lock.callWithLease(Timing.ACQUIRE_WAIT) { lease ->
                lock.runLocked(Duration.ZERO) {
                    fixture.deleteKey(lockKey())
                    awaitLossIgnoringInterrupts(lease)
                    afterLoss = threadHold(lock)
                }
            }
        }
        withClue("two calls deep in callLocked after the lease was lost") { afterLoss shouldBe (false to 0) }
        // And the same in a coroutine
        coroutineScenario {
            val releasedInBlock = lock.withLock(10.seconds) { lease ->
                lease.awaitRelease()
                coroutineHold(lock)
            }
            withClue("in withLock after the block released its lease") { releasedInBlock shouldBe (false to 0) }
            var lostInBlock: Pair<Boolean, Int>? = null
            shouldThrow<LeaseLostException> {
                lock.withLock(10.seconds) {
                    fixture.deleteKey(lockKey())
                    try {
                        awaitCancellation() // withLock cancels its block on loss
                    } catch (e: CancellationException) {
                        lostInBlock = withContext(NonCancellable) { coroutineHold(lock) }
                        throw e
                    }
                }
            }
            withClue("in withLock after the lease was lost") { lostInBlock shouldBe (false to 0) }
        }
    },
)
