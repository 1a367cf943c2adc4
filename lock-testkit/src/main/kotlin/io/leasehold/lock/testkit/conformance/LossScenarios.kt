package io.leasehold.lock.testkit.conformance

import io.leasehold.lock.LeaseLoss
import io.leasehold.lock.LeaseLostException
import io.leasehold.lock.spi.ScriptNames
import io.leasehold.lock.testkit.LockBackendFixture.Fault
import io.leasehold.lock.withLock
import java.time.Duration
import java.util.concurrent.CompletableFuture
import java.util.concurrent.CountDownLatch
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicBoolean

// G6: loss is a signal, delivered in time: lost() completes with the reason, listeners fire,
// a Java callLocked body is interrupted (the Kotlin withLock side is in KotlinScenarios).

/** A lease renewed every ~300 ms, so that a loss is noticed quickly. */
private val RENEWED_LEASE: Duration = Duration.ofMillis(900)

internal val lossScenarios: List<Scenario> = listOf(

    scenario("shouldSignalStolenWhenLockIsDeletedBehindHoldersBack", "G6, G11", Fault.DELETE_KEY) {
        // Given a held, auto-renewed lease
        val listener = RecordingListener()
        val a = newClient { listener(listener) }
        val b = newClient()
        val lease = a.lock(lockName, options(leaseTime = RENEWED_LEASE)).acquire(Timing.ACQUIRE_WAIT)
        // When its lock is deleted behind its back
        fixture.deleteKey(lockKey())
        // Then the next renewal notices: lost() completes with STOLEN and the listener hears of it
        val loss = lease.lost().value("lost() after the lock was deleted")
        withClue("loss reason") { loss.reason() shouldBe LeaseLoss.Reason.STOLEN }
        withClue("loss names the lock") { loss.lockName() shouldBe lockName }
        withClue("loss carries the lease's token") { loss.fencingToken() shouldBe lease.fencingToken() }
        await("the listener hears of the loss") { listener.losses.any { it.reason() == LeaseLoss.Reason.STOLEN && it.lockName() == lockName } }
        withClue("isValid() after the loss") { lease.isValid shouldBe false }
        withClue("remaining() after the loss") { lease.remaining() shouldBe Duration.ZERO }
        // And a release after the loss is a documented no-op
        withClue("release() after the loss") { lease.release() shouldBe false }
        b.lock(lockName).tryAcquire().present("tryAcquire() after the loss").use { }
    },

    scenario("shouldSignalStolenWhenLockExpiresEarlyAndLetNextOwnerIn", "G3, G6", Fault.EXPIRE_NOW) {
        // Given a held, auto-renewed lease
        val a = newClient()
        val b = newClient()
        val lease = a.lock(lockName, options(leaseTime = RENEWED_LEASE)).acquire(Timing.ACQUIRE_WAIT)
        // When its key expires early (as after a clock jump or a failover) and another node takes the lock
        fixture.expireNow(lockKey())
        val next = b.lock(lockName).acquire(Timing.ACQUIRE_WAIT)
        // Then the new holder has a greater token and the old one is told STOLEN
        next.fencingToken() shouldBeGreaterThan lease.fencingToken()
        val loss = lease.lost().value("lost() after the key expired early")
        withClue("loss reason") { loss.reason() shouldBe LeaseLoss.Reason.STOLEN }
        withClue("release() by the old holder") { lease.release() shouldBe false }
        withClue("holder after the old holder's release") {
            b.lock(lockName).inspect().present("inspect()").fencingToken() shouldBe next.fencingToken()
        }
        withClue("release() by the new holder") { next.release() shouldBe true }
    },

    scenario("shouldSignalBackendUnavailableBeforeServerSideExpiry", "G4, G6", Fault.UNAVAILABLE) {
        // Given a held, auto-renewed lease of 1 s
        val leaseTime = Duration.ofSeconds(1)
        val a = newClient(commandTimeout = Duration.ofMillis(300))
        val lease = a.lock(lockName, options(leaseTime = leaseTime)).acquire(Timing.ACQUIRE_WAIT)
        val observedAt = CompletableFuture<Long>()
        lease.lost().thenRun { observedAt.complete(System.nanoTime()) }
        // When the backend becomes unreachable: every renewal that ran in Redis ran before this point,
        // so Redis expires the lock no later than this point plus the lease time
        fixture.makeUnavailable()
        val cutOff = System.nanoTime()
        // Then the lease's validity (isValid(), remaining(): decided on the clock) ends before Redis could
        // have given the lock to anyone else...
        val validUntil = latestValidityEnd(lease)
        withClue("validity counted past the cut-off; Redis may expire the lock $leaseTime after it") {
            Duration.ofNanos(validUntil - cutOff) shouldBeLessThanOrEqualTo leaseTime
        }
        // ...and the holder is told BACKEND_UNAVAILABLE, on the callback executor a little later (how much
        // later is the machine's scheduling: see shouldGoUncertainBeforeLostWhenTheBackendStaysAwayPastTheLease)
        val loss = lease.lost().value("lost() while the backend is unreachable")
        withClue("loss reason") { loss.reason() shouldBe LeaseLoss.Reason.BACKEND_UNAVAILABLE }
        val signalled = observedAt.value("the loss callback")
        withClue("loss signalled ${Duration.ofNanos(signalled - cutOff)} after the cut-off, " +
            "${Duration.ofNanos(signalled - validUntil)} after the validity ended") {
            Duration.ofNanos(signalled - validUntil) shouldBeLessThanOrEqualTo Timing.SLACK
        }
        withClue("isValid() after the loss") { lease.isValid shouldBe false }
        fixture.makeAvailable()
    },

    scenario("shouldWakeWaiterAndSignalStolenOnForceRelease", "G2, G6, G7") {
        // Given A holds the lock and B waits for it
        val a = newClient()
        val waiter = newNode()
        val operator = newClient()
        val held = a.lock(lockName, options(leaseTime = RENEWED_LEASE)).acquire(Timing.ACQUIRE_WAIT)
        val waiting = waiter.client.lock(lockName).acquireAsync(Duration.ofSeconds(30))
        await("the waiter has tried once") { waiter.counter.count(ScriptNames.ACQUIRE) >= 1 }
        // When an operator force-releases the lock
        withClue("forceRelease() of a held lock") { operator.lock(lockName).forceRelease() shouldBe true }
        // Then the waiter gets it and A is told STOLEN
        val next = waiting.value("the waiter's lease after the force release")
        next.fencingToken() shouldBeGreaterThan held.fencingToken()
        withClue("loss reason") { held.lost().value("lost() after force release").reason() shouldBe LeaseLoss.Reason.STOLEN }
        withClue("release() of the waiter's lease") { next.release() shouldBe true }
        withClue("forceRelease() of a free lock") { operator.lock(lockName).forceRelease() shouldBe false }
    },

    scenario("shouldInterruptCallLockedBodyOnLoss", "G6", Fault.DELETE_KEY) {
        // Given a callLocked body that blocks, with an auto-renewed lease
        val a = newClient()
        val started = CountDownLatch(1)
        val bodyInterrupted = AtomicBoolean()
        val call = startThread("callLocked") {
            a.lock(lockName, options(leaseTime = RENEWED_LEASE)).callLocked(Timing.ACQUIRE_WAIT) {
                started.countDown()
                try {
                    CountDownLatch(1).await(30, TimeUnit.SECONDS)
                    "the body was never interrupted"
                } catch (e: InterruptedException) {
                    bodyInterrupted.set(true)
                    throw e
                }
            }
        }
        withClue("the body starts") { started.await(10, TimeUnit.SECONDS) shouldBe true }
        // When the lock is deleted behind its back
        fixture.deleteKey(lockKey())
        // Then the body's thread is interrupted and callLocked throws LeaseLostException
        val failure = call.result.failure("callLocked() whose lease is lost")
        val lost = failure.shouldBeInstanceOf<LeaseLostException>()
        withClue("loss reason") { lost.loss().reason() shouldBe LeaseLoss.Reason.STOLEN }
        withClue("the body saw InterruptedException") { bodyInterrupted.get() shouldBe true }
    },

    scenario("shouldReportLeaseLostWhenTheReleaseFindsTheLockGone", "G6, G8", Fault.DELETE_KEY) {
        // Given bodies whose lock is deleted behind their back (a flush, a failover, an operator)
        // before the watchdog could notice (30 s lease: the next renewal is 10 s away)
        val a = newClient()
        val lock = a.lock(lockName)
        // When they return normally
        val locked = runCatching { lock.callLocked(Timing.ACQUIRE_WAIT) { fixture.deleteKey(lockKey()); "done" } }
        val async = runCatching {
            lock.callLockedAsync(Timing.ACQUIRE_WAIT) { _ -> fixture.deleteKey(lockKey()); CompletableFuture.completedFuture("done") }
                .value("callLockedAsync")
        }
        val suspended = runCatching {
            kotlinx.coroutines.runBlocking { lock.withLock(kotlin.time.Duration.parse("10s")) { fixture.deleteKey(lockKey()); "done" } }
        }
        // Then each reports the loss its release found: the work was not exclusive all along
        listOf("callLocked" to locked, "withLock" to suspended).forEach { (what, outcome) ->
            withClue("$what outcome when the release found the lock gone: $outcome") {
                outcome.exceptionOrNull().shouldBeInstanceOf<LeaseLostException>().loss().reason() shouldBe LeaseLoss.Reason.STOLEN
            }
        }
        withClue("callLockedAsync outcome when the release found the lock gone: $async") {
            (async.exceptionOrNull()?.cause ?: async.exceptionOrNull()).shouldBeInstanceOf<LeaseLostException>()
        }
    },

    scenario("shouldRetryAReleaseThatFailsTransiently", "G8, G9", Fault.UNAVAILABLE) {
        // Given a held lease and a backend that is briefly unreachable
        val a = newClient()
        val lease = a.lock(lockName).acquire(Timing.ACQUIRE_WAIT)
        fixture.makeUnavailable()
        // When the holder releases while it is down, and it comes back within the command timeout
        val releasing = lease.releaseAsync()
        hold(Duration.ofMillis(300))
        fixture.makeAvailable()
        // Then the release goes through: the lock is free at once, not after its 30 s lease
        withClue("releaseAsync() across a brief outage") { releasing.value("releaseAsync()") shouldBe true }
        withClue("isLocked() after the release") { newClient().lock(lockName).isLocked shouldBe false }
    },

    scenario("shouldNotReportALossWhenTheBodyReleasedItsLeaseItself", "G6, G8") {
        val a = newClient()
        val b = newClient()
        val lock = a.lock(lockName)
        // When bodies release their own lease before they return (the work is done early)
        val locked = runCatching { lock.callWithLease(Timing.ACQUIRE_WAIT) { lease -> lease.release(); "done" } }
        val async = runCatching {
            lock.callLockedAsync(Timing.ACQUIRE_WAIT) { lease -> lease.releaseAsync().thenApply { "done" } }.value("callLockedAsync")
        }
        val suspended = runCatching {
            kotlinx.coroutines.runBlocking { lock.withLock(kotlin.time.Duration.parse("10s")) { lease -> lease.release(); "done" } }
        }
        // Then they return normally: a release that finds the lease already released is no loss
        listOf("callWithLease" to locked, "callLockedAsync" to async, "withLock" to suspended).forEach { (what, outcome) ->
            withClue("$what outcome after the body released its own lease: $outcome") { outcome.getOrNull() shouldBe "done" }
        }
        withClue("isLocked() after the bodies") { b.lock(lockName).isLocked shouldBe false }
    },
)

