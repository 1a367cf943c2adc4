package io.leasehold.lock.testkit.conformance

import io.kotest.core.factory.TestFactory
import io.kotest.core.spec.style.funSpec
import io.kotest.core.test.Enabled
import io.leasehold.lock.testkit.LockBackendFixture
import kotlin.time.Duration.Companion.seconds

/**
 * The conformance suite as a kotest [TestFactory]: one test per [ConformanceScenarios] scenario,
 * the same scenarios the JUnit form ([LockConformanceSuite]) runs.
 *
 * ```
 * class InMemoryConformanceSpec : FunSpec({
 *     include(lockConformanceTests { InMemoryFixture() })
 * })
 * ```
 *
 * [fixtureFactory] is called once, before the first test runs, and the fixture is closed after the
 * spec; its faults are cleared after every test. A scenario that needs a fault the fixture lists in
 * [LockBackendFixture.unsupportedFaults] is disabled with the fixture's reason (kotest reports it
 * as ignored, and the reason is printed), never run as passed.
 */
public fun lockConformanceTests(fixtureFactory: () -> LockBackendFixture): TestFactory =
    lockConformanceTests(ConformanceScenarios.all, fixtureFactory)

/**
 * The conformance suite as a kotest [TestFactory] of the given [scenarios] only (e.g. while working on
 * one guarantee); [lockConformanceTests] with no list runs them all, as a backend's own test should.
 */
public fun lockConformanceTests(scenarios: List<Scenario>, fixtureFactory: () -> LockBackendFixture): TestFactory = funSpec {
    val fixture = lazy(fixtureFactory)

    afterSpec {
        if (fixture.isInitialized()) fixture.value.close()
    }

    scenarios.forEach { scenario ->
        test(scenario.name).config(
            timeout = 180.seconds,
            // The scenarios block (they drive the blocking Java API too), so give each its own thread.
            blockingTest = true,
            enabledOrReasonIf = {
                val reason = ConformanceScenarios.skipReason(scenario, fixture.value)
                if (reason == null) {
                    Enabled.enabled
                } else {
                    println("SKIPPED ${scenario.name}: $reason")
                    Enabled.disabled(reason)
                }
            },
        ) {
            ConformanceScenarios.run(scenario, fixture.value)
        }
    }
}
