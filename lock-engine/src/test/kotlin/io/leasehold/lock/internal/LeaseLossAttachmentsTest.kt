package io.leasehold.lock.internal

import io.leasehold.lock.LockClient
import io.leasehold.lock.awaitLoss
import io.leasehold.lock.inmemory.InMemoryLockBackend
import io.leasehold.lock.withLock
import kotlin.time.Duration.Companion.seconds
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.yield
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Test

/**
 * A lease held for long, under many short re-entrant blocks and many calls of `lost()`, keeps no
 * trace of them: nothing accumulates on the lease until it ends (a million re-entrant `withLock`
 * calls once grew the heap to 2 GB).
 */
class LeaseLossAttachmentsTest {

    @Test
    fun shouldKeepNothingAttachedToALeaseAfterManyReentrantBlocksAndLostCalls() {
        InMemoryLockBackend().use { redis ->
            LockClient.create(redis).use { client ->
                val lock = client.lock("orders:42")
                val held = runBlocking {
                    lock.withLock(5.seconds) { lease ->
                        repeat(100_000) {
                            lock.withLock { inner -> check(inner === lease) }
                            lease.lost()
                        }
                        repeat(1_000) {
                            val waiting = launch { lease.awaitLoss() }
                            yield()
                            waiting.cancel()
                        }
                        val engineLease = lease as DefaultLease
                        assertEquals(1, engineLease.lossAttachments(), "loss watchers: only the outer block's own")
                        assertEquals(0, lease.lost().numberOfDependents, "dependents left on lost()")
                        engineLease
                    }
                }
                assertEquals(0, held.lossAttachments(), "loss watchers after the outer block ended")
            }
        }
    }
}
