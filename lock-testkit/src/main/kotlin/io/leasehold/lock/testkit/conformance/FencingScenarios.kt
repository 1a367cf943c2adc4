package io.leasehold.lock.testkit.conformance

import io.kotest.assertions.withClue
import io.kotest.matchers.longs.shouldBeGreaterThan
import io.kotest.matchers.shouldBe
import io.leasehold.lock.testkit.LockBackendFixture.Fault

// G3: every acquisition's fencing token is strictly greater than every earlier one for that name.

/** Asserts that [tokens], in acquisition order, strictly increase. */
private fun shouldStrictlyIncrease(tokens: List<Pair<String, Long>>) {
    tokens.zipWithNext().forEach { (earlier, later) ->
        withClue("token of '${later.first}' (${later.second}) after '${earlier.first}' (${earlier.second})") {
            later.second shouldBeGreaterThan earlier.second
        }
    }
}

internal val fencingScenarios: List<Scenario> = listOf(

    scenario("shouldIncreaseFencingTokensAcrossHoldersAndExpiry", "G3") {
        val a = newClient()
        val b = newClient()
        val c = newClient()
        val tokens = mutableListOf<Pair<String, Long>>()
        // Given holders on different nodes, one after another
        a.lock(lockName).acquire(Timing.ACQUIRE_WAIT).use { tokens += "A" to it.fencingToken() }
        b.lock(lockName).acquire(Timing.ACQUIRE_WAIT).use { tokens += "B" to it.fencingToken() }
        // And a holder whose lease expires instead of being released
        val expiring = a.lock(lockName, options(leaseTime = Timing.SHORT_LEASE, autoRenew = false)).acquire(Timing.ACQUIRE_WAIT)
        tokens += "A, left to expire" to expiring.fencingToken()
        // When the next holders take over after the expiry
        c.lock(lockName).acquire(Timing.ACQUIRE_WAIT).use { tokens += "C, after the expiry" to it.fencingToken() }
        b.lock(lockName).acquire(Timing.ACQUIRE_WAIT).use { tokens += "B again" to it.fencingToken() }
        // Then every token is greater than every earlier one
        shouldStrictlyIncrease(tokens)
    },

    scenario("shouldIncreaseFencingTokensAcrossDataLoss", "G3", Fault.FLUSH_ALL) {
        val a = newClient()
        val b = newClient()
        val tokens = mutableListOf<Pair<String, Long>>()
        // Given a released lease and a held one
        a.lock(lockName).acquire(Timing.ACQUIRE_WAIT).use { tokens += "A" to it.fencingToken() }
        val held = b.lock(lockName, options(autoRenew = false)).acquire(Timing.ACQUIRE_WAIT)
        tokens += "B, held across the flush" to held.fencingToken()
        // When all data is lost (locks and fencing counters alike)
        fixture.flushAll()
        // Then the next holders still get greater tokens, across another flush too
        a.lock(lockName).tryAcquire().present("tryAcquire() after the flush").use { tokens += "A, after the flush" to it.fencingToken() }
        fixture.flushAll()
        b.lock(lockName).acquire(Timing.ACQUIRE_WAIT).use { tokens += "B, after a second flush" to it.fencingToken() }
        shouldStrictlyIncrease(tokens)
        withClue("release() of the lease whose lock was flushed") { held.release() shouldBe false }
    },
)
