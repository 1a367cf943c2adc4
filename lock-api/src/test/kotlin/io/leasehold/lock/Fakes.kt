package io.leasehold.lock

import java.time.Duration
import java.time.Instant
import java.util.Optional
import java.util.concurrent.Callable
import java.util.concurrent.CompletableFuture
import java.util.concurrent.CompletionStage
import java.util.concurrent.atomic.AtomicInteger
import java.util.function.Function

/**
 * A lock whose acquisitions the test completes by hand ([grantImmediately] = false) or that grants
 * each one at once. Handles with the same name are `equals`, as the engine's are for one client.
 * Only what the Kotlin extensions call is implemented.
 */
class FakeLock(
    private val name: String,
    private val options: LockOptions = LockOptions.defaults(),
    private val grantImmediately: Boolean = true,
    private val leases: MutableList<FakeLease> = mutableListOf(),
) : DistributedLock {

    /** Every acquireAsync/tryAcquireAsync future handed out, oldest first. */
    val acquisitions: MutableList<CompletableFuture<Lease>> = mutableListOf()
    val tryAcquisitions: MutableList<CompletableFuture<Optional<Lease>>> = mutableListOf()
    val waits: MutableList<Duration> = mutableListOf()

    /** The leases granted so far (shared by handles created with [sameLock]). */
    val granted: List<FakeLease> get() = leases

    /** Another handle, equal to this one, sharing its granted-leases list. */
    fun sameLock(): FakeLock = FakeLock(name, options, grantImmediately, leases)

    fun newLease(): FakeLease = FakeLease(name, leases.size + 1L).also { leases += it }

    override fun name(): String = name

    override fun options(): LockOptions = options

    override fun acquireAsync(wait: Duration): CompletableFuture<Lease> {
        waits += wait
        val future = CompletableFuture<Lease>()
        acquisitions += future
        if (grantImmediately) future.complete(newLease())
        return future
    }

    override fun tryAcquireAsync(wait: Duration): CompletableFuture<Optional<Lease>> {
        waits += wait
        val future = CompletableFuture<Optional<Lease>>()
        tryAcquisitions += future
        return future
    }

    override fun acquire(wait: Duration): Lease {
        waits += wait
        return newLease()
    }

    override fun tryAcquire(): Optional<Lease> = tryAcquire(Duration.ZERO)

    override fun tryAcquire(wait: Duration): Optional<Lease> {
        waits += wait
        return Optional.empty()
    }

    override fun <T : Any> callLocked(wait: Duration, body: Callable<T>): T = throw UnsupportedOperationException()

    override fun runLocked(wait: Duration, body: Runnable): Unit = throw UnsupportedOperationException()

    override fun <T : Any> callWithLease(wait: Duration, body: LeaseCallable<T>): T = throw UnsupportedOperationException()

    override fun runWithLease(wait: Duration, body: java.util.function.Consumer<Lease>): Unit = throw UnsupportedOperationException()

    override fun <T : Any> callLockedAsync(wait: Duration, body: Function<Lease, out CompletionStage<T>>): CompletableFuture<T> =
        throw UnsupportedOperationException()

    override fun isLocked(): Boolean = leases.any { it.isValid() }

    override fun inspect(): Optional<LockInfo> = throw UnsupportedOperationException()

    override fun isHeldByCurrentThread(): Boolean = throw UnsupportedOperationException()

    override fun holdCount(): Int = throw UnsupportedOperationException()

    override fun forceRelease(): Boolean = throw UnsupportedOperationException()

    override fun equals(other: Any?): Boolean = other is FakeLock && other.name == name

    override fun hashCode(): Int = name.hashCode()

    override fun toString(): String = "FakeLock($name)"
}

/** A lease whose loss and release replies the test controls. */
class FakeLease(private val lockName: String, private val token: Long) : Lease {

    val lost: CompletableFuture<LeaseLoss> = CompletableFuture()
    val releaseCalls = AtomicInteger()
    val extensions: MutableList<Duration> = mutableListOf()

    /** When set, the engine "declares the loss" just before a release asks for the state change. */
    var loseJustBeforeRelease: LeaseLoss.Reason? = null

    /** What the next releaseAsync returns; completed with true unless the test replaces it. */
    var releaseReply: CompletableFuture<Boolean> = CompletableFuture.completedFuture(true)
    var extendReply: CompletableFuture<Void> = CompletableFuture.completedFuture(null)

    @Volatile
    var released = false
        private set

    fun loseWith(reason: LeaseLoss.Reason): LeaseLoss =
        LeaseLoss(lockName, token, reason, Instant.now(), null).also { lost.complete(it) }

    override fun lockName(): String = lockName

    override fun fencingToken(): Long = token

    override fun remaining(): Duration = if (isValid()) Duration.ofSeconds(30) else Duration.ZERO

    override fun isValid(): Boolean = !released && !lost.isDone

    override fun state(): LeaseState = when {
        lost.isDone -> LeaseState.LOST
        released -> LeaseState.RELEASED
        else -> LeaseState.HELD
    }

    override fun lost(): CompletableFuture<LeaseLoss> = lost

    override fun release(): Boolean = throw UnsupportedOperationException("the Kotlin API must not block")

    override fun releaseAsync(): CompletableFuture<Boolean> {
        releaseCalls.incrementAndGet()
        loseJustBeforeRelease?.let { reason ->
            loseWith(reason)
            return CompletableFuture.completedFuture(false)
        }
        released = true
        return releaseReply
    }

    override fun extend(leaseTime: Duration) {
        extensions += leaseTime
    }

    override fun extendAsync(leaseTime: Duration): CompletableFuture<Void> {
        extensions += leaseTime
        return extendReply
    }

    override fun close() {
        releaseAsync()
    }

    override fun toString(): String = "FakeLease($lockName, $token)"
}
