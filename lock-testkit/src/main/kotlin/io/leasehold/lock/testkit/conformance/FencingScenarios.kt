package io.leasehold.lock.testkit.conformance

import io.leasehold.lock.spi.LockKeys
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

    scenario("shouldIncreaseFencingTokensWhenTheCounterFallsBehind", "G3", Fault.WRITE_KEY) {
        val a = newClient()
        val b = newClient()
        val tokens = mutableListOf<Pair<String, Long>>()
        a.lock(lockName).acquire(Timing.ACQUIRE_WAIT).use { tokens += "A" to it.fencingToken() }
        b.lock(lockName).acquire(Timing.ACQUIRE_WAIT).use { tokens += "B" to it.fencingToken() }
        // When the counter falls behind the tokens already handed out, as on a promoted replica that
        // missed the latest increments
        val fenceKey = LockKeys.fenceKey(ScenarioContext.KEY_PREFIX, lockName)
        fixture.writeKey(fenceKey, (tokens.first().second - 1).toString())
        // Then the next holders still get greater tokens than every earlier one
        a.lock(lockName).acquire(Timing.ACQUIRE_WAIT).use { tokens += "A, after the counter fell behind" to it.fencingToken() }
        fixture.writeKey(fenceKey, "1")
        b.lock(lockName).acquire(Timing.ACQUIRE_WAIT).use { tokens += "B, after the counter was reset to 1" to it.fencingToken() }
        shouldStrictlyIncrease(tokens)
    },
)
