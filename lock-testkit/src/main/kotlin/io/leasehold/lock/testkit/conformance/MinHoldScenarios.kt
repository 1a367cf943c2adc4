package io.leasehold.lock.testkit.conformance

import io.leasehold.lock.Lease
import io.leasehold.lock.LeaseState
import io.leasehold.lock.LockOptions
import io.leasehold.lock.spi.LockBackend
import io.leasehold.lock.spi.LuaScript
import io.leasehold.lock.spi.ScriptNames
import io.leasehold.lock.testkit.ForwardingLockBackend
import java.time.Duration
import java.util.concurrent.CompletableFuture
import java.util.concurrent.CopyOnWriteArrayList

// G1 and G3 under a min-hold time (LockOptions.minHoldTime): a release before it is up ends the lease
// but leaves the lock taken in Redis until then; G6: with no loss signal; G7: waiters take it after.

/**
 * The min-hold time of these scenarios: long enough to tell apart from a plain release on a noisy machine,
 * and for a release, a client's close and the listener's event to fit in before the lock is inspected
 * (600 ms did not, in four quorum classes at once at a load average of 12).
 */
private val MIN_HOLD: Duration = Duration.ofMillis(1_200)

/**
 * How far the lock's expiry in Redis may seem to come before the min-hold time, measured on this JVM's
 * clock: Redis counts TTLs in whole milliseconds on its own clock.
 */
private val CLOCK_TOLERANCE: Duration = Duration.ofMillis(25)

private fun ScenarioContext.minHoldOptions(minHold: Duration = MIN_HOLD, leaseTime: Duration = Timing.LONG_LEASE): LockOptions =
    options(leaseTime = leaseTime).toBuilder().minHoldTime(minHold).build()

/**
 * The waiter gets the lock within the suite's wait, but no sooner than the min-hold time after [startNanos]
 * (taken before [held] was acquired), with a larger token; then releases it.
 */
private fun shouldTakeTheLockOnceTheHoldIsUp(waiter: CompletableFuture<Lease>, startNanos: Long, held: Lease) {
    val next = waiter.value("the waiter's lease", Timing.AWAIT)
    withClue("time from before the first acquisition until the waiter's") {
        elapsedSince(startNanos) shouldBeGreaterThanOrEqualTo MIN_HOLD.minus(CLOCK_TOLERANCE)
    }
    withClue("the waiter's token after ${held.fencingToken()}") { next.fencingToken() shouldBeGreaterThan held.fencingToken() }
    next.release()
}

internal val minHoldScenarios: List<Scenario> = listOf(

    scenario("shouldKeepTheLockTakenUntilItsMinHoldTimeWhenReleasedSooner", "G1, G3, G6") {
        // Given a lease with a min-hold time of 600 ms, released at once
        val listener = RecordingListener()
        val a = newClient { listener(listener) }
        val b = newClient()
        val start = System.nanoTime()
        val lease = a.lock(lockName, minHoldOptions()).acquire(Timing.ACQUIRE_WAIT)
        withClue("release() before the min-hold time is up") { lease.release() shouldBe true }
        // When its client closes too (the hold needs no process)
        a.close()
        // Then the lease has ended as released, with no loss
        withClue("state() after the release") { lease.state() shouldBe LeaseState.RELEASED }
        withClue("lost() after the release") { lease.lost().isDone shouldBe false }
        await("the listener hears of the release") { listener.released.isNotEmpty() }
        withClue("the listener's releases") { listener.released.toList() shouldBe listOf(lease.fencingToken()) }
        withClue("the listener's losses") { listener.losses.toList() shouldBe emptyList() }
        // And the lock is still taken, by the same lease's value, for no more than the time left
        val held = b.lock(lockName).inspect().present("inspect() right after the release")
        withClue("the holder's token seen from another node") { held.fencingToken() shouldBe lease.fencingToken() }
        withClue("the TTL left in Redis") { held.remainingTtl() shouldBeLessThanOrEqualTo MIN_HOLD }
        b.lock(lockName).tryAcquire().shouldBeAbsent("tryAcquire() by another node during the min-hold time")
        // And another node gets it once the min-hold time is up, not before, with a larger token
        val next = b.lock(lockName).acquire(Timing.ACQUIRE_WAIT)
        withClue("time from before the first acquisition until the next one") {
            elapsedSince(start) shouldBeGreaterThanOrEqualTo MIN_HOLD.minus(CLOCK_TOLERANCE)
        }
        withClue("the next lease's token after ${lease.fencingToken()}") { next.fencingToken() shouldBeGreaterThan lease.fencingToken() }
        withClue("release() of the next lease") { next.release() shouldBe true }
    },

    scenario("shouldFreeTheLockAtOnceWhenReleasedAfterItsMinHoldTime", "G1") {
        // Given a lease with a min-hold time of 200 ms, held for longer than that
        val a = newClient()
        val b = newClient()
        val lease = a.lock(lockName, minHoldOptions(minHold = Duration.ofMillis(200))).acquire(Timing.ACQUIRE_WAIT)
        hold(Duration.ofMillis(300))
        // When it is released
        withClue("release() after the min-hold time") { lease.release() shouldBe true }
        // Then the lock is free at once
        withClue("isLocked() right after the release") { b.lock(lockName).isLocked shouldBe false }
        b.lock(lockName).tryAcquire().present("tryAcquire() right after the release").release()
    },

    scenario("shouldGiveTheLockToAWaiterOfTheSameClientWhenTheMinHoldTimeEnds", "G7") {
        // Given a 30 s lease with a min-hold time of 600 ms, and a waiter of the same client that was
        // told the 30 s TTL
        val (node, answered) = answeringNode()
        val start = System.nanoTime()
        val lease = node.client.lock(lockName, minHoldOptions()).acquire(Timing.ACQUIRE_WAIT)
        val waiter = node.client.lock(lockName, minHoldOptions()).acquireAsync(Timing.LONG_LEASE)
        await("the waiter's attempt was answered") { answered.replies(ScriptNames.ACQUIRE) >= 2 }
        // When the lease is released at once
        withClue("release()") { lease.release() shouldBe true }
        // Then the waiter gets the lock once the min-hold time is up, long before the 30 s would end
        shouldTakeTheLockOnceTheHoldIsUp(waiter, start, lease)
    },

    scenario("shouldGiveTheLockToAWaiterOfAnotherClientWhenTheMinHoldTimeEnds", "G7") {
        // Given a 30 s lease with a min-hold time of 600 ms, and a waiter of another node that was told
        // the 30 s TTL
        val a = newClient()
        val (b, answered) = answeringNode()
        val start = System.nanoTime()
        val lease = a.lock(lockName, minHoldOptions()).acquire(Timing.ACQUIRE_WAIT)
        val waiter = b.client.lock(lockName).acquireAsync(Timing.LONG_LEASE)
        await("the waiter's attempt was answered") { answered.replies(ScriptNames.ACQUIRE) >= 1 }
        // When the lease is released at once
        withClue("release()") { lease.release() shouldBe true }
        // Then the waiter hears of it, and gets the lock once the min-hold time is up, long before the 30 s
        shouldTakeTheLockOnceTheHoldIsUp(waiter, start, lease)
    },

    scenario("shouldGrantAFairLockToItsNextWaiterWhenTheMinHoldTimeEnds", "G7") {
        // Given a fair lock held with a min-hold time of 600 ms, and a waiter of another node in its queue
        val a = newClient()
        val (b, answered) = answeringNode()
        val start = System.nanoTime()
        val lease = a.fairLock(lockName, minHoldOptions()).acquire(Timing.ACQUIRE_WAIT)
        val waiter = b.client.fairLock(lockName).acquireAsync(Timing.LONG_LEASE)
        await("the waiter has its place in the queue") { answered.replies(ScriptNames.ACQUIRE) >= 1 }
        // When the lease is released at once
        withClue("release()") { lease.release() shouldBe true }
        // Then the waiter gets the lock once the min-hold time is up, long before the 30 s would end
        shouldTakeTheLockOnceTheHoldIsUp(waiter, start, lease)
    },

    scenario("shouldNotLetARenewalStillInFlightShortenTheMinHold", "G1, G5") {
        // Given a 900 ms auto-renewed lease with a min-hold time of 3 s, whose first renewal is held
        // back on its way to Redis
        var gate: HeldBackRenewals? = null
        val node = newNode(wrap = { backend -> HeldBackRenewals(backend).also { gate = it } })
        val renewals = gate.shouldNotBeNull()
        val minHold = Duration.ofSeconds(3)
        val lease = node.client.lock(lockName, minHoldOptions(minHold = minHold, leaseTime = Duration.ofMillis(900)))
            .acquire(Timing.ACQUIRE_WAIT)
        await("a renewal is on its way") { renewals.heldBack() >= 1 }
        // When the lease is released, and only then the renewal reaches Redis
        withClue("release()") { lease.release() shouldBe true }
        renewals.letThrough().value("the held-back renewal's reply")
        // Then the lock keeps the min-hold time's TTL, not the renewal's 900 ms
        val held = newClient().lock(lockName).inspect().present("inspect() after the late renewal")
        withClue("the TTL left in Redis after a 900 ms renewal ran late") {
            held.remainingTtl() shouldBeGreaterThan Duration.ofMillis(1_500)
        }
        withClue("the holder's token") { held.fencingToken() shouldBe lease.fencingToken() }
    },

    scenario("shouldRefuseAMinHoldTimeThatTheOtherOptionsContradict", "G11") {
        shouldThrow<IllegalArgumentException> { LockOptions.builder().forLock(lockName).minHoldTime(Duration.ofMillis(-1)) }
            .shouldMention("minHoldTime", "PT-0.001S", lockName)
        shouldThrow<IllegalArgumentException> {
            LockOptions.builder().forLock(lockName).maxHoldTime(Duration.ofMinutes(1)).minHoldTime(Duration.ofMinutes(2)).build()
        }.shouldMention("minHoldTime", "at most maxHoldTime", "PT1M", "PT2M", lockName)
        shouldThrow<IllegalArgumentException> {
            LockOptions.builder().forLock(lockName).leaseTime(Duration.ofSeconds(10)).autoRenew(false)
                .minHoldTime(Duration.ofSeconds(11)).build()
        }.shouldMention("minHoldTime", "at most leaseTime", "autoRenew is off", "PT10S", "PT11S", lockName)
        // And what they allow is kept
        val allowed = LockOptions.builder().leaseTime(Duration.ofSeconds(10)).minHoldTime(Duration.ofMinutes(5)).build()
        withClue("minHoldTime() above an auto-renewed lease time") { allowed.minHoldTime() shouldBe Duration.ofMinutes(5) }
        withClue("the default minHoldTime()") { LockOptions.defaults().minHoldTime() shouldBe Duration.ZERO }
    },
)

/**
 * Holds back every renewal (renew.lua) on its way to Redis until [letThrough]; the rest passes. (The
 * engine sends its scripts with a write callback: the plain eval is left to the forwarding base.)
 */
private class HeldBackRenewals(delegate: LockBackend) : ForwardingLockBackend(delegate) {

    private val waiting = CopyOnWriteArrayList<Runnable>()
    private val replies = CopyOnWriteArrayList<CompletableFuture<Any>>()

    @Volatile
    private var holding = true

    fun heldBack(): Int = waiting.size

    /** Sends the held-back renewals, and every later one at once; completes when Redis answered them. */
    fun letThrough(): CompletableFuture<Void> {
        holding = false
        waiting.forEach { it.run() }
        return CompletableFuture.allOf(*replies.toTypedArray())
    }

    override fun eval(script: LuaScript, keys: List<String>, args: List<String>, writing: Runnable): CompletableFuture<Any> {
        if (!holding || script.name() != ScriptNames.RENEW) {
            return super.eval(script, keys, args, writing)
        }
        val reply = CompletableFuture<Any>()
        replies += reply
        waiting += Runnable {
            delegate().eval(script, keys, args, writing).whenComplete { value, error ->
                if (error != null) reply.completeExceptionally(error) else reply.complete(value)
            }
        }
        return reply
    }
}
