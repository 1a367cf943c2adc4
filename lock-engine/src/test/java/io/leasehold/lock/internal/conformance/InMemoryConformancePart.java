package io.leasehold.lock.internal.conformance;

import io.leasehold.lock.testkit.InMemoryFixture;
import io.leasehold.lock.testkit.LockBackendFixture;
import io.leasehold.lock.testkit.conformance.ConformanceScenarios;
import io.leasehold.lock.testkit.conformance.LockConformanceSuite;
import io.leasehold.lock.testkit.conformance.Scenario;

/**
 * The JUnit 5 conformance suite against the in-memory backend, split into {@link #PARTS} classes that
 * Surefire's forks run side by side: the scenarios wait on real time (leases running out, holds),
 * not on the CPU, so one class running all of them would be the module's longest wait by far.
 * {@link InMemoryConformanceRunTest} checks that the parts together run every scenario once.
 */
abstract class InMemoryConformancePart extends LockConformanceSuite {

    static final int PARTS = 3;

    private final int part;

    InMemoryConformancePart(int part) {
        this.part = part;
    }

    @Override
    protected LockBackendFixture createFixture() {
        return new InMemoryFixture();
    }

    /** Every {@link #PARTS}th scenario of the suite's order, from this part's index on. */
    @Override
    protected boolean runs(Scenario scenario) {
        return ConformanceScenarios.getAll().indexOf(scenario) % PARTS == part;
    }
}
