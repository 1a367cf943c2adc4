package io.leasehold.lock.testkit.conformance

import io.leasehold.lock.LeaseLoss
import io.leasehold.lock.LeaseLostException
import io.leasehold.lock.spi.LockBackend
import io.leasehold.lock.spi.LuaScript
import io.leasehold.lock.spi.ScriptNames
import io.leasehold.lock.testkit.ForwardingLockBackend
import io.leasehold.lock.testkit.LockBackendFixture.Fault
import java.time.Duration
import java.util.concurrent.CompletableFuture
import java.util.concurrent.CopyOnWriteArrayList

// G2: owner checks are atomic; a stale lease never deletes or extends another holder's lock.

/**
 * Records the owner argument of every acquire the engine sends. A [ForwardingLockBackend], so that the
 * backend's capabilities (grantsAreComposed, confirmsPartially, isTransient...) reach the engine: Kotlin's
 * `by` delegation did not forward a Java interface's default methods here (through it the engine saw
 * grantsAreComposed() false and sent a quorum place mode 2).
 */
private class OwnerRecordingBackend(delegate: LockBackend) : ForwardingLockBackend(delegate) {
    val owners: MutableList<String> = CopyOnWriteArrayList()

    override fun eval(script: LuaScript, keys: List<String>, args: List<String>): CompletableFuture<Any> {
        if (script.name() == ScriptNames.ACQUIRE) owners += args[0]
        return delegate().eval(script, keys, args)
    }
}

private val HEX_128_BITS = Regex("[0-9a-fA-F]{32}")

internal val staleLeaseScenarios: List<Scenario> = listOf(

    scenario("shouldUseFreshRandomOwnerPerAcquisition", "G2") {
        // Given two nodes whose acquire calls are recorded
        val recorders = mutableListOf<OwnerRecordingBackend>()
        val nodes = List(2) { newNode(wrap = { backend -> OwnerRecordingBackend(backend).also { recorders += it } }) }
        // When the same thread acquires and releases three times on each node
        repeat(3) { nodes.forEach { node -> node.client.lock(lockName).acquire(Timing.ACQUIRE_WAIT).use { } } }
        // Then every acquisition sent its own 128-bit owner value: not a client id, not a thread id
        val owners = recorders.flatMap { it.owners }
        withClue("owner values sent with acquire: $owners") {
            owners.size shouldBe 6
            owners.forEach { it shouldMatch HEX_128_BITS }
            owners.toSet().size shouldBe owners.size
        }
    },

    scenario("shouldNotReleaseAnotherOwnersLock", "G2", Fault.DELETE_KEY) {
        // Given A's lock was deleted behind its back (A does not know: no renewal runs) and B took it
        val a = newClient()
        val b = newClient()
        val c = newClient()
        val stale = a.lock(lockName, options(autoRenew = false)).acquire(Timing.ACQUIRE_WAIT)
        fixture.deleteKey(lockKey())
        val fresh = b.lock(lockName).acquire(Timing.ACQUIRE_WAIT)
        // When A releases its stale lease
        val released = stale.release()
        // Then nothing was released: Redis compared the owner before deleting
        withClue("release() of a stale lease") { released shouldBe false }
        withClue("isLocked() after the stale release") { c.lock(lockName).isLocked shouldBe true }
        withClue("holder after the stale release") {
            c.lock(lockName).inspect().present("inspect()").fencingToken() shouldBe fresh.fencingToken()
        }
        c.lock(lockName).tryAcquire().shouldBeAbsent("tryAcquire() by a third node after the stale release")
        withClue("release() by the real holder") { fresh.release() shouldBe true }
    },

    scenario("shouldNotExtendAnotherOwnersLock", "G2, G6", Fault.DELETE_KEY) {
        // Given A's lock was deleted behind its back and B took it with a 10 s lease and no renewal
        val a = newClient()
        val b = newClient()
        val bLease = Duration.ofSeconds(10)
        val stale = a.lock(lockName, options(autoRenew = false)).acquire(Timing.ACQUIRE_WAIT)
        fixture.deleteKey(lockKey())
        val fresh = b.lock(lockName, options(leaseTime = bLease, autoRenew = false)).acquire(Timing.ACQUIRE_WAIT)
        // When A extends its stale lease far beyond B's
        val thrown = shouldThrow<LeaseLostException> { stale.extend(Duration.ofSeconds(120)) }
        // Then A is told it lost the lock, and B's lock keeps B's token and B's lease
        withClue("loss reason of a lease whose lock another owner holds") {
            thrown.loss().reason() shouldBe LeaseLoss.Reason.STOLEN
        }
        withClue("stale lease isValid() after a failed extend") { stale.isValid shouldBe false }
        val info = b.lock(lockName).inspect().present("inspect() after the stale extend")
        withClue("holder after the stale extend") { info.fencingToken() shouldBe fresh.fencingToken() }
        withClue("holder's TTL after the stale extend (B's lease is $bLease)") { info.remainingTtl() shouldBeLessThanOrEqualTo bLease }
        withClue("release() by the real holder") { fresh.release() shouldBe true }
    },

    scenario("shouldNotReleaseOrExtendAnotherOwnersLockAfterExpiry", "G2, G11") {
        // Given A's short unrenewed lease expired and B took the lock with a 20 s lease
        val a = newClient()
        val b = newClient()
        val bLease = Duration.ofSeconds(20)
        val stale = a.lock(lockName, options(leaseTime = Timing.SHORT_LEASE, autoRenew = false)).acquire(Timing.ACQUIRE_WAIT)
        val fresh = b.lock(lockName, options(leaseTime = bLease, autoRenew = false)).acquire(Timing.ACQUIRE_WAIT)
        // When A releases and extends its expired lease
        withClue("release() of an expired lease") { stale.release() shouldBe false }
        shouldThrow<LeaseLostException> { stale.extend(Duration.ofSeconds(120)) }
        // Then B's lock is untouched
        val info = b.lock(lockName).inspect().present("inspect() after the stale calls")
        withClue("holder after the stale calls") { info.fencingToken() shouldBe fresh.fencingToken() }
        withClue("holder's TTL after the stale extend (B's lease is $bLease)") { info.remainingTtl() shouldBeLessThanOrEqualTo bLease }
        withClue("release() by the real holder") { fresh.release() shouldBe true }
    },
)
