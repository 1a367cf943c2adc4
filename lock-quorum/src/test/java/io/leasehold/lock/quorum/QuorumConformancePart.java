package io.leasehold.lock.quorum;

import io.leasehold.lock.testkit.LockBackendFixture;
import io.leasehold.lock.testkit.conformance.ConformanceScenarios;
import io.leasehold.lock.testkit.conformance.Scenario;
import java.util.List;

/**
 * The conformance suite on a quorum of 3 in-memory members ({@link QuorumFixture}), split into
 * {@link #PARTS} classes that Surefire's forks run side by side (the scenarios wait on real time);
 * {@link QuorumConformanceCoverageTest} checks that the parts together account for every scenario once.
 */
abstract class QuorumConformancePart extends QuorumConformanceSuite {

    static final int PARTS = 3;

    private final int part;

    QuorumConformancePart(int part) {
        this.part = part;
    }

    @Override
    protected LockBackendFixture createFixture() {
        return new QuorumFixture();
    }

    /** Every {@link #PARTS}th scenario of the suite's order, from this part's index on. */
    @Override
    boolean inThisSuite(Scenario scenario) {
        return ConformanceScenarios.getAll().indexOf(scenario) % PARTS == part;
    }

    /** The parts, for {@link QuorumConformanceCoverageTest}. */
    static List<QuorumConformancePart> parts() {
        return List.of(
                new QuorumConformancePart1Test(), new QuorumConformancePart2Test(), new QuorumConformancePart3Test());
    }
}
