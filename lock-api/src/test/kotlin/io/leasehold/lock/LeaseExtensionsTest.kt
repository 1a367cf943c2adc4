package io.leasehold.lock

import java.util.Optional
import java.util.concurrent.CompletableFuture
import kotlin.time.Duration.Companion.milliseconds
import kotlin.time.Duration.Companion.seconds
import kotlinx.coroutines.async
import kotlinx.coroutines.launch
import kotlinx.coroutines.test.runCurrent
import kotlinx.coroutines.test.runTest
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.Test

/** The await* twins and kotlin.time overloads against fakes. */
class LeaseExtensionsTest {

    @Test
    fun shouldReturnTheLossOnceTheLeaseIsLost() = runTest {
        val lease = FakeLease("orders:1", 7)
        val watcher = async { lease.awaitLoss() }
        runCurrent()

        val loss = lease.loseWith(LeaseLoss.Reason.BACKEND_UNAVAILABLE)

        assertThat(watcher.await()).isSameAs(loss)
    }

    @Test
    fun shouldLeaveTheLossSignalUntouchedWhenAWatcherIsCancelled() = runTest {
        val lease = FakeLease("orders:1", 7)
        val watcher = launch { lease.awaitLoss() }
        runCurrent()

        watcher.cancel()
        watcher.join()

        assertThat(lease.lost().isDone).describedAs("lost() must only ever complete on a loss").isFalse()
    }

    @Test
    fun shouldNotCancelTheReleaseWhenTheCallerIsCancelled() = runTest {
        val lease = FakeLease("orders:1", 7)
        val reply = CompletableFuture<Boolean>().also { lease.releaseReply = it }
        val releaser = launch { lease.awaitRelease() }
        runCurrent()

        releaser.cancel()
        releaser.join()

        assertThat(reply.isCancelled).isFalse()
        assertThat(lease.releaseCalls.get()).isEqualTo(1)
    }

    @Test
    fun shouldReturnWhetherTheReleaseDeletedTheLock() = runTest {
        val lease = FakeLease("orders:1", 7).also { it.releaseReply = CompletableFuture.completedFuture(false) }

        assertThat(lease.awaitRelease()).isFalse()
    }

    @Test
    fun shouldExtendWithTheJavaDurationOfTheKotlinOne() = runTest {
        val lease = FakeLease("orders:1", 7)

        lease.awaitExtend(1500.milliseconds)
        lease.extend(3.seconds)

        assertThat(lease.extensions).containsExactly(java.time.Duration.ofMillis(1500), java.time.Duration.ofSeconds(3))
    }

    @Test
    fun shouldReturnNullWhenTryAcquireFindsTheLockHeld() = runTest {
        val lock = FakeLock("orders:1")
        val attempt = async { lock.awaitTryAcquire() }
        runCurrent()

        lock.tryAcquisitions.single().complete(Optional.empty())

        assertThat(attempt.await()).isNull()
        assertThat(lock.waits).containsExactly(java.time.Duration.ZERO)
    }

    @Test
    fun shouldReturnTheLeaseWhenTryAcquireGetsTheLock() = runTest {
        val lock = FakeLock("orders:1")
        val attempt = async { lock.awaitTryAcquire(2.seconds) }
        runCurrent()
        val lease = lock.newLease()

        lock.tryAcquisitions.single().complete(Optional.of(lease))

        assertThat(attempt.await()).isSameAs(lease)
    }

    @Test
    fun shouldReleaseATryAcquiredLeaseThatArrivesJustAsTheCallerIsCancelled() = runTest {
        val lock = FakeLock("orders:1")
        val attempt = launch { lock.awaitTryAcquire(2.seconds) }
        runCurrent()
        val lease = lock.newLease()

        lock.tryAcquisitions.single().complete(Optional.of(lease))
        attempt.cancel()
        attempt.join()

        assertThat(lease.releaseCalls.get()).isEqualTo(1)
    }

    @Test
    fun shouldCancelTheAcquisitionWhenAwaitAcquireIsCancelled() = runTest {
        val lock = FakeLock("orders:1", grantImmediately = false)
        val attempt = launch { lock.awaitAcquire(5.seconds) }
        runCurrent()

        attempt.cancel()
        attempt.join()

        assertThat(lock.acquisitions.single().isCancelled).isTrue()
    }

    @Test
    fun shouldOfferKotlinDurationOverloadsOfTheBlockingCalls() {
        val lock = FakeLock("orders:1")

        val lease: Lease = lock.acquire(250.milliseconds)
        val none: Lease? = lock.tryAcquire(1.seconds)

        assertThat(lease.fencingToken()).isEqualTo(1)
        assertThat(none).isNull()
        assertThat(lock.waits).containsExactly(java.time.Duration.ofMillis(250), java.time.Duration.ofSeconds(1))
    }
}
