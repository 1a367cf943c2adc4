package io.leasehold.lock.testkit.conformance

import io.leasehold.lock.LeaseLoss
import io.leasehold.lock.spi.LockBackend
import io.leasehold.lock.spi.ScriptNames
import io.leasehold.lock.testkit.LockBackendFixture.Fault
import java.time.Duration

// G5: auto-renew by default, batched into few calls, bounded by max hold; G6 for the max-hold signal.

/**
 * [count] lock names whose keys share one cluster slot (any names on a non-cluster backend), so
 * that a batching engine may renew them all in one call whatever the topology.
 */
private fun ScenarioContext.sameSlotNames(backend: LockBackend, count: Int): List<String> {
    val base = uniqueName("batch")
    val slot = backend.slot(lockKey("$base-0"))
    val names = mutableListOf("$base-0")
    var i = 1
    while (names.size < count) {
        check(i < 20_000_000) { "found only ${names.size} names in slot $slot" }
        val candidate = "$base-$i"
        if (backend.slot(lockKey(candidate)) == slot) names += candidate
        i++
    }
    return names
}

internal val renewalScenarios: List<Scenario> = listOf(

    scenario("shouldKeepLockPastSeveralLeaseTimesWithAutoRenew", "G5") {
        // Given a lease of 800 ms with auto-renew on
        val a = newClient()
        val b = newClient()
        val lease = a.lock(lockName, options(leaseTime = Timing.SHORT_LEASE, autoRenew = true)).acquire(Timing.ACQUIRE_WAIT)
        // When it is held for more than three lease times
        hold(Timing.SHORT_LEASE.multipliedBy(3).plusMillis(300))
        // Then it is still valid and still the lock's holder
        withClue("lost() after holding past 3 lease times: ${lease.lost().getNow(null)}") { lease.lost().isDone shouldBe false }
        withClue("isValid() after holding past 3 lease times") { lease.isValid shouldBe true }
        withClue("isLocked() seen from another node") { b.lock(lockName).isLocked shouldBe true }
        withClue("holder token seen from another node") {
            b.lock(lockName).inspect().present("inspect()").fencingToken() shouldBe lease.fencingToken()
        }
        b.lock(lockName).tryAcquire().shouldBeAbsent("tryAcquire() by another node")
        withClue("release()") { lease.release() shouldBe true }
    },

    scenario("shouldBatchRenewalsOfManyLeases", "G5") {
        // Given one node holding 40 leases of 900 ms with auto-renew (renewed about every 300 ms)
        val node = newNode()
        val leaseTime = Duration.ofMillis(900)
        val names = sameSlotNames(node.counter.delegate(), 40)
        val leases = names.map { node.client.lock(it, options(leaseTime = leaseTime, autoRenew = true)).acquire(Timing.ACQUIRE_WAIT) }
        node.counter.reset()
        // When they are held for well over two lease times (at least two renewal rounds for each)
        val held = Duration.ofMillis(2000)
        hold(held)
        val renewCalls = node.counter.count(ScriptNames.RENEW)
        // Then every lease is still valid, so each was renewed, but with far fewer calls than leases
        leases.forEachIndexed { i, lease -> withClue("lease $i valid after $held") { lease.isValid shouldBe true } }
        withClue("renew calls while holding ${leases.size} leases for $held (one call per lease per round would be at least ${leases.size * 2}); all calls: ${node.counter.counts()}") {
            renewCalls shouldBeGreaterThanOrEqual 2
            renewCalls shouldBeLessThanOrEqual (leases.size / 2).toLong()
        }
        leases.forEach { it.release() }
    },

    scenario("shouldStopRenewalAtMaxHoldAndSignalMaxHoldExceeded", "G5, G6") {
        // Given a 600 ms lease with auto-renew, bounded by a max hold of 1.5 s
        val listener = RecordingListener()
        val a = newClient { listener(listener) }
        val b = newClient()
        val leaseTime = Duration.ofMillis(600)
        val maxHold = Duration.ofMillis(1500)
        val start = System.nanoTime()
        val lease = a.lock(lockName, options(leaseTime = leaseTime, autoRenew = true, maxHoldTime = maxHold)).acquire(Timing.ACQUIRE_WAIT)
        // When it is held past the bound
        val loss = lease.lost().value("lost() of a lease bounded by max hold")
        val lostAfter = elapsedSince(start)
        // Then renewal kept it past its lease time, then stopped, and the loss says MAX_HOLD_EXCEEDED
        withClue("loss reason") { loss.reason() shouldBe LeaseLoss.Reason.MAX_HOLD_EXCEEDED }
        withClue("time until the loss (renewal must have run past one lease of $leaseTime)") { lostAfter shouldBeGreaterThanOrEqualTo leaseTime }
        withClue("isValid() after max hold") { lease.isValid shouldBe false }
        await("the listener hears of the loss") { listener.losses.any { it.reason() == LeaseLoss.Reason.MAX_HOLD_EXCEEDED } }
        // And the lock is free for others once the lease is over
        b.lock(lockName).acquire(Timing.ACQUIRE_WAIT).use { }
    },

    scenario("shouldKeepAnAutoRenewedLeaseAfterExtendingItToAShorterTime", "G5, G6") {
        // Given a 30 s auto-renewed lease (renewed every 10 s)
        val a = newClient()
        val lease = a.lock(lockName).acquire(Timing.ACQUIRE_WAIT)
        // When it is extended to 900 ms, far below its renewal period
        lease.extend(Duration.ofMillis(900))
        hold(Duration.ofMillis(2500))
        // Then the watchdog renews it in time (back to the lock's lease time): no false loss
        withClue("lost() after extending to 900 ms and holding 2.5 s: ${lease.lost().getNow(null)}") { lease.lost().isDone shouldBe false }
        withClue("isValid()") { lease.isValid shouldBe true }
        val ttl = a.lock(lockName).inspect().present("inspect()").remainingTtl()
        withClue("TTL in Redis after the watchdog renewed the shortened lease") { ttl shouldBeGreaterThanOrEqualTo Duration.ofSeconds(2) }
        withClue("release()") { lease.release() shouldBe true }
    },

    scenario("shouldRenewOtherLeasesWhenOneLockKeyHoldsAForeignValue", "G5, G6", Fault.FOREIGN_KEY) {
        // Given one node holding three auto-renewed leases that are renewed in one batch
        val node = newNode()
        val names = sameSlotNames(node.counter.delegate(), 3)
        val leases = names.map { node.client.lock(it, options(leaseTime = Duration.ofMillis(900))).acquire(Timing.ACQUIRE_WAIT) }
        // When another application overwrites the middle lock's key with a hash
        fixture.writeForeignKey(lockKey(names[1]))
        // Then only that lease is lost; the others keep being renewed
        withClue("loss of the lease whose key was overwritten") {
            leases[1].lost().value("lost() of the overwritten lease").reason() shouldBe LeaseLoss.Reason.STOLEN
        }
        hold(Duration.ofMillis(2000))
        listOf(0, 2).forEach { i ->
            withClue("lease $i after a foreign key in its renewal batch: ${leases[i].lost().getNow(null)}") {
                leases[i].lost().isDone shouldBe false
                leases[i].isValid shouldBe true
            }
        }
        leases.forEach { it.release() }
        fixture.deleteKey(lockKey(names[1]))
    },
)
