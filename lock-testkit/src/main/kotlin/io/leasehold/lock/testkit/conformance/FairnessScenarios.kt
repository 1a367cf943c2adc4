package io.leasehold.lock.testkit.conformance

import io.leasehold.lock.DistributedLock
import io.leasehold.lock.Lease
import io.leasehold.lock.LockClient
import io.leasehold.lock.LockOptions
import io.leasehold.lock.LockTimeoutException
import io.leasehold.lock.spi.LockBackend
import io.leasehold.lock.spi.LockKeys
import io.leasehold.lock.spi.LuaScript
import io.leasehold.lock.spi.MessageListener
import io.leasehold.lock.spi.ScriptNames
import io.leasehold.lock.spi.Subscription
import io.leasehold.lock.testkit.FaultInjectingBackend
import io.leasehold.lock.testkit.ForwardingLockBackend
import io.leasehold.lock.withLock
import kotlinx.coroutines.async
import kotlinx.coroutines.cancelAndJoin
import kotlinx.coroutines.delay
import java.time.Duration
import java.util.concurrent.CompletableFuture
import java.util.concurrent.atomic.AtomicBoolean
import java.util.concurrent.atomic.AtomicInteger
import kotlin.time.Duration.Companion.seconds

// fairLock: strict FIFO across clients through the lock's wait queue in Redis, with direct grants
// (G7's waiting, in order, with G3's rising tokens); dead waiters cost the queue a bounded delay,
// never a lease; a waiter that gives up, and a client that closes, leave nothing behind (G8, G12).

/** How long one dead waiter may hold the queue up (fairLock's Javadoc: about 2 s), with room for a busy machine. */
private val DEAD_WAITER_BOUND: Duration = Duration.ofSeconds(2).plus(Timing.SLACK)

/**
 * A node whose backend counts the replies it got: its waiter has its place in Redis's queue once
 * a acquire was answered (a call merely sent may still be overtaken by another node's).
 */
internal fun ScenarioContext.answeringNode(
    commandTimeout: Duration = Timing.COMMAND_TIMEOUT,
    inner: (LockBackend) -> LockBackend = { it },
): Pair<ScenarioContext.Node, ReplyCountingBackend> {
    var answered: ReplyCountingBackend? = null
    val node = newNode(commandTimeout, wrap = { backend -> ReplyCountingBackend(inner(backend)).also { answered = it } })
    return node to answered!!
}

/** The keys of lock [name]'s wait queue, under the suite's key prefix. */
private fun ScenarioContext.queueKeys(name: String = lockName): List<String> = listOf(
    LockKeys.queueKey(ScenarioContext.KEY_PREFIX, name),
    LockKeys.waitersKey(ScenarioContext.KEY_PREFIX, name),
)

/**
 * A holder, a waiter of another node whose process dies while it heads the lock's queue in Redis, and
 * a live waiter of a third node behind it: the holder's release grants the lock to the dead waiter,
 * and the live waiter must get it within the dead-waiter bound, not after a lease (30 s). With
 * [hearsMessages], the "dead" waiter's commands are cut off but its subscription still delivers: it
 * may take the lock from the grant's message, and must then be told of the lease's loss (it cannot
 * renew it) while the live waiter still gets the lock within the same bound.
 */
private fun ScenarioContext.handPastADeadWaiter(
    hearsMessages: Boolean = false,
    lockOf: (LockClient, String) -> DistributedLock,
) {
    // Given a holder, a waiter whose process will die while it heads the queue, and a live waiter behind it
    val holder = newClient()
    val held = lockOf(holder, lockName).acquire(Timing.ACQUIRE_WAIT)
    var dying: DyingBackend? = null
    val (doomed, doomedAnswered) =
        answeringNode(inner = { backend -> DyingBackend(backend, hearsMessages).also { dying = it } })
    val doomedWait = lockOf(doomed.client, lockName).acquireAsync(Duration.ofSeconds(60))
    await("the doomed waiter heads the queue") { doomedAnswered.replies(ScriptNames.ACQUIRE) >= 1 }
    val (live, liveAnswered) = answeringNode()
    val liveWait = lockOf(live.client, lockName).acquireAsync(Duration.ofSeconds(60))
    await("the live waiter is queued behind it") { liveAnswered.replies(ScriptNames.ACQUIRE) >= 1 }
    // When the head waiter's process dies, and then the holder releases (granting the lock to the dead waiter)
    dying!!.die()
    await("the doomed waiter's commands on their way have landed") { dying!!.quiet() }
    val releasedAt = System.nanoTime()
    withClue("release() by the holder") { held.release() shouldBe true }
    // Then the live waiter gets the lock within the dead-waiter bound, not after a lease (30 s)
    val lease = liveWait.value("the live waiter's lease", DEAD_WAITER_BOUND.plus(Timing.AWAIT))
    withClue("time from the release to the live waiter's lease (bound $DEAD_WAITER_BOUND)") {
        elapsedSince(releasedAt) shouldBeLessThan DEAD_WAITER_BOUND
    }
    if (hearsMessages) {
        // It took the grant from its message if no attempt of its was in flight when the message
        // came (else it asked, and never heard back): then it cannot renew, and is told of the loss.
        if (doomedWait.isDone) {
            val doomedLease = doomedWait.value("the cut-off waiter's lease")
            doomedLease.lost().value("the loss of the cut-off waiter's lease")
        }
    } else {
        withClue("the dead waiter has no lease") { doomedWait.isDone shouldBe false }
    }
    withClue("release() of the live waiter's lease") { lease.release() shouldBe true }
    dying!!.revive()
    doomedWait.cancel(true)
}

internal val fairnessScenarios: List<Scenario> = listOf(

    scenario("shouldGrantAFairLockInTheOrderItsWaitersReachedRedis", "G3, G7") {
        // Given a holder, and three waiters on three other nodes, each enqueued after the one before
        val holder = newClient()
        val held = holder.fairLock(lockName).acquire(Timing.ACQUIRE_WAIT)
        val order = java.util.Collections.synchronizedList(mutableListOf<Int>())
        val tokens = java.util.Collections.synchronizedList(mutableListOf<Long>())
        val waiting = List(3) { i ->
            val (node, answered) = answeringNode()
            val lease = node.client.fairLock(lockName).acquireAsync(Duration.ofSeconds(30))
                .thenApplyAsync { lease: Lease ->
                    order += i
                    tokens += lease.fencingToken()
                    lease.release()
                }
            await("waiter $i has taken its place in the queue") { answered.replies(ScriptNames.ACQUIRE) >= 1 }
            lease
        }
        // When the holder releases
        withClue("release() by the holder") { held.release() shouldBe true }
        // Then the waiters get the lock one after the other, in the order they queued, with rising tokens
        waiting.forEachIndexed { i, w -> withClue("waiter $i's release") { w.value("waiter $i's turn") shouldBe true } }
        withClue("the order the waiters got the lock in") { order.toList() shouldBe listOf(0, 1, 2) }
        withClue("fencing tokens along the queue, after the holder's ${held.fencingToken()}") {
            (listOf(held.fencingToken()) + tokens).zipWithNext().all { (a, b) -> b > a } shouldBe true
        }
    },

    scenario("shouldHandAFairLockPastADeadWaiterWithinTheBound", "G7") {
        handPastADeadWaiter { client, name -> client.fairLock(name) }
    },

    scenario("shouldHandAFairLockPastAWaiterThatHearsItsGrantButCannotReachRedisWithinTheBound", "G4, G7") {
        handPastADeadWaiter(hearsMessages = true) { client, name -> client.fairLock(name) }
    },

    scenario("shouldHandAPlainLockPastAWaiterThatHearsItsGrantButCannotReachRedisWithinTheBound", "G4, G7") {
        handPastADeadWaiter(hearsMessages = true) { client, name -> client.lock(name) }
    },

    scenario("shouldHandAPlainLockPastAnotherClientsDeadWaiterWithinTheBound", "G7") {
        // (a plain waiter asks again only when the holder's TTL runs out, but a grant to another
        // waiter makes it ask again once that grant's window has passed)
        handPastADeadWaiter { client, name -> client.lock(name) }
    },

    scenario("shouldTakeAGivenUpFairWaiterOutOfTheQueue", "G7, G8") {
        // Given a holder, a waiter that times out, and one that is cancelled, on two nodes
        val holder = newClient()
        val held = holder.fairLock(lockName).acquire(Timing.ACQUIRE_WAIT)
        val (timingOut, timingOutAnswered) = answeringNode()
        val (cancelled, cancelledAnswered) = answeringNode()
        val cancelledWait = cancelled.client.fairLock(lockName).acquireAsync(Duration.ofSeconds(30))
        await("the second waiter is queued") { cancelledAnswered.replies(ScriptNames.ACQUIRE) >= 1 }
        val timedOut = timingOut.client.fairLock(lockName).acquireAsync(Duration.ofMillis(500))
        // When one times out and the other is cancelled
        timedOut.failure("the timed-out wait").shouldBeInstanceOf<LockTimeoutException>()
        cancelledWait.cancel(true)
        // Then each takes its place out of Redis's queue: once both clean-ups are answered, the
        // queue's keys are gone at once, where the places (each renewed within the last 0.5 s, and
        // lasting 1.5 s from its last call) would otherwise have lasted another second
        await("both waiters' clean-ups are answered") {
            timingOutAnswered.replies(ScriptNames.RELEASE) >= 1 && cancelledAnswered.replies(ScriptNames.RELEASE) >= 1
        }
        withClue("PTTL of the queue keys right after the clean-ups; calls ${timingOut.counter.counts()}, ${cancelled.counter.counts()}") {
            queueKeys().map { fixture.pttl(it) } shouldBe listOf(-2L, -2L)
        }
        // And the release finds nobody to grant the lock to: a newcomer takes it at once
        withClue("release() by the holder") { held.release() shouldBe true }
        val newcomer = newClient().fairLock(lockName).tryAcquire(Duration.ZERO)
        withClue("a newcomer's tryAcquire right after the release") { newcomer.isPresent shouldBe true }
        newcomer.get().release()
    },

    scenario("shouldLeaveNoFairLockKeyBehindOnceEveryClientClosed", "G8, G12") {
        // Given a holder and two waiters of a fair lock, on three nodes
        val holder = newClient()
        holder.fairLock(lockName).acquire(Timing.ACQUIRE_WAIT)
        val waiters = List(2) { answeringNode() }
        waiters.forEach { (node, answered) ->
            node.client.fairLock(lockName).acquireAsync(Duration.ofSeconds(30))
            await("a waiter is queued") { answered.replies(ScriptNames.ACQUIRE) >= 1 }
        }
        // When every client closes (the waiters first, then the holder)
        waiters.forEach { (node, _) -> node.client.close() }
        holder.close()
        // Then neither the lock nor its queue is left in Redis (the fencing counter alone stays, by design)
        withClue("PTTL of the lock and its queue keys after every client closed") {
            (listOf(lockKey()) + queueKeys()).map { fixture.pttl(it) } shouldBe listOf(-2L, -2L, -2L)
        }
    },

    scenario("shouldConfirmAFairReleaseWhoseReplyWasResetAfterItGrantedTheNextWaiter", "G2, G3, G9") {
        // Given a holder whose next reply will be lost to a connection reset, and a waiter on another node
        var resetting: ResettingBackend? = null
        val holder = newNode(wrap = { backend -> ResettingBackend(backend).also { resetting = it } })
        val held = holder.client.fairLock(lockName).acquire(Timing.ACQUIRE_WAIT)
        val (waiter, answered) = answeringNode()
        val waiting = waiter.client.fairLock(lockName).acquireAsync(Duration.ofSeconds(30))
        await("the waiter is queued") { answered.replies(ScriptNames.ACQUIRE) >= 1 }
        // When the release runs in Redis (granting the lock to the waiter) but its reply is lost
        resetting!!.resetNextRelease()
        // Then its resend learns from the release marker that it released: no false loss
        withClue("release() whose first reply was reset; calls ${holder.counter.counts()}") { held.release() shouldBe true }
        withClue("release calls by the holder (the send and its resend)") {
            holder.counter.count(ScriptNames.RELEASE) shouldBe 2L
        }
        withClue("the holder's lease after its release") { held.lost().isDone shouldBe false }
        val next = waiting.value("the waiter's lease")
        withClue("the waiter's token after the holder's") { next.fencingToken() shouldBeGreaterThan held.fencingToken() }
        withClue("release() of the waiter's lease") { next.release() shouldBe true }
    },

    scenario("shouldKeepAFairWaitersPlaceWhenTheReplyOfItsEnqueueIsLost", "G7, G9") {
        // Given a holder, and a waiter whose first call (the enqueue) runs in Redis but whose reply is lost
        val holder = newClient()
        val held = holder.fairLock(lockName).acquire(Timing.ACQUIRE_WAIT)
        var faults: FaultInjectingBackend? = null
        val first = newNode(wrap = { backend -> FaultInjectingBackend(backend).also { faults = it } })
        faults!!.loseNextReply()
        val order = java.util.Collections.synchronizedList(mutableListOf<String>())
        val firstWait = first.client.fairLock(lockName).acquireAsync(Duration.ofSeconds(30))
            .thenApplyAsync { lease: Lease -> order += "first"; lease.release() }
        await("the first waiter's enqueue reached Redis") { fixture.pttl(queueKeys()[0]) > 0 }
        var answered: ReplyCountingBackend? = null
        val second = newNode(wrap = { backend -> ReplyCountingBackend(backend).also { answered = it } })
        val secondWait = second.client.fairLock(lockName).acquireAsync(Duration.ofSeconds(30))
            .thenApplyAsync { lease: Lease -> order += "second"; lease.release() }
        await("the second waiter is queued behind it") { answered!!.replies(ScriptNames.ACQUIRE) >= 1 }
        // When longer than a waiter lease passes before the holder releases (a place lapses 1.5 s after its last call)
        hold(Duration.ofMillis(2500))
        withClue("release() by the holder") { held.release() shouldBe true }
        // Then the first waiter kept its place (its retry renewed it), and goes first
        withClue("the first waiter's release") { firstWait.value("the first waiter's turn") shouldBe true }
        withClue("the second waiter's release") { secondWait.value("the second waiter's turn") shouldBe true }
        withClue("the order the waiters got the lock in") { order.toList() shouldBe listOf("first", "second") }
    },

    scenario("shouldTakeAFairGrantInTurnWhenTheReplyOfTheWaitersCallInFlightIsLost", "G7, G9") {
        // Given a holder, and two waiters queued in turn on two nodes
        val holder = newClient()
        val held = holder.fairLock(lockName).acquire(Timing.ACQUIRE_WAIT)
        var faults: FaultInjectingBackend? = null
        val first = newNode(wrap = { backend -> FaultInjectingBackend(backend).also { faults = it } })
        val order = java.util.Collections.synchronizedList(mutableListOf<String>())
        val firstWait = first.client.fairLock(lockName).acquireAsync(Duration.ofSeconds(30))
            .thenApplyAsync { lease: Lease -> order += "first"; lease.release() }
        await("the first waiter is queued") { first.counter.count(ScriptNames.ACQUIRE) >= 1 && fixture.pttl(queueKeys()[0]) > 0 }
        var answered: ReplyCountingBackend? = null
        val second = newNode(wrap = { backend -> ReplyCountingBackend(backend).also { answered = it } })
        val secondWait = second.client.fairLock(lockName).acquireAsync(Duration.ofSeconds(30))
            .thenApplyAsync { lease: Lease -> order += "second"; lease.release() }
        await("the second waiter is queued behind it") { answered!!.replies(ScriptNames.ACQUIRE) >= 1 }
        // When the reply of the first waiter's next call (the renewal of its place) is lost, and the
        // holder releases while that call is still unanswered (granting the lock to the first waiter)
        val sent = first.counter.count(ScriptNames.ACQUIRE)
        faults!!.loseNextReply()
        await("the first waiter's next call is sent") { first.counter.count(ScriptNames.ACQUIRE) > sent }
        withClue("release() by the holder") { held.release() shouldBe true }
        // Then the first waiter's retry takes the grant before its window runs out: the order holds
        withClue("the first waiter's release") { firstWait.value("the first waiter's turn") shouldBe true }
        withClue("the second waiter's release") { secondWait.value("the second waiter's turn") shouldBe true }
        withClue("the order the waiters got the lock in; calls ${first.counter.counts()}") {
            order.toList() shouldBe listOf("first", "second")
        }
    },

    scenario("shouldNotReportAFairReleaseStolenWhenItsResendFindsALaterHolder", "G6, G9") {
        // Given a holder whose release will run in Redis but fail on its way back (a reset, 300 ms
        // later), and two waiters on other nodes, the first of which releases at once
        var resetting: ResettingBackend? = null
        val holder = newNode(wrap = { backend -> ResettingBackend(backend, Duration.ofMillis(300)).also { resetting = it } })
        val held = holder.client.fairLock(lockName).acquire(Timing.ACQUIRE_WAIT)
        val firstNode = newNode()
        val firstWait = firstNode.client.fairLock(lockName).acquireAsync(Duration.ofSeconds(30))
            .thenApplyAsync { lease: Lease -> lease.release() }
        await("the first waiter is queued") { fixture.pttl(queueKeys()[0]) > 0 }
        var answered: ReplyCountingBackend? = null
        val secondNode = newNode(wrap = { backend -> ReplyCountingBackend(backend).also { answered = it } })
        val secondWait = secondNode.client.fairLock(lockName).acquireAsync(Duration.ofSeconds(30))
        await("the second waiter is queued") { answered!!.replies(ScriptNames.ACQUIRE) >= 1 }
        // When the holder releases: the lock goes to the first waiter, who releases it to the second,
        // before the holder's resend finds the second waiter's lock
        resetting!!.resetNextRelease()
        val outcome = runCatching { held.release() }
        // Then the holder is not told of a theft: its lease is released (confirmed by the release
        // marker if no later release overwrote it, else unconfirmed: release() answers false), never lost
        withClue("the first waiter's release") { firstWait.value("the first waiter's turn") shouldBe true }
        val next = secondWait.value("the second waiter's lease")
        withClue("release() of the holder: $outcome") { outcome.isSuccess shouldBe true }
        withClue("the holder's lease after its release: ${held.lost().getNow(null)}") { held.lost().isDone shouldBe false }
        withClue("the holder's lease state after its release") { held.state() shouldBe io.leasehold.lock.LeaseState.RELEASED }
        withClue("release() of the second waiter's lease") { next.release() shouldBe true }
    },

    scenario("shouldTakeAFairGrantWhoseConfirmReplyWasLost", "G1, G3, G9") {
        // Given a holder, and a waiter on another node the reply of whose confirm of its grant will be
        // lost (a lease that is not renewed confirms its grant, which sets its lease time: a renewed
        // one may take it from the grant's message instead, with no call to lose)
        val holder = newClient()
        val held = holder.fairLock(lockName).acquire(Timing.ACQUIRE_WAIT)
        var losing: GrantReplyLosingBackend? = null
        val waiter = newNode(
            commandTimeout = Timing.FAST_COMMAND_TIMEOUT,
            wrap = { backend -> GrantReplyLosingBackend(backend).also { losing = it } },
        )
        val confirming = LockOptions.builder().autoRenew(false).build()
        val waiting = waiter.client.fairLock(lockName, confirming).acquireAsync(Duration.ofSeconds(30))
        await("the waiter is queued") { waiter.counter.count(ScriptNames.ACQUIRE) >= 1 && fixture.pttl(queueKeys()[0]) > 0 }
        // When the holder releases, granting the lock to the waiter, whose confirm runs in Redis but
        // whose reply is lost
        withClue("release() by the holder") { held.release() shouldBe true }
        // Then the waiter's retry with the same owner takes the grant: one lease, held by it alone
        val next = waiting.value("the waiter's lease after a lost reply")
        withClue("confirm replies lost") { losing!!.lost() shouldBe 1 }
        withClue("the waiter's token after the holder's") { next.fencingToken() shouldBeGreaterThan held.fencingToken() }
        withClue("another node's tryAcquire while the waiter holds") {
            newClient().fairLock(lockName).tryAcquire(Duration.ZERO).isPresent shouldBe false
        }
        withClue("release() of the waiter's lease") { next.release() shouldBe true }
        withClue("PTTL of the lock and its queue keys after the release") {
            (listOf(lockKey()) + queueKeys()).map { fixture.pttl(it) } shouldBe listOf(-2L, -2L, -2L)
        }
    },

    scenario("shouldServeAFairLockThroughTheKotlinApiInQueueOrderAndReenterIt", "G7, G8, G10") {
        // Given a fair lock held by one node, and two coroutines on another node that queue in turn
        val holder = newClient()
        val held = holder.fairLock(lockName).acquire(Timing.ACQUIRE_WAIT)
        val (node, answered) = answeringNode()
        val fair = node.client.fairLock(lockName)
        val order = java.util.Collections.synchronizedList(mutableListOf<String>())
        coroutineScenario {
            val first = async {
                fair.withLock(30.seconds) { lease ->
                    // re-entered within the holding coroutine: the same lease, no second place in the queue
                    fair.withLock { inner -> withClue("the re-entered lease") { inner.fencingToken() shouldBe lease.fencingToken() } }
                    order += "first"
                }
            }
            while (answered.replies(ScriptNames.ACQUIRE) < 1) delay(10)
            val cancelled = async { fair.withLock(30.seconds) { order += "cancelled" } }
            while (answered.replies(ScriptNames.ACQUIRE) < 2) delay(10)
            val second = async { fair.withLock(30.seconds) { order += "second" } }
            while (answered.replies(ScriptNames.ACQUIRE) < 3) delay(10)
            // When the middle waiter is cancelled, and then the holder releases
            cancelled.cancelAndJoin()
            withClue("release() by the holder") { held.release() shouldBe true }
            first.await()
            second.await()
        }
        // Then the others got it in queue order, and the cancelled one never did
        withClue("the order of the withLock blocks") { order.toList() shouldBe listOf("first", "second") }
    },

    scenario("shouldExcludeALockOfTheSameNameFromAFairLockAndBack", "G1") {
        // Given a fair lock held on one node
        val a = newClient()
        val b = newClient()
        val fair = a.fairLock(lockName).acquire(Timing.ACQUIRE_WAIT)
        // Then the plain lock of the same name is held for another node, and the other way round
        withClue("lock() of the fair lock's name on another node") {
            b.lock(lockName).tryAcquire(Duration.ZERO).isPresent shouldBe false
        }
        withClue("release() of the fair lease") { fair.release() shouldBe true }
        val plain = b.lock(lockName).acquire(Timing.ACQUIRE_WAIT)
        withClue("fairLock() of the plain lock's name on another node") {
            a.fairLock(lockName).tryAcquire(Duration.ZERO).isPresent shouldBe false
        }
        withClue("release() of the plain lease") { plain.release() shouldBe true }
    },
)
