package io.leasehold.lock

import kotlin.time.Duration.Companion.seconds
import kotlinx.coroutines.async
import kotlinx.coroutines.coroutineScope
import kotlinx.coroutines.test.runTest
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.Test

/**
 * [isHeldInCurrentCoroutine] and [holdCountInCurrentCoroutine] against a fake lock: they follow
 * [withLock]'s reentrancy by coroutine context (G10), and held means a valid lease.
 */
class HoldQueriesTest {

    @Test
    fun shouldCountTheWithLockBlocksOfTheLockThatTheCoroutineRunsIn() = runTest {
        val lock = FakeLock("orders:1")
        assertThat(lock.holdCountInCurrentCoroutine()).isZero()

        lock.withLock(1.seconds) {
            assertThat(lock.isHeldInCurrentCoroutine()).isTrue()
            assertThat(lock.holdCountInCurrentCoroutine()).isEqualTo(1)
            lock.sameLock().withLock(1.seconds) {
                assertThat(lock.holdCountInCurrentCoroutine()).isEqualTo(2)
                lock.withLock(1.seconds) { assertThat(lock.holdCountInCurrentCoroutine()).isEqualTo(3) }
                // A child counts the blocks it was launched in
                assertThat(async { lock.holdCountInCurrentCoroutine() }.await()).isEqualTo(2)
            }
            assertThat(lock.holdCountInCurrentCoroutine()).isEqualTo(1)
            assertThat(FakeLock("orders:2").isHeldInCurrentCoroutine()).isFalse()
        }

        assertThat(lock.isHeldInCurrentCoroutine()).isFalse()
        assertThat(lock.holdCountInCurrentCoroutine()).isZero()
        assertThat(lock.granted).hasSize(1)
    }

    @Test
    fun shouldNotCountASiblingCoroutineOrAnExplicitLease() = runTest {
        val lock = FakeLock("orders:1")
        coroutineScope {
            val sibling = this
            lock.withLock(1.seconds) {
                assertThat(sibling.async { lock.isHeldInCurrentCoroutine() }.await()).isFalse()
            }
        }
        val lease = lock.awaitAcquire(1.seconds)
        assertThat(lease.isValid()).isTrue()
        assertThat(lock.isHeldInCurrentCoroutine()).isFalse()
    }

    @Test
    fun shouldNotCountALeaseThatWasReleasedOrLost() = runTest {
        val lock = FakeLock("orders:1")
        lock.withLock(1.seconds) { lease ->
            lease.awaitRelease()
            assertThat(lock.isHeldInCurrentCoroutine()).isFalse()
            assertThat(lock.holdCountInCurrentCoroutine()).isZero()
            // Re-entering a released lease acquires afresh, and counts from 1 again
            lock.withLock(1.seconds) { assertThat(lock.holdCountInCurrentCoroutine()).isEqualTo(1) }
        }
        var countAfterLoss = -1
        val lost = runCatching {
            lock.withLock(1.seconds) { lease ->
                (lease as FakeLease).loseWith(LeaseLoss.Reason.STOLEN)
                countAfterLoss = lock.holdCountInCurrentCoroutine()
            }
        }
        assertThat(lost.exceptionOrNull()).isInstanceOf(LeaseLostException::class.java)
        assertThat(countAfterLoss).isZero()
    }
}
