package io.leasehold.lock.testkit.conformance

import io.leasehold.lock.LockBackendException
import io.leasehold.lock.LockInterruptedException
import io.leasehold.lock.spi.ScriptNames
import io.leasehold.lock.testkit.LockBackendFixture.Fault
import java.time.Duration

// G8: a wait that is cancelled, times out or is interrupted leaves no lock, also when the acquire
// already ran in Redis but its reply was lost or raced the cancel.

/**
 * Asserts that nothing holds the lock for long: a third node gets it within a few seconds. An
 * orphan left by the scenario would hold it for the scenario's 30 s lease (or forever, if renewed).
 */
private fun ScenarioContext.shouldBeFreeSoon(what: String) {
    val probe = newClient()
    probe.lock(lockName).tryAcquire(Duration.ofSeconds(5)).present("tryAcquire() by a third node $what").use { }
    await("the lock is free $what") { !probe.lock(lockName).isLocked }
}

internal val cancellationScenarios: List<Scenario> = listOf(

    scenario("shouldLeaveNoLockWhenWaitIsCancelled", "G8") {
        // Given a holder and a waiter on another node
        val a = newClient()
        val waiter = newNode()
        val held = a.lock(lockName).acquire(Timing.ACQUIRE_WAIT)
        val waiting = waiter.client.lock(lockName).acquireAsync(Duration.ofSeconds(30))
        await("the waiter has tried once") { waiter.counter.count(ScriptNames.ACQUIRE) >= 1 }
        // When the waiter's future is cancelled, and the holder then releases
        withClue("cancel() of a waiting acquireAsync") { waiting.cancel(true) shouldBe true }
        withClue("release() by the holder") { held.release() shouldBe true }
        // Then the cancelled waiter does not take (and keep) the lock
        withClue("isCancelled()") { waiting.isCancelled shouldBe true }
        await("the cancelled waiter's subscription is dropped; ${waiter.counter}") { waiter.counter.activeSubscriptions() == 0L }
        shouldBeFreeSoon("after the cancelled waiter's holder released")
    },

    scenario("shouldLeaveNoLockWhenWaitingThreadIsInterrupted", "G8") {
        // Given a holder and a thread of another node blocked in acquire
        val a = newClient()
        val waiter = newNode()
        val held = a.lock(lockName).acquire(Timing.ACQUIRE_WAIT)
        val blocked = startThread("interrupted-waiter") {
            try {
                waiter.client.lock(lockName).acquire(Duration.ofSeconds(30))
            } catch (e: LockInterruptedException) {
                // Report whether the engine set the interrupt flag again, as documented
                throw InterruptOutcome(e, Thread.currentThread().isInterrupted)
            }
        }
        await("the waiter has tried once") { waiter.counter.count(ScriptNames.ACQUIRE) >= 1 }
        // When the thread is interrupted, and the holder then releases
        blocked.thread.interrupt()
        val outcome = blocked.result.failure("acquire() on an interrupted thread").shouldBeInstanceOf<InterruptOutcome>()
        // Then acquire throws LockInterruptedException with the flag set again, and takes nothing
        outcome.exception.shouldBeAbout(lockName)
        withClue("interrupt flag when LockInterruptedException is thrown") { outcome.flagSet shouldBe true }
        withClue("release() by the holder") { held.release() shouldBe true }
        shouldBeFreeSoon("after the interrupted waiter's holder released")
    },

    scenario("shouldThrowInterruptedAndKeepNoLeaseWhenTheThreadIsInterruptedBeforeTheLeaseIsReturned", "G8") {
        // Given a free lock, and a thread whose interrupt comes before acquire() returns (here: before
        // it is called, so that the lease is granted while the thread is already interrupted; a
        // backend that answers at once has the lease ready before the thread waits at all)
        val node = newNode()
        val outcome = startThread("interrupted-before-return") {
            Thread.currentThread().interrupt()
            try {
                node.client.lock(lockName).acquire(Duration.ofSeconds(30))
            } catch (e: LockInterruptedException) {
                throw InterruptOutcome(e, Thread.currentThread().isInterrupted)
            }
        }.result.failure("acquire() on an interrupted thread").shouldBeInstanceOf<InterruptOutcome>()
        // Then acquire() throws LockInterruptedException with the flag set again, as documented,
        // rather than returning a lease to a thread that was told to stop, and the lock is free
        outcome.exception.shouldBeAbout(lockName)
        withClue("interrupt flag when LockInterruptedException is thrown") { outcome.flagSet shouldBe true }
        shouldBeFreeSoon("after the interrupted acquire")
    },

    scenario("shouldLeaveNoOrphanWhenAcquireReplyIsLost", "G8, G9", Fault.LOSE_REPLY) {
        // Given a node with a 500 ms command timeout whose next acquire runs in Redis but gets no reply
        val b = newClient(commandTimeout = Timing.FAST_COMMAND_TIMEOUT)
        fixture.loseNextReply()
        // When it tries once, without waiting
        val thrown = shouldThrow<LockBackendException> { b.lock(lockName).tryAcquire() }
        // Then the unknown outcome is a backend failure with its cause (no time was left to retry),
        // and the engine released what the acquire took
        thrown.shouldBeAbout(lockName)
        withClue("cause of the LockBackendException") { thrown.cause.shouldNotBeNull() }
        shouldBeFreeSoon("after the acquire whose reply was lost")
    },

    scenario("shouldRetryAnAcquireWhoseReplyIsLostWhileTheWaitHasTimeLeft", "G8, G9", Fault.LOSE_REPLY) {
        // Given a node with a 500 ms command timeout whose next acquire runs in Redis but gets no reply
        val b = newNode(commandTimeout = Timing.FAST_COMMAND_TIMEOUT)
        fixture.loseNextReply()
        // When it acquires with time to spare
        val lease = b.client.lock(lockName).acquire(Duration.ofSeconds(5))
        // Then the retry (same owner: idempotent) got the lock, and it is this lease's and nobody else's
        withClue("acquire calls: the lost one and its retry") { b.counter.count(ScriptNames.ACQUIRE) shouldBe 2L }
        withClue("holder token") { b.client.lock(lockName).inspect().present("inspect()").fencingToken() shouldBe lease.fencingToken() }
        withClue("release()") { lease.release() shouldBe true }
        shouldBeFreeSoon("after the retried acquire was released")
    },

    scenario("shouldLeaveNoOrphanWhenAcquireInFlightIsCancelled", "G8", Fault.LATENCY) {
        // Given every call takes 500 ms before it runs
        val latency = Duration.ofMillis(500)
        val b = newNode(commandTimeout = Duration.ofSeconds(5))
        fixture.setLatency(latency)
        // When an acquire is sent and cancelled before it runs in Redis
        val acquiring = b.client.lock(lockName).acquireAsync(Duration.ofSeconds(10))
        await("the acquire was sent") { b.counter.count(ScriptNames.ACQUIRE) >= 1 }
        withClue("cancel() of an in-flight acquireAsync") { acquiring.cancel(true) shouldBe true }
        // Then once it has run, the engine releases it
        hold(latency.multipliedBy(3)) // the delayed acquire runs in the store meanwhile
        await("the lock is free after the cancelled acquire ran", Duration.ofSeconds(15)) { !b.client.lock(lockName).isLocked }
        fixture.setLatency(Duration.ZERO)
        shouldBeFreeSoon("after the cancelled in-flight acquire")
    },
)

/** What an interrupted acquire threw, and whether the interrupt flag was set again. */
private class InterruptOutcome(val exception: LockInterruptedException, val flagSet: Boolean) :
    RuntimeException("LockInterruptedException (flag set again: $flagSet)", exception)
