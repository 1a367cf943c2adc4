package io.leasehold.examples.readme

// The README's Kotlin quick start: everything between the markers is copied into README.md verbatim
// (ReadmeSnippetsTest checks it), and ReadmeQuickStartsTest runs it against a real redis-server.
// README:kotlin-quick-start:begin
import io.leasehold.lock.DistributedLock
import io.leasehold.lock.LockOptions
import io.leasehold.lock.lettuce.LettuceLockBackend
import io.leasehold.lock.withLock
import io.lettuce.core.RedisClient
import kotlin.time.Duration.Companion.seconds
import kotlinx.coroutines.runBlocking

fun main(args: Array<String>) {
    val redis = RedisClient.create(args.firstOrNull() ?: "redis://localhost:6379")
    try {
        LettuceLockBackend.lockClient(redis).use { locks ->                 // one per application
            val lock = locks.lock("orders:42", LockOptions { leaseTime = 10.seconds })
            runBlocking { ship("order 42", lock) }
        }
    } finally {
        redis.shutdown() // the Redis client stays yours
    }
}

suspend fun ship(order: String, lock: DistributedLock) = lock.withLock(wait = 5.seconds) { lease ->
    write(order, lease.fencingToken()) // cancelled if the lease is lost; then LeaseLostException
    lock.withLock { audit(order) }     // re-entrant in this coroutine and its children: no Redis call
}

// Your code: the work the lock protects.
fun write(order: String, fencingToken: Long) = println("wrote $order with fencing token $fencingToken")

fun audit(order: String) = println("audited $order")
// README:kotlin-quick-start:end
