package io.leasehold.lock.testkit.conformance

import io.leasehold.lock.LockBackendException
import io.leasehold.lock.LockInterruptedException
import io.leasehold.lock.spi.LockBackend
import io.leasehold.lock.spi.LuaScript
import io.leasehold.lock.spi.ScriptNames
import io.leasehold.lock.testkit.ForwardingLockBackend
import io.leasehold.lock.testkit.LockBackendFixture.Fault
import java.time.Duration
import java.util.concurrent.CompletableFuture
import java.util.concurrent.CopyOnWriteArrayList

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
        val replies = AcquireReplyTimes(Timing.FAST_COMMAND_TIMEOUT)
        val b = newNode(commandTimeout = Timing.FAST_COMMAND_TIMEOUT, wrap = { replies.around(it) })
        fixture.loseNextReply()
        // When it acquires with time to spare
        val lease = b.client.lock(lockName).acquire(Duration.ofSeconds(5))
        // Then a retry got the lock, answered within the command timeout, and it is this lease's and nobody
        // else's. On one store the retry is the same call (same owner: idempotent), so the engine sent no
        // call beyond the lost one and its retry, save after a retry that itself got no reply in time (a
        // loaded machine's: each call's reply time is named). Where grants are composed (a quorum), each
        // attempt has an owner of its own: a retry may find the lost attempt's grant held until the
        // engine's clean-up of it lands, and asks again once that release is heard.
        withClue("acquire calls: the lost one and its retry; ${replies.describe()}") {
            val calls = b.counter.count(ScriptNames.ACQUIRE)
            if (b.counter.grantsAreComposed()) {
                calls shouldBeGreaterThanOrEqualTo 2L
            } else {
                calls shouldBe 2L + replies.retriesUnansweredInTime()
            }
            replies.lastAnsweredInTime() shouldBe true
        }
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

/**
 * When each acquire call got its reply, measured around the backend the engine calls. The engine's own
 * timer starts a little before the call and sees the reply a little after, so each judgement allows
 * 100 ms: a retry counts as unanswered in time (one the engine may have timed out and sent again) when
 * it got no reply within [timeout] less 100 ms; the last call as answered in time when it got its reply
 * within [timeout] plus 100 ms.
 */
private class AcquireReplyTimes(private val timeout: Duration) {
    private class Call(val sentNanos: Long) {
        @Volatile
        var repliedAfterNanos: Long = -1 // -1: no reply (none yet, or a failure)
    }

    private val calls = CopyOnWriteArrayList<Call>()
    private val allowanceNanos = Duration.ofMillis(100).toNanos()

    fun around(backend: LockBackend): LockBackend = object : ForwardingLockBackend(backend) {
        override fun eval(script: LuaScript, keys: List<String>, args: List<String>, writing: Runnable): CompletableFuture<Any> {
            val reply = super.eval(script, keys, args, writing)
            if (script.name() != ScriptNames.ACQUIRE) {
                return reply
            }
            val call = Call(System.nanoTime())
            calls += call
            // the engine hears the reply only once it is recorded (so the scenario reads it after the
            // acquire returned), and a cancel reaches the call
            val recorded = CompletableFuture<Any>()
            reply.whenComplete { value, error ->
                if (error == null) {
                    call.repliedAfterNanos = System.nanoTime() - call.sentNanos
                    recorded.complete(value)
                } else {
                    recorded.completeExceptionally(error)
                }
            }
            recorded.whenComplete { _, _ -> if (recorded.isCancelled) reply.cancel(false) }
            return recorded
        }
    }

    /** The calls after the first (the lost one) and before the last that got no reply in time. */
    fun retriesUnansweredInTime(): Long = calls.drop(1).dropLast(1).count {
        it.repliedAfterNanos < 0 || it.repliedAfterNanos >= timeout.toNanos() - allowanceNanos
    }.toLong()

    fun lastAnsweredInTime(): Boolean =
        calls.lastOrNull()?.repliedAfterNanos?.let { it in 0 until timeout.toNanos() + allowanceNanos } ?: false

    fun describe(): String = "acquire replies after " + calls.map {
        if (it.repliedAfterNanos < 0) "none" else "${it.repliedAfterNanos / 1_000_000} ms"
    }
}

/** What an interrupted acquire threw, and whether the interrupt flag was set again. */
private class InterruptOutcome(val exception: LockInterruptedException, val flagSet: Boolean) :
    RuntimeException("LockInterruptedException (flag set again: $flagSet)", exception)
