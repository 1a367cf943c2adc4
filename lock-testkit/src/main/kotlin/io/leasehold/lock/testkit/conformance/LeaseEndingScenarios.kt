package io.leasehold.lock.testkit.conformance

import io.leasehold.lock.Lease
import io.leasehold.lock.LeaseLoss
import io.leasehold.lock.LeaseLostException
import io.leasehold.lock.LeaseState
import io.leasehold.lock.LockClient
import io.leasehold.lock.LockEventListener
import io.leasehold.lock.ReleaseUnconfirmedException
import io.leasehold.lock.testkit.LockBackendFixture.Fault
import io.leasehold.lock.withLock
import java.time.Duration
import java.util.concurrent.CompletableFuture
import java.util.concurrent.CopyOnWriteArrayList
import java.util.concurrent.CountDownLatch
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicBoolean
import java.util.concurrent.atomic.AtomicReference
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.awaitCancellation
import kotlinx.coroutines.runBlocking

// G6, G12: every way a lease can end, and what each observer sees: state(), lost(), the listeners
// (and so the metrics built on them), and what callLocked / withLock / callLockedAsync report. A lease
// ends exactly once, released or lost, and all of them say the same.

/** Waits until [listener] has heard the ending of the lease with [token], and returns it; fails if it heard two. */
private fun ScenarioContext.endingOf(listener: RecordingListener, token: Long, what: String): RecordingListener.Ending {
    await("the listener hears how $what ended") { listener.endings.any { it.token == token } }
    val endings = listener.endings.filter { it.token == token }
    withClue("ending events of $what: $endings") { endings.size shouldBe 1 }
    return endings.single()
}

/** Asserts what every observer of [lease] says once it ended lost with [reason]. */
private fun ScenarioContext.shouldHaveEndedLost(lease: Lease, listener: RecordingListener, reason: LeaseLoss.Reason, what: String) {
    withClue("state() of $what") { lease.state() shouldBe LeaseState.LOST }
    withClue("isValid() of $what") { lease.isValid shouldBe false }
    withClue("lost() of $what") { lease.lost().value("lost() of $what").reason() shouldBe reason }
    val ending = endingOf(listener, lease.fencingToken(), what)
    withClue("the listener's ending of $what") { ending.kind shouldBe "lost" }
    withClue("the listener's loss reason of $what") { ending.loss!!.reason() shouldBe reason }
}

/** Asserts what every observer of [lease] says once it ended released, confirmed by Redis or not. */
private fun ScenarioContext.shouldHaveEndedReleased(lease: Lease, listener: RecordingListener, confirmed: Boolean, what: String) {
    withClue("state() of $what") { lease.state() shouldBe LeaseState.RELEASED }
    withClue("isValid() of $what") { lease.isValid shouldBe false }
    val ending = endingOf(listener, lease.fencingToken(), what)
    withClue("the listener's ending of $what") { ending.kind shouldBe if (confirmed) "released" else "releaseUnconfirmed" }
    // Asked after the ending event, which follows the state change: a loss would have completed it by now.
    withClue("lost() of $what (a release, not a loss)") { lease.lost().isDone shouldBe false }
}

/**
 * The three body-style calls, one after another, each on a lock of its own (an unconfirmed release
 * leaves its lock in Redis until it expires), each given a body that does [during] with its lease and
 * followed by [after]; returns each outcome with its lease.
 */
private fun ScenarioContext.bodyOutcomes(
    client: LockClient,
    after: () -> Unit = {},
    during: (Lease) -> Unit,
): List<Triple<String, Result<String>, Lease>> {
    val leases = CopyOnWriteArrayList<Lease>()
    val locked = runCatching {
        client.lock(uniqueName("callWithLease")).callWithLease(Timing.ACQUIRE_WAIT) { lease -> leases += lease; during(lease); "done" }
    }
    after()
    val async = runCatching {
        try {
            client.lock(uniqueName("callLockedAsync")).callLockedAsync(Timing.ACQUIRE_WAIT) { lease ->
                leases += lease
                during(lease)
                CompletableFuture.completedFuture("done")
            }.get(Timing.AWAIT.toMillis(), TimeUnit.MILLISECONDS)
        } catch (e: java.util.concurrent.ExecutionException) {
            throw e.cause ?: e
        }
    }
    after()
    val suspended = runCatching {
        runBlocking(Dispatchers.Default) {
            client.lock(uniqueName("withLock")).withLock(kotlin.time.Duration.parse("10s")) { lease -> leases += lease; during(lease); "done" }
        }
    }
    after()
    val outcomes = listOf("callWithLease" to locked, "callLockedAsync" to async, "withLock" to suspended)
    withClue("every body ran; outcomes: $outcomes") { leases.size shouldBe 3 }
    return outcomes.mapIndexed { i, (what, outcome) -> Triple(what, outcome, leases[i]) }
}

/** Events of one lease with the time each was heard and, for "uncertain", how long it said the lease stayed valid. */
private class TimedEvents : LockEventListener {
    data class Event(val token: Long, val kind: String, val atNanos: Long, val validFor: Duration?, val cause: Throwable?)

    val events: MutableList<Event> = CopyOnWriteArrayList()

    override fun onLeaseUncertain(lockName: String, fencingToken: Long, validFor: Duration, cause: Throwable) {
        events += Event(fencingToken, "uncertain", System.nanoTime(), validFor, cause)
    }

    override fun onLeaseLost(loss: LeaseLoss) {
        events += Event(loss.fencingToken(), "lost", System.nanoTime(), null, loss.cause().orElse(null))
    }

    override fun onLeaseReconfirmed(lockName: String, fencingToken: Long) {
        events += Event(fencingToken, "reconfirmed", System.nanoTime(), null, null)
    }

    fun of(token: Long): List<Event> = events.filter { it.token == token }
}

/** Lease times from the minimum up, for the frozen-backend scenario. */
private val FROZEN_LEASE_TIMES: List<Duration> =
    listOf(io.leasehold.lock.LockOptions.MIN_LEASE_TIME, Duration.ofMillis(100), Duration.ofMillis(300), Duration.ofSeconds(1), Duration.ofSeconds(3))

/**
 * The delay of each chunk, each way, while a release hands the lock over at close: its round trip (a
 * second) is the margin that the test thread's own stalls must stay under between the release and close().
 */
private val HANDOFF_LATENCY: Duration = Duration.ofMillis(500)

/** From this lease time on, the early warning must leave the holder time to act, whatever the machine's noise. */
private val WARNING_WITH_TIME_LEFT_FROM: Duration = Duration.ofSeconds(1)

internal val leaseEndingScenarios: List<Scenario> = listOf(

    scenario("shouldEndLeaseLostWhenItsReleaseFindsTheLockGone", "G2, G6") {
        // Given a held lease, and an operator who force-releases its lock behind its back
        val listener = RecordingListener()
        val a = newClient { listener(listener) }
        val operator = newClient()
        val lease = a.lock(lockName).acquire(Timing.ACQUIRE_WAIT)
        withClue("forceRelease()") { operator.lock(lockName).forceRelease() shouldBe true }
        // When the holder releases it (the watchdog has not noticed: its next renewal is 10 s away)
        val released = lease.release()
        // Then the release reports the loss, and every observer agrees: the lease was lost, not released
        withClue("release() of a lease whose lock was deleted") { released shouldBe false }
        shouldHaveEndedLost(lease, listener, LeaseLoss.Reason.STOLEN, "the lease")
        // And so do the body-style calls, whose work may have overlapped with another holder
        bodyOutcomes(a) { lease -> operator.lock(lease.lockName()).forceRelease() }.forEach { (what, outcome, bodyLease) ->
            withClue("$what outcome when its release found the lock gone: $outcome") {
                outcome.exceptionOrNull().shouldBeInstanceOf<LeaseLostException>().loss().reason() shouldBe LeaseLoss.Reason.STOLEN
            }
            shouldHaveEndedLost(bodyLease, listener, LeaseLoss.Reason.STOLEN, "the lease of $what")
        }
    },

    scenario("shouldEndLeaseLostWhenItsReleaseFindsAnotherOwnersLock", "G1, G2, G6") {
        // Given a held lease whose lock was force-released and taken by another node meanwhile
        val listener = RecordingListener()
        val a = newClient { listener(listener) }
        val b = newClient()
        val lease = a.lock(lockName).acquire(Timing.ACQUIRE_WAIT)
        withClue("forceRelease()") { b.lock(lockName).forceRelease() shouldBe true }
        val next = b.lock(lockName).acquire(Timing.ACQUIRE_WAIT)
        // When the old holder releases
        val released = lease.release()
        // Then it leaves the new holder's lock alone and reports the loss, which every observer agrees on
        withClue("release() of a lease whose lock another owner holds") { released shouldBe false }
        withClue("the new holder's token after the old holder's release") {
            b.lock(lockName).inspect().present("inspect()").fencingToken() shouldBe next.fencingToken()
        }
        shouldHaveEndedLost(lease, listener, LeaseLoss.Reason.STOLEN, "the old holder's lease")
        withClue("release() by the new holder") { next.release() shouldBe true }
    },

    scenario("shouldEndLeaseReleasedUnconfirmedWhenRedisCannotBeReachedUntilTheReleaseGivesUp", "G6, G9", Fault.UNAVAILABLE) {
        // Given a held lease, and Redis unreachable from now until the release gives up (one command timeout)
        val listener = RecordingListener()
        val a = newClient(commandTimeout = Timing.FAST_COMMAND_TIMEOUT) { listener(listener) }
        val lease = a.lock(lockName).acquire(Timing.ACQUIRE_WAIT)
        fixture.makeUnavailable()
        try {
            // When the holder releases (its work ended while the lease was valid)
            val failure = runCatching { lease.release() }.exceptionOrNull()
            // Then release() says the release could not be confirmed, with the backend failure attached
            val unconfirmed = withClue("release() while Redis is unreachable") { failure.shouldBeInstanceOf<ReleaseUnconfirmedException>() }
            withClue("the cause of $unconfirmed") { unconfirmed.cause.shouldNotBeNull() }
            // And every observer agrees: released (not lost), unconfirmed
            shouldHaveEndedReleased(lease, listener, confirmed = false, "the lease")
            // And the body-style calls return the body's result: the work ended in time
            // (Redis reachable for each call's acquire, unreachable from inside its body on)
            fixture.makeAvailable()
            bodyOutcomes(a, after = { fixture.makeAvailable() }) { fixture.makeUnavailable() }.forEach { (what, outcome, bodyLease) ->
                withClue("$what outcome when its release could not reach Redis: $outcome") { outcome.getOrNull() shouldBe "done" }
                shouldHaveEndedReleased(bodyLease, listener, confirmed = false, "the lease of $what")
            }
        } finally {
            fixture.makeAvailable()
        }
    },

    scenario("shouldEndLeaseReleasedUnconfirmedWhenRedisAnswersTheReleaseOnlyAfterTheLeaseRanOut", "G4, G6", Fault.LATENCY) {
        // Given a lease of 600 ms, not renewed, and a network that from now on delays each call by 1 s
        val listener = RecordingListener()
        val a = newClient { listener(listener) }
        val lease = a.lock(lockName, options(leaseTime = Duration.ofMillis(600), autoRenew = false)).acquire(Timing.ACQUIRE_WAIT)
        fixture.setLatency(Duration.ofSeconds(1))
        try {
            // When the holder releases while the lease is valid, but the release reaches Redis after its TTL
            withClue("the lease is valid when it is released") { lease.isValid shouldBe true }
            val released = lease.release()
            // Then Redis found the lock gone, which proves nothing (it may have expired after the work):
            // released, unconfirmed, and not a loss
            withClue("release() that reached Redis after the lease ran out") { released shouldBe false }
            shouldHaveEndedReleased(lease, listener, confirmed = false, "the lease")
        } finally {
            fixture.setLatency(Duration.ZERO)
        }
    },

    scenario("shouldEndHeldLeasesLostAndTellTheirHoldersBeforeFreeingTheLocksOnClose", "G6, G12") {
        // Given a node that holds a lease by hand, one under a callLocked body and one under a withLock block
        val listener = RecordingListener()
        val a = newClient { listener(listener) }
        val b = newClient()
        val names = listOf(lockName, uniqueName("callLocked"), uniqueName("withLock"))
        val byHand = a.lock(names[0]).acquire(Timing.ACQUIRE_WAIT)
        val bodyStarted = CountDownLatch(2)
        val bodyInterrupted = AtomicBoolean()
        val lockedLease = AtomicReference<Lease>()
        val locked = startThread("callLocked") {
            a.lock(names[1]).callWithLease(Timing.ACQUIRE_WAIT) { lease ->
                lockedLease.set(lease)
                bodyStarted.countDown()
                try {
                    CountDownLatch(1).await(30, TimeUnit.SECONDS)
                    "the body was never interrupted"
                } catch (e: InterruptedException) {
                    bodyInterrupted.set(true)
                    throw e
                }
            }
        }
        val blockLease = AtomicReference<Lease>()
        val suspended = startThread("withLock") {
            runBlocking(Dispatchers.Default) {
                a.lock(names[2]).withLock(kotlin.time.Duration.parse("10s")) { lease ->
                    blockLease.set(lease)
                    bodyStarted.countDown()
                    awaitCancellation()
                }
            }
        }
        withClue("both bodies start") { bodyStarted.await(10, TimeUnit.SECONDS) shouldBe true }
        // When the node closes
        a.close()
        // Then each holder was told its lease was lost because the client closed...
        withClue("callLocked outcome") {
            locked.result.failure("callLocked when its client closed").shouldBeInstanceOf<LeaseLostException>().loss().reason() shouldBe
                LeaseLoss.Reason.CLIENT_CLOSED
        }
        withClue("the callLocked body saw InterruptedException") { bodyInterrupted.get() shouldBe true }
        withClue("withLock outcome") {
            suspended.result.failure("withLock when its client closed").shouldBeInstanceOf<LeaseLostException>().loss().reason() shouldBe
                LeaseLoss.Reason.CLIENT_CLOSED
        }
        listOf("the lease held by hand" to byHand, "the callLocked lease" to lockedLease.get(), "the withLock lease" to blockLease.get())
            .forEach { (what, lease) -> shouldHaveEndedLost(lease, listener, LeaseLoss.Reason.CLIENT_CLOSED, what) }
        // ...and every lock is free right after close() returned, not left to expire
        names.forEach { name -> b.lock(name).tryAcquire().present("tryAcquire() of '$name' right after its holder closed").use { } }
    },

    scenario("shouldSettleAReleaseAskedBeforeCloseWhileItsHandoffIsOnItsWay", "G8, G12", Fault.LATENCY) {
        val b = newClient()
        // A machine stalled for longer than the release's round trip lets the release come back before
        // close() (the waiter then legitimately holds the lock, and close() ends that lease): the premise
        // did not happen, so the node is set up again, up to 3 times.
        val premises = mutableListOf<String>()
        var judged = false
        while (!judged && premises.size < 3) {
            // Given a holder and a local waiter of the same node, and a network that delays each call by
            // 500 ms each way
            val a = newNode()
            val lease = a.client.lock(lockName).acquire(Timing.ACQUIRE_WAIT)
            val waiting = a.client.lock(lockName).acquireAsync(Duration.ofSeconds(30))
            await("the waiter has tried once and queues") {
                a.counter.count(io.leasehold.lock.spi.ScriptNames.ACQUIRE) >= 2 && a.counter.subscribeCount() >= 1
            }
            fixture.setLatency(HANDOFF_LATENCY)
            try {
                // When the holder releases (the release hands the lock to the waiter, a second away) and
                // the node closes 20 ms later, the latency still in force for everything close() sends
                val releasing = lease.releaseAsync()
                hold(Duration.ofMillis(20))
                if (releasing.isDone) {
                    premises += "the release came back before close()"
                    a.client.close()
                    continue
                }
                a.client.close()
                judged = true
                // Then close() waited for the release: it reached Redis, the departed waiter got nothing,
                // and the lock is free, not held for a lease time by the released lease or by the waiter
                withClue("releaseAsync() asked before close()") { releasing.value("releaseAsync()") shouldBe true }
                waiting.failure("the waiter's acquisition when its client closed")
            } finally {
                fixture.setLatency(Duration.ZERO)
            }
        }
        withClue("the release still on its way when close() began, in ${premises.size + 1} attempts: $premises") { judged shouldBe true }
        withClue("inspect() right after close()") { b.lock(lockName).inspect().shouldBeAbsent("inspect() right after close()") }
        b.lock(lockName).tryAcquire().present("tryAcquire() right after the holder's node closed").use { }
    },

    scenario("shouldGoUncertainBeforeLostWhenRedisStopsAnsweringAtEveryLeaseTime", "G4, G6", Fault.FREEZE) {
        // Given auto-renewed leases of every lease time from the minimum up, with default options (the
        // command timeout, 5 s, is longer than most of these leases)
        val listener = TimedEvents()
        val a = newClient(commandTimeout = LockClient.Builder.DEFAULT_COMMAND_TIMEOUT) { listener(listener) }
        FROZEN_LEASE_TIMES.forEach { leaseTime ->
            // A lease so short that the machine's own stalls can end it before the freeze, or before its
            // first renewal is even sent (EXPIRED: the process, not Redis), is taken again, up to 5 times.
            val attempts = mutableListOf<String>()
            var judged = false
            while (!judged && attempts.size < 5) {
                val lease = a.lock(uniqueName("lease-$leaseTime"), options(leaseTime = leaseTime)).acquire(Timing.ACQUIRE_WAIT)
                // When Redis stops answering (frozen, as by SIGSTOP)
                fixture.freeze()
                val loss = try {
                    lease.lost().value("lost() of a $leaseTime lease while Redis is frozen")
                } finally {
                    fixture.thaw()
                }
                if (loss.reason() != LeaseLoss.Reason.BACKEND_UNAVAILABLE) {
                    attempts += "${loss.reason()} (${loss.cause().orElse(null)})"
                    continue
                }
                judged = true
                // Then the holder heard UNCERTAIN before LOST, and the loss names its cause: the renewal's timeout
                await("the listener hears the loss of the $leaseTime lease") { listener.of(lease.fencingToken()).any { it.kind == "lost" } }
                val events = listener.of(lease.fencingToken())
                withClue("events of the $leaseTime lease: ${events.map { it.kind }}") {
                    events.map { it.kind }.filter { it != "reconfirmed" }.takeLast(2) shouldBe listOf("uncertain", "lost")
                }
                withClue("the cause of the $leaseTime lease's loss: $loss") {
                    loss.cause().orElse(null).shouldBeInstanceOf<java.util.concurrent.TimeoutException>()
                }
                if (leaseTime >= WARNING_WITH_TIME_LEFT_FROM) {
                    val warning = events.last { it.kind == "uncertain" }
                    withClue("the $leaseTime lease went uncertain with time left to act (validFor ${warning.validFor})") {
                        warning.validFor!! shouldBeGreaterThan Duration.ZERO
                    }
                }
            }
            withClue("a $leaseTime lease lost because Redis stopped answering, in ${attempts.size + 1} attempts; others ended: $attempts") {
                judged shouldBe true
            }
        }
    },
)
