package io.leasehold.lock.testkit.conformance

import io.leasehold.lock.Lease
import io.leasehold.lock.LockBackendException
import io.leasehold.lock.spi.ScriptNames
import io.leasehold.lock.testkit.LockBackendFixture.Fault
import java.time.Duration
import java.util.concurrent.CompletableFuture
import java.util.concurrent.atomic.AtomicBoolean
import java.util.concurrent.atomic.AtomicInteger

// G7 on the contended path: a release hands the lock to its client's next waiter in the same call,
// newcomers queue behind local waiters, and one client's waiters cannot keep the lock from another
// client's for long. G2/G3 for the handoff: a fresh owner and a higher fencing token. G8 when the
// handoff's reply is lost.

/** Waits until [node]'s first waiter has had its contended reply and queued (its subscription is made only then). */
private fun ScenarioContext.awaitQueued(node: ScenarioContext.Node) {
    await("the waiter has tried once and queued (subscribed); ${node.counter}") {
        node.counter.count(ScriptNames.ACQUIRE) >= 1 && node.counter.activeSubscriptions() >= 1
    }
}

/** The section each busy worker holds the lock for in the cross-client scenario: longer than a local attempt's round trip. */
private val BUSY_SECTION: Duration = Duration.ofMillis(10)

internal val handoffScenarios: List<Scenario> = listOf(

    scenario("shouldHandTheLockToTheNextLocalWaiterInTheReleaseCall", "G7, G2, G3") {
        // Given a holder and a waiter of the same lock on one node
        val node = newNode()
        val held = node.client.lock(lockName).acquire(Timing.ACQUIRE_WAIT)
        val waiting = node.client.lock(lockName).acquireAsync(Duration.ofSeconds(30))
        awaitQueued(node)
        node.counter.reset()
        // When the holder releases
        withClue("release() by the holder") { held.release() shouldBe true }
        val next = waiting.value("the waiter's lease")
        // Then the release call itself handed the lock over: one script call (handoff.lua), no
        // separate release and no acquire after a release message
        withClue("script calls from the release to the waiter's lease: ${node.counter.counts()}") {
            node.counter.counts().filterValues { it > 0 } shouldBe mapOf(ScriptNames.HANDOFF to 1L)
        }
        // And the waiter's lease has its own owner and a higher fencing token
        withClue("the waiter's token after the holder's ${held.fencingToken()}") {
            next.fencingToken() shouldBeGreaterThan held.fencingToken()
        }
        withClue("holder seen by inspect() after the handoff") {
            node.client.lock(lockName).inspect().present("inspect()").fencingToken() shouldBe next.fencingToken()
        }
        withClue("release() of the old lease again (its owner is not the new holder's)") { held.release() shouldBe false }
        withClue("lost() of the old lease") { held.lost().isDone shouldBe false }
        withClue("release() of the waiter's lease") { next.release() shouldBe true }
        withClue("holder after the last release") { node.client.lock(lockName).inspect().isPresent shouldBe false }
    },

    scenario("shouldQueueANewcomerBehindLocalWaitersWithoutAnAttempt", "G7") {
        // Given a holder and a first waiter on one node
        val node = newNode()
        val held = node.client.lock(lockName).acquire(Timing.ACQUIRE_WAIT)
        val first = node.client.lock(lockName).acquireAsync(Duration.ofSeconds(30))
        awaitQueued(node)
        val attemptsBefore = node.counter.count(ScriptNames.ACQUIRE)
        // When a newcomer of the same node asks for the lock with time to wait
        val order = java.util.concurrent.ConcurrentLinkedQueue<String>()
        val newcomer = node.client.lock(lockName).acquireAsync(Duration.ofSeconds(30))
        hold(Duration.ofMillis(200))
        // Then it does not barge in with an attempt of its own: the first waiter's attempts stand for it
        withClue("acquire calls after the newcomer came: ${node.counter.counts()}") {
            node.counter.count(ScriptNames.ACQUIRE) shouldBe attemptsBefore
        }
        // And the lock goes to the first waiter, then to the newcomer
        val leases = listOf(first to "first", newcomer to "newcomer").map { (future, label) ->
            future.thenApplyAsync { lease -> order.add(label); lease.release(); lease }
        }
        withClue("release() by the holder") { held.release() shouldBe true }
        leases.forEach { it.value("a waiter's turn") }
        withClue("order in which the waiters got the lock") { order.toList() shouldBe listOf("first", "newcomer") }
    },

    scenario("shouldLetAnotherClientsWaiterInWhileLocalWaitersPassTheLockAround", "G7") {
        // Given two workers of one node that keep passing the lock between them: each holds it for a
        // short section and asks again at once after its release, so that the other one has queued
        // locally by the time of each release, which hands it the lock (the path on which a client
        // keeps the lock from others). (With no section at all, on a loaded machine a worker's own
        // attempt is often still on its way when the other releases: that release finds no local
        // waiter to hand the lock to, frees it for everybody, and the race for it is won by whoever's
        // release message comes first. A strict order across clients is the Redis-side queue's job.)
        val busy = newNode()
        val stop = AtomicBoolean()
        val turns = AtomicInteger()
        val workers = List(2) { i ->
            startThread("busy worker $i") {
                var mine = 0
                while (!stop.get()) {
                    busy.client.lock(lockName).acquire(Duration.ofSeconds(30)).use {
                        turns.incrementAndGet()
                        mine++
                        hold(BUSY_SECTION)
                    }
                }
                mine
            }
        }
        try {
            // (a worker gets the lock by its own acquire or by the other's release handing it over)
            await("both workers have had the lock") {
                busy.counter.count(ScriptNames.ACQUIRE) + busy.counter.count(ScriptNames.HANDOFF) >= 4
            }
            // When a waiter of another node asks for it and queues (the holder's TTL, its fallback, is 30 s)
            val other = newNode()
            val waiting = other.client.lock(lockName).acquireAsync(Duration.ofSeconds(20))
            await("the other node's waiter has queued (subscribed) or already has the lock; ${other.counter}") {
                waiting.isDone || (other.counter.count(ScriptNames.ACQUIRE) >= 1 && other.counter.activeSubscriptions() >= 1)
            }
            val turnsWhenQueued = turns.get()
            val lease = waiting.value("the other node's lease", Duration.ofSeconds(20))
            val turnsMeanwhile = turns.get() - turnsWhenQueued
            // Then it gets the lock after a bounded run of local handoffs (a yield every 8 handoffs
            // in a row; room here for losing a few races after a yield), not when the workers stop
            withClue("turns the busy node took while the other node's waiter queued") {
                turnsMeanwhile shouldBeLessThanOrEqual 80
            }
            lease.release()
        } finally {
            stop.set(true)
        }
        val mine = workers.map { it.result.value("a worker's turns") }
        withClue("turns of each busy worker") { mine.forEach { it shouldBeGreaterThan 0 } }
    },

    scenario("shouldHandTheLockOverOnceWhenTheHandoffReplyIsLost", "G7, G8", Fault.LOSE_REPLY) {
        // Given a holder and a queued waiter on a node with a short command timeout
        val node = newNode(commandTimeout = Timing.FAST_COMMAND_TIMEOUT)
        val held = node.client.lock(lockName).acquire(Timing.ACQUIRE_WAIT)
        val waiting: CompletableFuture<Lease> = node.client.lock(lockName).acquireAsync(Duration.ofSeconds(30))
        awaitQueued(node)
        // When the release's handoff runs in Redis but its reply is lost
        fixture.loseNextReply()
        // Then the holder's release reports its unknown outcome as a plain release does
        // (shouldStopRenewingWhenAReleaseReplyIsLost), without a false loss ...
        shouldThrow<LockBackendException> { held.release() }.shouldBeAbout(lockName)
        withClue("lost() of the released lease") { held.lost().isDone shouldBe false }
        withClue("isValid() of the released lease") { held.isValid shouldBe false }
        // ... and the waiter gets the lock exactly once, with a higher token
        val next = waiting.value("the waiter's lease after a lost handoff reply")
        withClue("the waiter's token after the holder's ${held.fencingToken()}") {
            next.fencingToken() shouldBeGreaterThan held.fencingToken()
        }
        withClue("holder seen by inspect()") {
            node.client.lock(lockName).inspect().present("inspect()").fencingToken() shouldBe next.fencingToken()
        }
        withClue("lost() of the waiter's lease") { next.lost().isDone shouldBe false }
        withClue("release() of the waiter's lease") { next.release() shouldBe true }
        // And nothing is left behind
        withClue("holder after the last release") { node.client.lock(lockName).inspect().isPresent shouldBe false }
        withClue("a new lease after it all") {
            val again = node.client.lock(lockName).tryAcquire().present("tryAcquire()")
            again.fencingToken() shouldBeGreaterThan next.fencingToken()
            again.release() shouldBe true
        }
    },
)
