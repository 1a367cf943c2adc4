package io.leasehold.lock.testkit.conformance

import io.leasehold.lock.testkit.LockBackendFixture

/**
 * Every conformance scenario, written once. [LockConformanceSuite] (JUnit 5) and
 * [lockConformanceTests] (kotest) both run exactly this list, one test per scenario, under the
 * scenario's name.
 *
 * This object is threadsafe.
 */
public object ConformanceScenarios {

    /** All scenarios, in the order the kotest factory registers them. */
    @JvmStatic
    public val all: List<Scenario> = (
        exclusionScenarios + staleLeaseScenarios + fencingScenarios + validityScenarios +
            renewalScenarios + lossScenarios + leaseEndingScenarios + waitingScenarios + handoffScenarios + fairnessScenarios +
            cancellationScenarios +
            cancellationRaceScenarios + replyFaultScenarios + threadingScenarios +
            bodyScenarios + kotlinScenarios + holdQueryScenarios + minHoldScenarios + outcomeScenarios + inputScenarios + lifecycleScenarios +
            observabilityScenarios
        ).also { list ->
        val duplicates = list.groupBy { it.name }.filterValues { it.size > 1 }.keys
        check(duplicates.isEmpty()) { "duplicate scenario names: $duplicates" }
    }

    /** The scenario called [name]. */
    @JvmStatic
    public fun named(name: String): Scenario =
        all.firstOrNull { it.name == name } ?: throw IllegalArgumentException("no conformance scenario named '$name'")

    /**
     * Why [fixture] cannot run [scenario] (the reasons of the faults it needs and the fixture
     * lacks), or null when it can.
     */
    @JvmStatic
    public fun skipReason(scenario: Scenario, fixture: LockBackendFixture): String? {
        val unsupported = fixture.unsupportedFaults()
        val missing = scenario.faults.filter { it in unsupported }
        if (missing.isEmpty()) return null
        return "fixture '${fixture.name()}' cannot inject " +
            missing.joinToString("; ") { "$it: ${unsupported[it]}" } + " (needed by ${scenario.name})"
    }

    /**
     * Runs [scenario] against [fixture] in a fresh [ScenarioContext]; afterwards, whatever the outcome,
     * clears the fixture's faults and closes every client and thread the scenario made.
     */
    @JvmStatic
    public fun run(scenario: Scenario, fixture: LockBackendFixture) {
        val context = ScenarioContext(fixture, scenario.name)
        try {
            scenario.body(context)
        } finally {
            // Faults first, so that closing the clients can release what they hold.
            try {
                fixture.resetFaults()
            } finally {
                context.close()
            }
        }
    }
}
