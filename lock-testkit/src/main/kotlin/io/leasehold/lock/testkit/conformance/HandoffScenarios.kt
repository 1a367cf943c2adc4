package io.leasehold.lock.testkit.conformance

import io.leasehold.lock.Lease
import io.leasehold.lock.LockBackendException
import io.leasehold.lock.spi.ScriptNames
import io.leasehold.lock.testkit.LockBackendFixture.Fault
import java.time.Duration
import java.util.concurrent.CompletableFuture
import java.util.concurrent.CopyOnWriteArrayList

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

/**
 * A waiter of a new node that adds "B" to [order] once it has the lock, and releases it; returned
 * once it has queued (its place in the lock's wait queue in Redis).
 */
private fun ScenarioContext.anotherNodesWaiter(order: MutableList<String>): CompletableFuture<Lease> {
    val other = newNode()
    val waiting = other.client.lock(lockName).acquireAsync(Duration.ofSeconds(60))
        .thenApplyAsync { lease -> order.add("B"); lease.release(); lease }
    awaitQueued(other)
    return waiting
}

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

    scenario("shouldLetAnotherClientsQueuedWaiterInWithinEightLocalHandoffs", "G7") {
        // Given a node holding the lock with twelve of its waiters queued behind the holder, each of
        // which releases as soon as it has the lock (so the lock would go from local waiter to local
        // waiter by handoffs, the path on which one client keeps a lock from the others)
        val busy = newNode()
        val held = busy.client.lock(lockName).acquire(Timing.ACQUIRE_WAIT)
        val order = CopyOnWriteArrayList<String>()
        fun localWaiter(i: Int) = busy.client.lock(lockName).acquireAsync(Duration.ofSeconds(60))
            .thenApplyAsync { lease -> order.add("A$i"); lease.release(); lease }
        // (the first one asks Redis and queues; the others then queue behind it locally, without asking)
        val local = mutableListOf(localWaiter(1))
        await("the busy node's first waiter has queued; ${busy.counter}") {
            busy.counter.count(ScriptNames.ACQUIRE) >= 2 && busy.counter.activeSubscriptions() >= 1
        }
        (2..12).forEach { local.add(localWaiter(it)) }
        // And a waiter of another node that has taken its place in the lock's queue in Redis
        val waiting = anotherNodesWaiter(order)
        // When the holder releases
        withClue("release() by the holder") { held.release() shouldBe true }
        waiting.value("the other node's turn", Duration.ofSeconds(60))
        local.forEach { it.value("a local waiter's turn", Duration.ofSeconds(60)) }
        // Then the other node's waiter got the lock within eight of the busy node's turns, not after
        // all twelve: the 8th local handoff in a row yields to the head of Redis's queue, decided in
        // the script, however late the other node's threads run
        withClue("the order the lock went in") {
            order.size shouldBe 13
            order.indexOf("B") shouldBeLessThanOrEqual 8
        }
    },

    scenario("shouldLetAnotherClientsQueuedWaiterInOnceEachLocalWaiterHadItsTurn", "G7") {
        // Given a node holding the lock with one waiter of its own queued, and a waiter of another
        // node queued in Redis behind that one
        val busy = newNode()
        val held = busy.client.lock(lockName).acquire(Timing.ACQUIRE_WAIT)
        val order = CopyOnWriteArrayList<String>()
        val local = CopyOnWriteArrayList<CompletableFuture<Lease>>()
        // each local waiter, once it has the lock, queues the next one and waits until that one has
        // its reply (a worker of the busy node back in line at once: its local queue never runs dry)
        // before it releases
        fun localWaiter(i: Int) {
            val asked = busy.counter.count(ScriptNames.ACQUIRE)
            local.add(busy.client.lock(lockName).acquireAsync(Duration.ofSeconds(60)).thenApplyAsync { lease ->
                order.add("A$i")
                if (i < 10) {
                    localWaiter(i + 1)
                }
                lease.release()
                lease
            })
            await("local waiter $i has its reply and waits; ${busy.counter}") {
                busy.counter.count(ScriptNames.ACQUIRE) > asked && busy.client.diagnostics().watchedCalls() == 0
            }
        }
        localWaiter(1)
        awaitQueued(busy)
        val waiting = anotherNodesWaiter(order)
        // When the holder releases
        withClue("release() by the holder") { held.release() shouldBe true }
        waiting.value("the other node's turn", Duration.ofSeconds(60))
        await("all ten local waiters had the lock; order $order") { order.size == 11 }
        local.forEach { it.value("a local waiter's turn", Duration.ofSeconds(60)) }
        // Then the busy node's turn ended once the waiter it had queued when the turn began had the
        // lock: the other node's waiter came next, not after up to eight local handoffs
        withClue("the order the lock went in") { order.indexOf("B") shouldBe 1 }
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
