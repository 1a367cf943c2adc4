package io.leasehold.lock.testkit.conformance

import io.leasehold.lock.LockBackendException
import io.leasehold.lock.LockTimeoutException
import io.leasehold.lock.spi.ScriptNames
import io.leasehold.lock.testkit.LockBackendFixture.Fault
import java.time.Duration
import java.util.concurrent.atomic.AtomicBoolean

// G9: three outcomes, never conflated: acquired; contended (LockTimeoutException or an empty
// Optional); backend failure (LockBackendException with its cause).

internal val outcomeScenarios: List<Scenario> = listOf(

    scenario("shouldReportContentionAsTimeoutNotFailure", "G9") {
        // Given a held lock
        val a = newClient()
        val b = newClient()
        val held = a.lock(lockName).acquire(Timing.ACQUIRE_WAIT)
        val lock = b.lock(lockName)
        // Then every way of asking reports "contended", never a backend failure
        shouldThrow<LockTimeoutException> { lock.acquire(Timing.SHORT_WAIT) }.shouldBeAbout(lockName)
        lock.tryAcquire().shouldBeAbsent("tryAcquire() of a held lock")
        lock.tryAcquire(Timing.SHORT_WAIT).shouldBeAbsent("tryAcquire(wait) of a held lock")
        lock.tryAcquireAsync(Timing.SHORT_WAIT).value("tryAcquireAsync of a held lock").shouldBeAbsent("tryAcquireAsync(wait) of a held lock")
        lock.acquireAsync(Timing.SHORT_WAIT).failure("acquireAsync of a held lock").shouldBeInstanceOf<LockTimeoutException>()
        val ran = AtomicBoolean()
        shouldThrow<LockTimeoutException> { lock.callLocked(Timing.SHORT_WAIT) { ran.set(true) } }
        shouldThrow<LockTimeoutException> { lock.runLocked(Timing.SHORT_WAIT) { ran.set(true) } }
        withClue("a body ran without the lock") { ran.get() shouldBe false }
        withClue("release() by the holder") { held.release() shouldBe true }
    },

    scenario("shouldReportUnreachableBackendAsBackendFailureNotContention", "G9", Fault.UNAVAILABLE) {
        // Given the backend is unreachable
        val b = newClient(commandTimeout = Duration.ofMillis(300))
        val lock = b.lock(lockName)
        fixture.makeUnavailable()
        // Then every way of asking reports a backend failure with its cause, never "contended"
        val thrown = shouldThrow<LockBackendException> { lock.acquire(Duration.ofSeconds(1)) }
        thrown.shouldBeAbout(lockName)
        withClue("cause of the LockBackendException") { thrown.cause.shouldNotBeNull() }
        shouldThrow<LockBackendException> { lock.tryAcquire() }
        shouldThrow<LockBackendException> { lock.tryAcquire(Duration.ofMillis(500)) }
        lock.tryAcquireAsync(Duration.ZERO).failure("tryAcquireAsync while unreachable").shouldBeInstanceOf<LockBackendException>()
        lock.acquireAsync(Duration.ZERO).failure("acquireAsync while unreachable").shouldBeInstanceOf<LockBackendException>()
        val ran = AtomicBoolean()
        shouldThrow<LockBackendException> { lock.callLocked(Duration.ZERO) { ran.set(true) } }
        withClue("a body ran without the lock") { ran.get() shouldBe false }
        // And once it is back, nothing was left locked
        fixture.makeAvailable()
        newClient().lock(lockName).tryAcquire(Duration.ofSeconds(5)).present("tryAcquire() once the backend is back").use { }
    },

    scenario("shouldRetryATransientBackendFailureWhileTheWaitHasTimeLeft", "G9", Fault.UNAVAILABLE) {
        // Given the backend is unreachable when a node starts a 10 s wait
        val b = newNode(commandTimeout = Duration.ofMillis(300))
        fixture.makeUnavailable()
        val acquiring = b.client.lock(lockName).acquireAsync(Duration.ofSeconds(10))
        // (an attempt first asks the backend which publish command to use, unless the node knows it)
        await("the first attempt was made") {
            b.counter.count(ScriptNames.ACQUIRE) >= 1 || b.counter.publishModeQueries() >= 1
        }
        hold(Duration.ofMillis(800))
        withClue("acquisition while the backend is down, with time left: ${acquiring.getNow(null)}") { acquiring.isDone shouldBe false }
        // When the backend comes back within the wait
        fixture.makeAvailable()
        // Then the acquisition succeeds: a transient failure with time left is no backend failure
        val lease = acquiring.value("the lease once the backend is back", Duration.ofSeconds(20))
        withClue("isValid()") { lease.isValid shouldBe true }
        withClue("release()") { lease.release() shouldBe true }
    },
)
