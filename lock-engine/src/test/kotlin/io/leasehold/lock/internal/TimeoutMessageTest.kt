package io.leasehold.lock.internal

import io.leasehold.lock.inmemory.InMemoryLockBackend
import io.leasehold.lock.LockClient
import io.leasehold.lock.LockTimeoutException
import io.leasehold.lock.awaitAcquire
import io.leasehold.lock.withLock
import java.time.Duration
import java.util.concurrent.CompletableFuture
import java.util.concurrent.CountDownLatch
import java.util.concurrent.TimeUnit
import kotlin.time.Duration.Companion.milliseconds
import kotlin.time.Duration.Companion.seconds
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.async
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeout
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Assertions.assertFalse
import org.junit.jupiter.api.Assertions.assertInstanceOf
import org.junit.jupiter.api.Assertions.assertThrows
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test

/**
 * What a [LockTimeoutException] says about who holds the lock: another owner, another lease of this
 * very client (two threads or two coroutines contending: no reentrancy involved), or the caller
 * itself re-entering with a non-reentrant acquire (by the reentrancy rules of G10). And the wait is
 * printed as people read it (`300 ms`, not `PT0.3S`).
 */
class TimeoutMessageTest {

    private val redis = InMemoryLockBackend()
    private val client = LockClient.create(redis)
    private val otherNode = LockClient.create(redis.newNode())

    @AfterEach
    fun close() {
        otherNode.close()
        client.close()
        redis.close()
    }

    @Test
    fun shouldNotBlameReentrancyWhenTwoCoroutinesContend() = coroutineTest {
        val lock = client.lock(NAME)
        // Given one coroutine holds the lock in withLock
        val held = CompletableDeferred<Unit>()
        val done = CompletableDeferred<Unit>()
        val holder = launch { lock.withLock(10.seconds) { held.complete(Unit); done.await() } }
        held.await()
        // When an independent coroutine of the same client waits for it in vain
        val failure = async { runCatching { lock.withLock(300.milliseconds) { } } }.await().exceptionOrNull()
        done.complete(Unit)
        holder.join()
        // Then the timeout says another lease of this client holds it, without a reentrancy hint
        val timeout = assertInstanceOf(LockTimeoutException::class.java, failure)
        assertHeldByAnotherLeaseOfThisClient(timeout)
    }

    @Test
    fun shouldNotBlameReentrancyWhenTwoThreadsContend() {
        val lock = client.lock(NAME)
        // Given one thread holds the lock in runLocked
        val held = CountDownLatch(1)
        val done = CountDownLatch(1)
        val holder = CompletableFuture.runAsync {
            lock.runLocked(WAIT) {
                held.countDown()
                done.await(30, TimeUnit.SECONDS)
            }
        }
        assertTrue(held.await(10, TimeUnit.SECONDS), "the holder thread took the lock")
        // When another thread of the same client waits for it in vain, blocking and in a body
        val blocking = assertThrows(LockTimeoutException::class.java) { lock.acquire(SHORT_WAIT) }
        val body = assertThrows(LockTimeoutException::class.java) { lock.runLocked(SHORT_WAIT) { } }
        done.countDown()
        holder.get(10, TimeUnit.SECONDS)
        // Then neither timeout blames reentrancy
        assertHeldByAnotherLeaseOfThisClient(blocking)
        assertHeldByAnotherLeaseOfThisClient(body)
    }

    @Test
    fun shouldBlameReentrancyWhenAThreadAcquiresInsideItsOwnRunLocked() {
        val lock = client.lock(NAME)
        var thrown: LockTimeoutException? = null
        // When a thread inside runLocked asks for the same lock with the non-reentrant acquire
        lock.runLocked(WAIT) {
            thrown = assertThrows(LockTimeoutException::class.java) { client.lock(NAME).acquire(SHORT_WAIT) }
        }
        // Then the timeout says the caller holds it itself, and that acquire is not reentrant
        assertHeldByTheCaller(thrown!!)
    }

    @Test
    fun shouldBlameReentrancyWhenAThreadAcquiresAgainWhileHoldingItsLease() {
        val lock = client.lock(NAME)
        // Given this thread took a lease with a blocking acquire and still holds it
        lock.acquire(WAIT).use {
            // When it asks for the lock again
            val thrown = assertThrows(LockTimeoutException::class.java) { lock.acquire(SHORT_WAIT) }
            // Then the timeout says the caller holds it itself
            assertHeldByTheCaller(thrown)
        }
    }

    @Test
    fun shouldBlameReentrancyWhenACoroutineAwaitsAcquireInsideItsWithLock() = coroutineTest {
        val lock = client.lock(NAME)
        // When a coroutine inside withLock asks for the same lock with the non-reentrant awaitAcquire
        val failure = lock.withLock(10.seconds) { runCatching { lock.awaitAcquire(300.milliseconds) } }.exceptionOrNull()
        // Then the timeout says the caller holds it itself
        assertHeldByTheCaller(assertInstanceOf(LockTimeoutException::class.java, failure))
    }

    @Test
    fun shouldSayAnotherOwnerHoldsItWithTheWaitAsPeopleReadIt() {
        otherNode.lock(NAME).acquire(WAIT).use {
            val thrown = assertThrows(LockTimeoutException::class.java) { client.lock(NAME).acquire(Duration.ofMillis(1500)) }
            assertFalse(thrown.heldByThisClient(), "heldByThisClient() of $thrown")
            assertFalse(thrown.heldByCaller(), "heldByCaller() of $thrown")
            assertMentions(thrown, "lock '$NAME' is held by another owner", "gave up after waiting 1.5 s")
            assertFalse(thrown.message!!.contains("PT"), "an ISO-8601 duration in: ${thrown.message}")
        }
    }

    private fun assertHeldByAnotherLeaseOfThisClient(thrown: LockTimeoutException) {
        assertTrue(thrown.heldByThisClient(), "heldByThisClient() of $thrown")
        assertFalse(thrown.heldByCaller(), "heldByCaller() of $thrown")
        assertMentions(thrown, "lock '$NAME' is held by another lease of this client", "gave up after waiting 300 ms")
        assertFalse(thrown.message!!.contains("reentrant"), "a reentrancy hint in: ${thrown.message}")
    }

    private fun assertHeldByTheCaller(thrown: LockTimeoutException) {
        assertTrue(thrown.heldByThisClient(), "heldByThisClient() of $thrown")
        assertTrue(thrown.heldByCaller(), "heldByCaller() of $thrown")
        assertMentions(thrown, "lock '$NAME' is already held by this caller", "not reentrant", "gave up after waiting 300 ms")
    }

    private fun assertMentions(thrown: Throwable, vararg parts: String) {
        parts.forEach { part -> assertTrue(thrown.message!!.contains(part), "'$part' in: ${thrown.message}") }
    }

    private fun <T> coroutineTest(block: suspend kotlinx.coroutines.CoroutineScope.() -> T): Unit =
        runBlocking(Dispatchers.Default) { withTimeout(60.seconds) { block() } }.let { }

    private companion object {
        const val NAME = "orders:42"
        val WAIT: Duration = Duration.ofSeconds(10)
        val SHORT_WAIT: Duration = Duration.ofMillis(300)
    }
}
