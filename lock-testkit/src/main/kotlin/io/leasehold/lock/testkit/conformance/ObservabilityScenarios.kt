package io.leasehold.lock.testkit.conformance

import io.leasehold.lock.LeaseLoss
import io.leasehold.lock.LeaseState
import io.leasehold.lock.spi.ScriptNames
import io.leasehold.lock.testkit.LockBackendFixture.Fault
import java.time.Duration
import java.util.concurrent.CompletableFuture

// G6 (early warning): a lease whose renewal fails goes UNCERTAIN at once, long before it could be
// lost, and comes back to HELD when a renewal is confirmed; listeners hear of waits, handoffs and
// cancellations as they happen (what lock-micrometer's meters are built on).

/** Command timeout of the uncertainty scenarios: a renewal to a silent server fails after this. */
private val RENEWAL_TIMEOUT: Duration = Duration.ofMillis(300)

internal val observabilityScenarios: List<Scenario> = listOf(

    scenario("shouldGoUncertainAndBackToHeldWhenTheBackendIsAwayForLessThanTheLease", "G6", Fault.UNAVAILABLE) {
        // Given a held, auto-renewed lease of 6 s (renewed every 2 s)
        val listener = RecordingListener()
        val a = newClient(commandTimeout = RENEWAL_TIMEOUT) { listener(listener) }
        val lease = a.lock(lockName, options(leaseTime = Duration.ofSeconds(6))).acquire(Timing.ACQUIRE_WAIT)
        withClue("state() of a fresh lease") { lease.state() shouldBe LeaseState.HELD }
        // When the backend goes away until a renewal has failed
        fixture.makeUnavailable()
        try {
            await("the lease goes UNCERTAIN after a failed renewal") { lease.state() == LeaseState.UNCERTAIN }
            withClue("isValid() while uncertain") { lease.isValid shouldBe true }
        } finally {
            fixture.makeAvailable()
        }
        // Then a confirmed renewal makes it HELD again, and it was never lost
        await("the lease is HELD again after the backend came back") { lease.state() == LeaseState.HELD }
        await("the listener heard of the uncertainty and its end") { listener.reconfirmed.contains(lease.fencingToken()) }
        withClue("uncertain events (once per streak)") { listener.uncertain shouldBe listOf(lease.fencingToken()) }
        withClue("lost() after a pause shorter than the lease") { lease.lost().isDone shouldBe false }
        withClue("losses heard") { listener.losses shouldBe emptyList() }
        withClue("release() after the pause") { lease.release() shouldBe true }
    },

    scenario("shouldGoUncertainBeforeLostWhenTheBackendStaysAwayPastTheLease", "G4, G6", Fault.UNAVAILABLE) {
        // Given a held, auto-renewed lease of 2 s (renewed every ~670 ms)
        val leaseTime = Duration.ofSeconds(2)
        val listener = RecordingListener()
        val a = newClient(commandTimeout = RENEWAL_TIMEOUT) { listener(listener) }
        val lease = a.lock(lockName, options(leaseTime = leaseTime)).acquire(Timing.ACQUIRE_WAIT)
        val lostAt = CompletableFuture<Long>()
        lease.lost().thenRun { lostAt.complete(System.nanoTime()) }
        // When the backend goes away for good: Redis expires the lock no later than the lease time from here
        fixture.makeUnavailable()
        val cutOff = System.nanoTime()
        try {
            // Then the validity the engine counts (remaining(), isValid(): decided on the clock, whatever its
            // threads are doing) ends within the lease time (G4)...
            val validUntil = latestValidityEnd(lease)
            withClue("validity counted past the cut-off; Redis may expire the lock $leaseTime after it") {
                Duration.ofNanos(validUntil - cutOff) shouldBeLessThanOrEqualTo leaseTime
            }
            // ...and the lease is lost as BACKEND_UNAVAILABLE. lost() is told a little later, on the callback
            // executor (see Lease: "decide from isValid(), never from whether lost() has completed yet"), so
            // how much later is the machine's: a JVM starved of CPU runs the loss check's timer and the
            // thread that completes lost() late (1.1 s past the validity's end, 7 test JVMs and two busy loops on 2 cores)
            val loss = lease.lost().value("lost() while the backend stays away")
            withClue("loss reason") { loss.reason() shouldBe LeaseLoss.Reason.BACKEND_UNAVAILABLE }
            val signalled = lostAt.value("the loss callback")
            withClue("loss signalled ${Duration.ofNanos(signalled - cutOff)} after the cut-off, " +
                "${Duration.ofNanos(signalled - validUntil)} after the validity ended") {
                Duration.ofNanos(signalled - validUntil) shouldBeLessThanOrEqualTo Timing.SLACK
            }
            // ...and its listeners heard it go uncertain first, once, and nothing after the loss
            await("the listener heard of the loss") { listener.losses.isNotEmpty() }
            val heard = listener.sequence.toList()
            withClue("events heard: $heard") {
                heard.count { it == "uncertain" } shouldBe 1
                (heard.indexOf("uncertain") < heard.indexOf("lost")) shouldBe true
                heard.last() shouldBe "lost"
            }
            withClue("state() after the loss") { lease.state() shouldBe LeaseState.LOST }
        } finally {
            fixture.makeAvailable()
        }
    },

    scenario("shouldTellListenersOfWaitsHandoffsAndCancellations", "G7, G8") {
        // Given a holder, and a node whose listener records everything
        val listener = RecordingListener()
        val holder = newClient()
        val waiter = newNode { listener(listener) }
        val quitter = newNode { listener(listener) }
        val held = holder.lock(lockName).acquire(Timing.ACQUIRE_WAIT)
        // When one acquisition waits, with its release subscription active (it retries once subscribed)...
        val waiting = waiter.client.lock(lockName).acquireAsync(Duration.ofSeconds(30))
        await("the waiter is subscribed and has tried again") { waiter.counter.count(ScriptNames.ACQUIRE) >= 2 }
        // ...and another waits and gives up
        val givingUp = quitter.client.lock(lockName).acquireAsync(Duration.ofSeconds(30))
        await("both waits started") { listener.waitsStarted.size == 2 }
        givingUp.cancel(false)
        await("the cancellation is reported") { listener.cancelled == listOf(lockName) && listener.waitsEnded.size == 1 }
        // And the holder releases
        withClue("release() by the holder") { held.release() shouldBe true }
        val next = waiting.value("the waiter's lease after the release")
        // Then the waiter's handoff, acquisition and end of wait are reported, in that order (one node's
        // events arrive in order; the other node's all came before the release)
        await("the handoff is reported") { listener.acquired.contains(next.fencingToken()) && listener.waitsEnded.size == 2 }
        withClue("handoffs heard") { listener.handoffs shouldBe listOf(next.fencingToken()) }
        val heard = listener.sequence.toList()
        withClue("events heard: $heard") {
            heard shouldBe listOf("waitStarted", "waitStarted", "waitEnded", "cancelled", "handoff", "acquired", "waitEnded")
        }
        withClue("release() by the waiter") { next.release() shouldBe true }
    },
)
