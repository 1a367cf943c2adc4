package io.leasehold.lock.testkit.conformance

import io.leasehold.lock.testkit.LockBackendFixture.Fault

/**
 * One conformance scenario: a behaviour every backend must show, written once and run by both the
 * JUnit 5 suite ([LockConformanceSuite]) and the kotest factory ([lockConformanceTests]).
 *
 * @property name the test name, phrased as behaviour (`shouldNotReleaseAnotherOwnersLock`)
 * @property guarantees the guarantees of the design brief (G1–G12) this scenario proves
 * @property faults the faults the scenario injects; a fixture that cannot inject one of them skips it
 *
 * This class is immutable and threadsafe.
 */
public class Scenario internal constructor(
    public val name: String,
    public val guarantees: List<String>,
    public val faults: Set<Fault>,
    internal val body: ScenarioContext.() -> Unit,
) {
    override fun toString(): String = "$name (${guarantees.joinToString()})"
}

/** Declares a scenario; [guarantees] is e.g. `"G1"` or `"G2, G6"`. */
internal fun scenario(
    name: String,
    guarantees: String,
    vararg faults: Fault,
    body: ScenarioContext.() -> Unit,
): Scenario = Scenario(name, guarantees.split(',').map { it.trim() }, faults.toSet(), body)
