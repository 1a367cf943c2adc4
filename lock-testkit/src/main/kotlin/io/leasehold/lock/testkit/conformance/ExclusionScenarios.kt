package io.leasehold.lock.testkit.conformance

import io.leasehold.lock.LeaseLoss
import java.time.Duration
import java.util.Collections
import java.util.concurrent.atomic.AtomicInteger
import kotlin.math.max

// G1: at most one valid lease per lock name at any time.

/** An unguarded read-modify-write counter: only mutual exclusion keeps its increments from being lost. */
private class RacyCounter {
    @Volatile
    var value: Int = 0
}

internal val exclusionScenarios: List<Scenario> = listOf(

    scenario("shouldKeepMutualExclusionUnderConcurrentFuzz", "G1, G3") {
        // Given three nodes with two threads each, all contending for one lock
        val nodes = List(3) { newClient() }
        val rounds = 25
        val counter = RacyCounter()
        val inside = AtomicInteger()
        val maxInside = AtomicInteger()
        val tokens = Collections.synchronizedList(mutableListOf<Long>()) // appended inside the critical section
        fun critical(token: Long?) {
            maxInside.accumulateAndGet(inside.incrementAndGet(), ::max)
            if (token != null) tokens += token
            val read = counter.value
            Thread.yield() // widen the race window: a second holder would lose an increment here
            counter.value = read + 1
            inside.decrementAndGet()
        }
        // When every thread increments the counter under the lock, half of them through acquire/release
        // (recording fencing tokens) and half through runLocked
        val workers = nodes.flatMapIndexed { n, client ->
            List(2) { t ->
                startThread("fuzz-$n-$t") {
                    repeat(rounds) {
                        val lock = client.lock(lockName)
                        if (t == 0) {
                            lock.acquire(Duration.ofSeconds(60)).use { lease -> critical(lease.fencingToken()) }
                        } else {
                            lock.runLocked(Duration.ofSeconds(60)) { critical(null) }
                        }
                    }
                }
            }
        }
        workers.forEach { it.result.value("fuzz worker ${it.thread.name}", Duration.ofSeconds(120)) }
        // Then no increment was lost, no two threads were ever inside together,
        // and the tokens seen inside the critical section strictly increase
        withClue("at most one thread inside the critical section") { maxInside.get() shouldBe 1 }
        withClue("unguarded counter after ${workers.size * rounds} locked increments") {
            counter.value shouldBe workers.size * rounds
        }
        tokens.toList().zipWithNext().forEach { (earlier, later) ->
            withClue("fencing token after $earlier in critical-section order $tokens") { later shouldBeGreaterThan earlier }
        }
    },

    scenario("shouldRefuseSecondAcquirerWhileHeld", "G1, G9, G10") {
        // Given node A holds the lock
        val a = newClient()
        val b = newClient()
        val lease = a.lock(lockName).acquire(Timing.ACQUIRE_WAIT)
        // When node B, and another acquisition on node A itself, try to take it
        // Then they are refused (acquire* is never reentrant), and A's lease is untouched
        b.lock(lockName).tryAcquire().shouldBeAbsent("tryAcquire() by another node while held")
        b.lock(lockName).tryAcquire(Timing.SHORT_WAIT).shouldBeAbsent("tryAcquire(wait) by another node while held")
        a.lock(lockName).tryAcquire().shouldBeAbsent("a second tryAcquire() on the holding node while held")
        withClue("isLocked() seen from B") { b.lock(lockName).isLocked shouldBe true }
        withClue("holder token seen by B's inspect()") {
            b.lock(lockName).inspect().present("inspect() while held").fencingToken() shouldBe lease.fencingToken()
        }
        withClue("holder lease still valid") { lease.isValid shouldBe true }
        withClue("release() by the holder") { lease.release() shouldBe true }
    },

    scenario("shouldNotBlockIndependentNames", "G1") {
        // Given node A holds one lock
        val a = newClient()
        val b = newClient()
        val other = uniqueName("other")
        val held = a.lock(lockName).acquire(Timing.ACQUIRE_WAIT)
        // When node B takes a lock of another name
        val independent = b.lock(other).tryAcquire().present("tryAcquire() of an independent name")
        // Then both are held at once
        withClue("first lease valid") { held.isValid shouldBe true }
        withClue("independent lease valid") { independent.isValid shouldBe true }
        withClue("independent lock seen as held") { a.lock(other).isLocked shouldBe true }
        withClue("release of first") { held.release() shouldBe true }
        withClue("release of independent") { independent.release() shouldBe true }
    },

    scenario("shouldAcquireRightAfterRelease", "G1, G3") {
        // Given node A held the lock and released it
        val a = newClient()
        val b = newClient()
        val first = a.lock(lockName).acquire(Timing.ACQUIRE_WAIT)
        withClue("release() of a held lease") { first.release() shouldBe true }
        // When node B tries once, without waiting
        val second = b.lock(lockName).tryAcquire().present("tryAcquire() right after release")
        // Then it gets the lock with a greater token, and A is now refused
        second.fencingToken() shouldBeGreaterThan first.fencingToken()
        a.lock(lockName).tryAcquire().shouldBeAbsent("tryAcquire() by the previous holder")
        withClue("release of second") { second.release() shouldBe true }
    },

    scenario("shouldFreeLockWhenLeaseExpires", "G1, G6, G11") {
        // Given node A holds the lock with a short lease and no renewal
        val a = newClient()
        val b = newClient()
        val lease = a.lock(lockName, options(leaseTime = Timing.SHORT_LEASE, autoRenew = false)).acquire(Timing.ACQUIRE_WAIT)
        // When the lease runs out
        val loss = lease.lost().value("lost() of a lease that expires")
        // Then A is told EXPIRED, its lease is no longer valid, and B can take the lock
        withClue("loss reason of an unrenewed lease") { loss.reason() shouldBe LeaseLoss.Reason.EXPIRED }
        withClue("loss names the lock") { loss.lockName() shouldBe lockName }
        withClue("loss carries the lease's token") { loss.fencingToken() shouldBe lease.fencingToken() }
        withClue("isValid() after expiry") { lease.isValid shouldBe false }
        withClue("remaining() after expiry") { lease.remaining() shouldBe Duration.ZERO }
        val next = b.lock(lockName).acquire(Timing.ACQUIRE_WAIT)
        next.fencingToken() shouldBeGreaterThan lease.fencingToken()
        // And releasing the expired lease is a documented no-op that cannot free B's lock
        withClue("release() after loss") { lease.release() shouldBe false }
        withClue("B still holds the lock") { b.lock(lockName).inspect().present("inspect()").fencingToken() shouldBe next.fencingToken() }
    },
)
