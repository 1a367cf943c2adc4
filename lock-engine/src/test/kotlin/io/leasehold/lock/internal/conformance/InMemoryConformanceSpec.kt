package io.leasehold.lock.internal.conformance

import io.kotest.core.spec.style.FunSpec
import io.leasehold.lock.testkit.InMemoryFixture
import io.leasehold.lock.testkit.LockBackendFixture
import io.leasehold.lock.testkit.conformance.ConformanceScenarios
import io.leasehold.lock.testkit.conformance.lockConformanceTests

/**
 * The kotest form of the conformance suite, proved on a sample of scenarios against the in-memory
 * backend: the JUnit form ([InMemoryConformancePart] and every driver's test) runs all of them, so
 * running all of them again here would prove the scenarios twice and the kotest form no better. The
 * sample has a plain scenario, one that injects a fault, one that runs the Kotlin API, one whose fault
 * the fixture here declares unsupported (kotest must report it ignored, with the reason, never as
 * passed), and one of threads and timing. [KotestConformanceFactoryTest] checks that the factory
 * registers every scenario.
 */
class InMemoryConformanceSpec : FunSpec({
    include(lockConformanceTests(SAMPLE.map(ConformanceScenarios::named)) { WithoutLatency(InMemoryFixture()) })
})

private val SAMPLE = listOf(
    "shouldRefuseSecondAcquirerWhileHeld",
    "shouldSignalStolenWhenLockIsDeletedBehindHoldersBack",
    "shouldCancelWithLockBlockOnLossAndThrowLeaseLost",
    "shouldNeverHandOutALeaseThatIsNoLongerValid", // needs LATENCY, which the fixture here lacks: ignored
    "shouldEndHeldLeasesLostAndTellTheirHoldersBeforeFreeingTheLocksOnClose",
    "shouldKeepRenewingWhileAUserContinuationBlocks",
)

/** The in-memory fixture, declaring that it cannot inject latency: the kotest form must skip what needs it. */
private class WithoutLatency(private val delegate: InMemoryFixture) : LockBackendFixture by delegate {
    // (Java default methods are not delegated by `by`: forwarded by hand.)
    override fun freeze() = delegate.freeze()

    override fun thaw() = delegate.thaw()

    override fun unsupportedFaults(): Map<LockBackendFixture.Fault, String> =
        mapOf(LockBackendFixture.Fault.LATENCY to "declared unsupported to prove the kotest form skips with the reason")
}
