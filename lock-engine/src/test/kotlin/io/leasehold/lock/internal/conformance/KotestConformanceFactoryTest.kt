package io.leasehold.lock.internal.conformance

import io.leasehold.lock.testkit.InMemoryFixture
import io.leasehold.lock.testkit.conformance.ConformanceScenarios
import io.leasehold.lock.testkit.conformance.lockConformanceTests
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Test

/** The kotest factory registers one test per scenario, under the scenario's name, in order. */
class KotestConformanceFactoryTest {

    @Test
    fun shouldRegisterEveryScenarioByName() {
        val factory = lockConformanceTests { InMemoryFixture() }

        assertEquals(ConformanceScenarios.all.map { it.name }, factory.tests.map { it.name.name })
    }

    @Test
    fun shouldRegisterOnlyTheScenariosAskedFor() {
        val two = ConformanceScenarios.all.take(2)

        assertEquals(two.map { it.name }, lockConformanceTests(two) { InMemoryFixture() }.tests.map { it.name.name })
    }
}
