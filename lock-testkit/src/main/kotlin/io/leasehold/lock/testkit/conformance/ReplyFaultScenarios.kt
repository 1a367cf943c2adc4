package io.leasehold.lock.testkit.conformance

import io.leasehold.lock.Lease
import io.leasehold.lock.LockBackendException
import io.leasehold.lock.LockClient
import io.leasehold.lock.spi.ScriptNames
import io.leasehold.lock.testkit.LockBackendFixture.Fault
import java.time.Duration

// G4 and G8 attacked through the network: the reply of each script (acquire, extend, renew,
// release) and of subscribe is lost or comes late. An unknown outcome must be assumed to be the
// worse one: validity never overestimates what Redis holds, and nothing is left locked or renewed.

/**
 * Asserts that [lease] claims no more time than Redis's TTL for its lock: the local deadline
 * (`remaining()` read first) must not pass the deadline Redis gives (its TTL read right after, counted
 * from when that reply was in). Read in this order, a renewal landing in between can only make Redis's
 * deadline later, never fail the check falsely; read the other way round, it could.
 */
private fun shouldNotOverestimate(client: LockClient, lease: Lease, what: String) {
    val readAt = System.nanoTime()
    val remaining = lease.remaining()
    val ttl = client.lock(lease.lockName()).inspect().map { it.remainingTtl() }.orElse(Duration.ZERO)
    val ttlReadAfter = Duration.ofNanos(System.nanoTime() - readAt)
    withClue("remaining() $remaining vs the TTL $ttl Redis gave the lock $ttlReadAfter later, $what") {
        remaining shouldBeLessThanOrEqualTo ttl.plus(ttlReadAfter)
    }
}

internal val replyFaultScenarios: List<Scenario> = listOf(

    scenario("shouldAssumeTheShorterTtlWhenAnExtendReplyIsLost", "G4", Fault.LOSE_REPLY) {
        // Given a 30 s lease without renewal
        val a = newClient(commandTimeout = Timing.FAST_COMMAND_TIMEOUT)
        val lease = a.lock(lockName, options(autoRenew = false)).acquire(Timing.ACQUIRE_WAIT)
        // When an extend to 3 s runs in Redis but its reply is lost
        fixture.loseNextReply()
        val thrown = shouldThrow<LockBackendException> { lease.extend(Duration.ofSeconds(3)) }
        thrown.shouldBeAbout(lockName)
        // Then the lease assumes the shorter TTL may be in force: it never claims more than Redis gives
        shouldNotOverestimate(a, lease, "after an extend whose reply was lost")
        withClue("remaining() after an extend to 3 s of unknown outcome") {
            lease.remaining() shouldBeLessThanOrEqualTo Duration.ofSeconds(3)
        }
        lease.release()
    },

    scenario("shouldAssumeTheShorterTtlWhileAnExtendIsInFlight", "G4", Fault.LATENCY) {
        // Given a 30 s lease without renewal
        val a = newClient(commandTimeout = Duration.ofSeconds(5))
        val lease = a.lock(lockName, options(autoRenew = false)).acquire(Timing.ACQUIRE_WAIT)
        // When an extend to 2 s is on its way to Redis
        fixture.setLatency(Duration.ofMillis(400))
        val extending = lease.extendAsync(Duration.ofSeconds(2))
        // Then the lease already counts with the shorter TTL, before the reply and after it
        withClue("remaining() while an extend to 2 s is in flight") {
            lease.remaining() shouldBeLessThanOrEqualTo Duration.ofSeconds(2)
        }
        extending.value("the delayed extend")
        fixture.setLatency(Duration.ZERO)
        shouldNotOverestimate(a, lease, "after the extend to 2 s completed")
        lease.release()
    },

    scenario("shouldKeepALeaseWhoseRenewReplyWasLost", "G4, G5", Fault.LOSE_REPLY) {
        // Given a 3 s auto-renewed lease (renewed every second) on a node with a 500 ms command timeout
        val node = newNode(commandTimeout = Timing.FAST_COMMAND_TIMEOUT)
        val lease = node.client.lock(lockName, options(leaseTime = Duration.ofSeconds(3))).acquire(Timing.ACQUIRE_WAIT)
        // When the next call, the watchdog's renewal, runs in Redis but its reply is lost
        fixture.loseNextReply()
        await("a renewal was sent") { node.counter.count(ScriptNames.RENEW) >= 1 }
        // Then the lease never claims more than Redis gives, and a retried renewal keeps it
        repeat(10) { i ->
            shouldNotOverestimate(node.client, lease, "read $i after a renewal reply was lost")
            hold(Duration.ofMillis(200))
        }
        await("a renewal after the lost one") { node.counter.count(ScriptNames.RENEW) >= 2 }
        withClue("lost() after a renewal reply was lost: ${lease.lost().getNow(null)}") { lease.lost().isDone shouldBe false }
        withClue("release()") { lease.release() shouldBe true }
    },

    scenario("shouldStopRenewingWhenAReleaseReplyIsLost", "G8", Fault.LOSE_REPLY) {
        // Given an auto-renewed lease renewed every ~300 ms
        val node = newNode(commandTimeout = Timing.FAST_COMMAND_TIMEOUT)
        val lease = node.client.lock(lockName, options(leaseTime = Duration.ofMillis(900))).acquire(Timing.ACQUIRE_WAIT)
        // When its release runs in Redis but the reply is lost
        fixture.loseNextReply()
        shouldThrow<LockBackendException> { lease.release() }.shouldBeAbout(lockName)
        // Then the lease is over for its holder, the lock is free, and nothing renews it
        withClue("isValid() after a release of unknown outcome") { lease.isValid shouldBe false }
        withClue("isLocked() after the release ran") { newClient().lock(lockName).isLocked shouldBe false }
        node.counter.reset()
        hold(Duration.ofSeconds(1))
        withClue("renew calls after the release; all calls: ${node.counter.counts()}") { node.counter.count(ScriptNames.RENEW) shouldBe 0L }
    },

    scenario("shouldKeepWaitingAndUnsubscribeWhenASubscribeIsSlow", "G7, G9", Fault.SUBSCRIBE_LATENCY) {
        // Given subscribe confirmations take 2 s, longer than the waiters' 500 ms command timeout
        val a = newClient()
        val waiter = newNode(commandTimeout = Timing.FAST_COMMAND_TIMEOUT)
        val held = a.lock(lockName).acquire(Timing.ACQUIRE_WAIT)
        fixture.setSubscribeLatency(Duration.ofSeconds(2))
        // When two local waiters queue with 20 s left to wait, and the holder releases a second later
        val waiting = List(2) { waiter.client.lock(lockName).acquireAsync(Duration.ofSeconds(20)) }
        await("the waiters asked to subscribe") { waiter.counter.subscribeCount() >= 1 }
        hold(Duration.ofSeconds(1))
        withClue("the waiters still wait after a subscribe outlived the command timeout") { waiting.none { it.isDone } shouldBe true }
        withClue("release() by the holder") { held.release() shouldBe true }
        // Then both still get the lock in turn (a slow subscribe is no backend failure), in whichever
        // order they joined the local queue (each waiter's first attempt may come back first: a
        // blocking driver runs them on parallel threads)
        waiting.map { f -> f.thenApplyAsync { lease -> lease.release() } }
            .forEachIndexed { i, f -> withClue("waiter $i's lease, released") { f.value("waiter $i's turn", Duration.ofSeconds(20)) shouldBe true } }
        // And nothing stays subscribed once nobody waits
        fixture.setSubscribeLatency(Duration.ZERO)
        await("no subscription is left once nobody waits; ${waiter.counter}") { waiter.counter.activeSubscriptions() == 0L }
    },

    scenario("shouldKeepALeaseWhoseShorterExtendRacesARenewalInFlight", "G4, G5, G6", Fault.LATENCY) {
        // Given a 3 s auto-renewed lease, and every call delayed 200 ms on its way to Redis
        val node = newNode(commandTimeout = Duration.ofSeconds(5))
        val lease = node.client.lock(lockName, options(leaseTime = Duration.ofSeconds(3))).acquire(Timing.ACQUIRE_WAIT)
        fixture.setLatency(Duration.ofMillis(200))
        // When it is extended to 900 ms while the watchdog's renewal (sent first, so run first) is in flight
        await("a renewal is in flight") { node.counter.count(ScriptNames.RENEW) >= 1 }
        lease.extendAsync(Duration.ofMillis(900))
        // Then the watchdog renews in time for the shorter deadline: no false loss
        hold(Duration.ofMillis(2500))
        withClue("lost() after a shorter extend raced a renewal: ${lease.lost().getNow(null)}") { lease.lost().isDone shouldBe false }
        withClue("isValid()") { lease.isValid shouldBe true }
        fixture.setLatency(Duration.ZERO)
        shouldNotOverestimate(node.client, lease, "after the race")
        withClue("release()") { lease.release() shouldBe true }
    },

    scenario("shouldLeaveNothingBehindWhenEveryReplyComesAfterTheCommandTimeout", "G8, G9", Fault.LATENCY) {
        // Given every call reaches Redis only after the node's 300 ms command timeout (by 900 ms: the
        // premise must hold even when a loaded machine runs the timeout's sweep late; with a 200 ms
        // margin, a sweep delayed that long let a reply through in time, once in a loaded run)
        val node = newNode(commandTimeout = Duration.ofMillis(300))
        fixture.setLatency(Duration.ofMillis(1200))
        // When the node tries for a while: each attempt runs in Redis, but its reply is always late
        val thrown = shouldThrow<LockBackendException> { node.client.lock(lockName).acquire(Duration.ofMillis(1500)) }
        // Then the wait ends as a backend failure (no reply in time, ever), and once the late replies
        // are in, nothing is left locked and nothing is renewed
        thrown.shouldBeAbout(lockName)
        fixture.setLatency(Duration.ZERO)
        val probe = newClient()
        probe.lock(lockName).tryAcquire(Duration.ofSeconds(10)).present("tryAcquire() once the late replies were handled").use { }
        await("the lock is free after the late replies") { !probe.lock(lockName).isLocked }
        node.counter.reset()
        hold(Duration.ofSeconds(1))
        withClue("renew calls of the node that never got a lease; all calls: ${node.counter.counts()}") {
            node.counter.count(ScriptNames.RENEW) shouldBe 0L
        }
    },
)

