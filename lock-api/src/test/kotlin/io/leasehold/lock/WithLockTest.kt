package io.leasehold.lock

import java.util.concurrent.CompletableFuture
import kotlin.coroutines.cancellation.CancellationException
import kotlin.time.Duration.Companion.milliseconds
import kotlin.time.Duration.Companion.seconds
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.NonCancellable
import kotlinx.coroutines.CoroutineStart
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitCancellation
import kotlinx.coroutines.coroutineScope
import kotlinx.coroutines.isActive
import kotlinx.coroutines.launch
import kotlinx.coroutines.test.runCurrent
import kotlinx.coroutines.test.runTest
import kotlinx.coroutines.withContext
import kotlinx.coroutines.yield
import org.assertj.core.api.Assertions.assertThat
import org.assertj.core.api.Assertions.assertThatThrownBy
import org.junit.jupiter.api.Test

/** [withLock] against a fake lock: waiting, release, loss and reentrancy, no engine involved. */
class WithLockTest {

    @Test
    fun shouldRunTheBlockWithTheLeaseAndReleaseAfterwards() = runTest {
        val lock = FakeLock("orders:1")

        val result = lock.withLock(2.seconds) { lease -> "ran with token ${lease.fencingToken()}" }

        assertThat(result).isEqualTo("ran with token 1")
        assertThat(lock.waits).containsExactly(java.time.Duration.ofSeconds(2))
        assertThat(lock.granted.single().releaseCalls.get()).isEqualTo(1)
    }

    @Test
    fun shouldWaitForTheLocksDefaultWaitWhenNoneIsGiven() = runTest {
        val lock = FakeLock("orders:1", LockOptions { defaultWait = 7.seconds })

        lock.withLock { }

        assertThat(lock.waits).containsExactly(java.time.Duration.ofSeconds(7))
    }

    @Test
    fun shouldCancelTheAcquireFutureWhenCancelledWhileWaiting() = runTest {
        val lock = FakeLock("orders:1", grantImmediately = false)
        var blockRan = false
        val waiter = launch { lock.withLock(10.seconds) { blockRan = true } }
        runCurrent()
        assertThat(lock.acquisitions).hasSize(1)

        waiter.cancel()
        waiter.join()

        assertThat(lock.acquisitions.single().isCancelled).isTrue()
        assertThat(blockRan).isFalse()
    }

    @Test
    fun shouldReleaseALeaseThatArrivesJustAsTheWaiterIsCancelled() = runTest {
        val lock = FakeLock("orders:1", grantImmediately = false)
        var blockRan = false
        val waiter = launch { lock.withLock(10.seconds) { blockRan = true } }
        runCurrent()

        // The grant resumes the waiter, but the resumption is only queued on the test dispatcher;
        // the cancel lands before it runs, so the waiter sees CancellationException, not the lease.
        lock.acquisitions.single().complete(lock.newLease())
        waiter.cancel()
        waiter.join()

        assertThat(blockRan).isFalse()
        assertThat(lock.granted.single().releaseCalls.get()).isEqualTo(1)
    }

    @Test
    fun shouldReleaseUnderNonCancellableWhenTheCallerIsCancelledDuringTheBlock() = runTest {
        val lock = FakeLock("orders:1", grantImmediately = false)
        val lease = lock.newLease()
        val releaseReply = CompletableFuture<Boolean>().also { lease.releaseReply = it }
        val blockStarted = CompletableDeferred<Unit>()
        val holder = launch {
            lock.withLock(10.seconds) {
                blockStarted.complete(Unit)
                awaitCancellation()
            }
        }
        runCurrent()
        lock.acquisitions.single().complete(lease)
        blockStarted.await()

        holder.cancel()
        runCurrent()

        assertThat(lease.releaseCalls.get()).isEqualTo(1)
        assertThat(holder.isCompleted).describedAs("withLock waits for its release").isFalse()
        releaseReply.complete(true)
        holder.join()
        assertThat(holder.isCancelled).isTrue()
    }

    @Test
    fun shouldCancelTheBlockAndThrowLeaseLostExceptionWhenTheLeaseIsLost() = runTest {
        val lock = FakeLock("orders:1")
        val blockStarted = CompletableDeferred<FakeLease>()
        var blockCancelled = false
        val holder = async {
            val thrown = runCatching {
                lock.withLock(1.seconds) { lease ->
                    blockStarted.complete(lease as FakeLease)
                    try {
                        awaitCancellation()
                    } catch (e: CancellationException) {
                        blockCancelled = true
                        throw e
                    }
                }
            }.exceptionOrNull()
            thrown to isActive
        }
        val lease = blockStarted.await()

        val loss = lease.loseWith(LeaseLoss.Reason.STOLEN)
        val (thrown, callerStillActive) = holder.await()

        assertThat(thrown).isInstanceOf(LeaseLostException::class.java)
        assertThat((thrown as LeaseLostException).loss()).isSameAs(loss)
        assertThat(blockCancelled).isTrue()
        assertThat(callerStillActive).describedAs("the caller itself is not cancelled").isTrue()
        assertThat(lease.releaseCalls.get()).isEqualTo(1)
    }

    @Test
    fun shouldThrowLeaseLostExceptionEvenWhenTheBlockSwallowsTheCancellation() = runTest {
        val lock = FakeLock("orders:1")

        val thrown = runCatching {
            lock.withLock(1.seconds) { lease ->
                (lease as FakeLease).loseWith(LeaseLoss.Reason.EXPIRED)
                try {
                    awaitCancellation()
                } catch (e: CancellationException) {
                    "pretend nothing happened"
                }
            }
        }.exceptionOrNull()

        assertThat(thrown).isInstanceOf(LeaseLostException::class.java)
        assertThat((thrown as LeaseLostException).loss().reason()).isEqualTo(LeaseLoss.Reason.EXPIRED)
    }

    @Test
    fun shouldThrowLeaseLostExceptionWhenTheLeaseWasLostBeforeTheBlockStarted() = runTest {
        val lock = FakeLock("orders:1", grantImmediately = false)
        val lease = lock.newLease().also { it.loseWith(LeaseLoss.Reason.MAX_HOLD_EXCEEDED) }
        val holder = async { runCatching { lock.withLock(1.seconds) { "done" } } }
        runCurrent()
        lock.acquisitions.single().complete(lease)

        val thrown = holder.await().exceptionOrNull()

        assertThat(thrown).isInstanceOf(LeaseLostException::class.java)
        assertThat(lease.releaseCalls.get()).isEqualTo(1)
    }

    @Test
    fun shouldNotReportALossThatCameAfterTheBlockReturned() = runTest {
        val lock = FakeLock("orders:1")

        val result = lock.withLock(1.seconds) { "done" }
        lock.granted.single().loseWith(LeaseLoss.Reason.EXPIRED)

        assertThat(result).isEqualTo("done")
    }

    @Test
    fun shouldReportALossDeclaredAfterTheBlockReturnedButBeforeItsRelease() = runTest {
        val lock = FakeLock("orders:1")

        // The loss wins the race with the release: the lease was not held when withLock released it,
        // so the block's work may have overlapped with another holder. callLocked says so; so must this.
        val thrown = runCatching {
            lock.withLock(1.seconds) { lease ->
                (lease as FakeLease).loseJustBeforeRelease = LeaseLoss.Reason.EXPIRED
                "done"
            }
        }.exceptionOrNull()

        assertThat(thrown).isInstanceOf(LeaseLostException::class.java)
        assertThat((thrown as LeaseLostException).loss().reason()).isEqualTo(LeaseLoss.Reason.EXPIRED)
    }

    @Test
    fun shouldReleaseAndRethrowWhenTheBlockThrows() = runTest {
        val lock = FakeLock("orders:1")

        val thrown = runCatching { lock.withLock(1.seconds) { throw IllegalStateException("boom") } }.exceptionOrNull()

        assertThat(thrown).isInstanceOf(IllegalStateException::class.java).hasMessage("boom")
        assertThat(lock.granted.single().releaseCalls.get()).isEqualTo(1)
    }

    @Test
    fun shouldRethrowTheBlocksOwnExceptionInstance() = runTest {
        // Tests run with -ea, which turns on kotlinx's stack-trace recovery: an exception that
        // crosses a scope boundary would arrive as a copy. withLock must hand back the original.
        val lock = FakeLock("orders:1")
        val boom = IllegalStateException("boom")

        val thrownAtOnce = runCatching { lock.withLock(1.seconds) { throw boom } }.exceptionOrNull()
        val thrownAfterSuspending = runCatching {
            lock.withLock(1.seconds) {
                yield()
                throw boom
            }
        }.exceptionOrNull()

        assertThat(thrownAtOnce).isSameAs(boom)
        assertThat(thrownAfterSuspending).isSameAs(boom)
    }

    @Test
    fun shouldCancelTheBlocksChildrenWhenTheBlockThrows() = runTest {
        val lock = FakeLock("orders:1")
        var childCancelled = false

        val thrown = runCatching {
            lock.withLock(1.seconds) {
                launch {
                    try {
                        awaitCancellation()
                    } finally {
                        childCancelled = true
                    }
                }
                yield()
                throw IllegalStateException("boom")
            }
        }.exceptionOrNull()

        assertThat(thrown).hasMessage("boom")
        assertThat(childCancelled).isTrue()
        assertThat(lock.granted.single().releaseCalls.get()).isEqualTo(1)
    }

    @Test
    fun shouldReturnTheBlocksResultWhenTheReleaseCannotBeConfirmed() = runTest {
        // The block ended while the lease was valid: an unreachable Redis at the release is no failure of
        // the call (the lock expires on its own; the listeners and the log say so).
        val lock = FakeLock("orders:1", grantImmediately = false)
        val lease = lock.newLease().also { it.releaseReply = CompletableFuture.failedFuture(backendDown()) }
        val holder = async { runCatching { lock.withLock(1.seconds) { "done" } } }
        runCurrent()
        lock.acquisitions.single().complete(lease)

        assertThat(holder.await().getOrNull()).isEqualTo("done")
    }

    @Test
    fun shouldThrowTheBlocksOwnExceptionAloneWhenTheReleaseCannotBeConfirmed() = runTest {
        val lock = FakeLock("orders:1", grantImmediately = false)
        val lease = lock.newLease().also { it.releaseReply = CompletableFuture.failedFuture(backendDown()) }
        val holder = async { runCatching { lock.withLock(1.seconds) { throw IllegalStateException("boom") } } }
        runCurrent()
        lock.acquisitions.single().complete(lease)

        val thrown = holder.await().exceptionOrNull()

        assertThat(thrown).isInstanceOf(IllegalStateException::class.java)
        assertThat(thrown!!.suppressed).isEmpty()
    }

    @Test
    fun shouldReuseTheHeldLeaseInTheSameCoroutineWithoutAcquiring() = runTest {
        val lock = FakeLock("orders:1")
        val equalHandle = lock.sameLock()

        val (outer, inner) = lock.withLock(1.seconds) { outer ->
            outer to equalHandle.withLock(1.milliseconds) { inner -> inner }
        }

        assertThat(inner).isSameAs(outer)
        assertThat(lock.acquisitions.size + equalHandle.acquisitions.size).isEqualTo(1)
        assertThat((outer as FakeLease).releaseCalls.get()).describedAs("only the outermost releases").isEqualTo(1)
    }

    @Test
    fun shouldReuseTheHeldLeaseInAChildCoroutine() = runTest {
        val lock = FakeLock("orders:1")

        val (outer, inChild) = lock.withLock(1.seconds) { outer ->
            outer to async { lock.withLock(1.seconds) { it } }.await()
        }

        assertThat(inChild).isSameAs(outer)
        assertThat(lock.acquisitions).hasSize(1)
    }

    @Test
    fun shouldNotShareTheLeaseWithASiblingCoroutine() = runTest {
        val lock = FakeLock("orders:1")
        val firstHolds = CompletableDeferred<Lease>()
        val siblingDone = CompletableDeferred<Lease>()

        coroutineScope {
            launch {
                lock.withLock(1.seconds) { lease ->
                    firstHolds.complete(lease)
                    siblingDone.await()
                }
            }
            launch(start = CoroutineStart.UNDISPATCHED) {
                firstHolds.await()
                lock.withLock(1.seconds) { lease -> siblingDone.complete(lease) }
            }
        }

        assertThat(lock.acquisitions).hasSize(2)
        assertThat(siblingDone.await()).isNotSameAs(firstHolds.await())
    }

    @Test
    fun shouldNotReuseTheLeaseOfAnotherLock() = runTest {
        val orders = FakeLock("orders:1")
        val payments = FakeLock("payments:1")

        orders.withLock(1.seconds) { payments.withLock(1.seconds) { } }

        assertThat(orders.acquisitions).hasSize(1)
        assertThat(payments.acquisitions).hasSize(1)
    }

    @Test
    fun shouldAcquireAgainWhenTheHeldLeaseIsNoLongerValid() = runTest {
        val lock = FakeLock("orders:1")

        lock.withLock(1.seconds) { outer ->
            outer.awaitRelease()
            lock.withLock(1.seconds) { inner -> assertThat(inner).isNotSameAs(outer) }
        }

        assertThat(lock.acquisitions).hasSize(2)
    }

    @Test
    fun shouldThrowLeaseLostExceptionWhenReenteringALockWhoseLeaseWasLost() = runTest {
        val lock = FakeLock("orders:1")
        var innerFailure: Throwable? = null

        val outerFailure = runCatching {
            lock.withLock(1.seconds) { lease ->
                (lease as FakeLease).loseWith(LeaseLoss.Reason.STOLEN)
                innerFailure = runCatching { withContext(NonCancellable) { lock.withLock(1.seconds) { } } }.exceptionOrNull()
            }
        }.exceptionOrNull()

        assertThat(innerFailure).isInstanceOf(LeaseLostException::class.java)
        assertThat(outerFailure).isInstanceOf(LeaseLostException::class.java)
        assertThat(lock.acquisitions).hasSize(1)
    }

    @Test
    fun shouldPropagateAContendedLockAsLockTimeoutException() = runTest {
        val lock = FakeLock("orders:1", grantImmediately = false)
        val holder = async { runCatching { lock.withLock(1.seconds) { "never" } } }
        runCurrent()

        lock.acquisitions.single().completeExceptionally(LockTimeoutException("orders:1", java.time.Duration.ofSeconds(1)))

        assertThat(holder.await().exceptionOrNull()).isInstanceOf(LockTimeoutException::class.java)
    }

    private fun backendDown() = LockBackendException("orders:1", "release failed", RuntimeException("connection refused"))
}
