package io.leasehold.lock.internal

import io.leasehold.lock.DistributedLock
import io.leasehold.lock.Lease
import io.leasehold.lock.LockClient
import io.leasehold.lock.LockOptions
import io.leasehold.lock.awaitAcquire
import io.leasehold.lock.awaitTryAcquire
import io.leasehold.lock.inmemory.InMemoryLockBackend
import io.leasehold.lock.testkit.driver.Eventually
import io.leasehold.lock.withLock
import java.time.Duration
import java.util.Optional
import java.util.concurrent.CompletableFuture
import java.util.concurrent.atomic.AtomicReference
import kotlin.coroutines.cancellation.CancellationException
import kotlin.time.Duration.Companion.seconds
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.cancel
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import org.junit.jupiter.api.Assertions.assertNull
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test

/**
 * G8 for the Kotlin acquisitions: a coroutine cancelled before `awaitAcquire` (or `awaitTryAcquire`,
 * or `withLock`) returned never receives the lease, and nothing stays locked, even when the lease
 * was already there by the time it came to wait for it (kotlinx's `await` returns a future that is
 * already done without looking at the caller's job). The lock has a 10-minute min-hold time, so that
 * a lease treated as worked under (released after work) would keep the lock taken: only a lease
 * released as unused frees it at once.
 */
class AwaitAcquireCancellationTest {

    private val options = LockOptions.builder().minHoldTime(Duration.ofMinutes(10)).build()

    @Test
    fun shouldNotHandALeaseToACoroutineCancelledWhileItsAcquisitionRan() {
        shouldLeaveNoLockBehind("orders:1") { lock -> lock.awaitAcquire(5.seconds) }
    }

    @Test
    fun shouldNotHandALeaseToACoroutineCancelledWhileItsTryAcquisitionRan() {
        shouldLeaveNoLockBehind("orders:2") { lock -> lock.awaitTryAcquire(5.seconds) }
    }

    @Test
    fun shouldNotRunTheBlockOfACoroutineCancelledWhileItsAcquisitionRan() {
        val entered = AtomicReference<Lease?>(null)
        shouldLeaveNoLockBehind("orders:3") { lock -> lock.withLock(5.seconds) { lease -> entered.set(lease) } }
        assertNull(entered.get(), "the block ran under a lease its cancelled caller should not have received")
    }

    /**
     * The race itself, as it happens: the coroutine is cancelled while its lease waits on the paused
     * callback executor, then the executor goes on; the cancellation may reach the coroutine before
     * or after it suspends, and the lease may reach the future before or after the cancellation.
     */
    @Test
    fun shouldLeaveNoLockWhenTheCoroutineIsCancelledAsItsLeaseArrives() {
        val key = "leasehold:{orders:4}"
        InMemoryLockBackend().use { redis ->
            GateExecutor("await-acquire-callbacks", 1).use { gate ->
                LockClient.builder(redis).callbackExecutor(gate).build().use { client ->
                    gate.pause()
                    val lock = client.lock("orders:4", options)
                    val waiting = CoroutineScope(Dispatchers.Default).launch { lock.awaitAcquire(5.seconds) }
                    Eventually.until("the lease is on its way") { redis.exists(key) && gate.parkedCount() >= 1 }
                    waiting.cancel()
                    gate.resume()
                    runBlocking { waiting.join() }
                    Eventually.until({ "no lock left by the cancelled caller: TTL ${redis.pttl(key)} ms" }) {
                        !redis.exists(key)
                    }
                }
            }
        }
    }

    private fun shouldLeaveNoLockBehind(name: String, acquire: suspend (DistributedLock) -> Any?) {
        InMemoryLockBackend().use { redis ->
            LockClient.create(redis).use { client ->
                val lock = AcquiredBeforeReturning(client.lock(name, options))
                val outcome = AtomicReference<Result<Any?>>()
                runBlocking {
                    launch(Dispatchers.Default) {
                        // Cancelled before it asks; the acquisition then runs to its end before the
                        // coroutine reaches its await: the lease is there when it comes to wait.
                        cancel()
                        outcome.set(runCatching { acquire(lock) })
                    }.join()
                }
                assertTrue(
                    outcome.get().exceptionOrNull() is CancellationException,
                    "a cancelled caller must get a CancellationException, but got ${outcome.get()}",
                )
                Eventually.until("no lock left by the cancelled caller ('$name')") {
                    !redis.exists("leasehold:{$name}")
                }
            }
        }
    }

    /** A lock whose acquisitions return their future only once it has completed. */
    private class AcquiredBeforeReturning(private val lock: DistributedLock) : DistributedLock by lock {
        override fun acquireAsync(wait: Duration): CompletableFuture<Lease> =
            lock.acquireAsync(wait).also { it.handle { _, _ -> }.join() }

        override fun tryAcquireAsync(wait: Duration): CompletableFuture<Optional<Lease>> =
            lock.tryAcquireAsync(wait).also { it.handle { _, _ -> }.join() }
    }
}
