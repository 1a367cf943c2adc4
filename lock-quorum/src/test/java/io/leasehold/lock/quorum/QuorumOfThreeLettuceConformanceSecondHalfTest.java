package io.leasehold.lock.quorum;

import io.leasehold.lock.testkit.conformance.Scenario;

/** The second half of the conformance suite of {@link QuorumOfThreeLettuceConformanceTest}, on the same kind of fixture. */
class QuorumOfThreeLettuceConformanceSecondHalfTest extends QuorumOfThreeLettuceConformanceTest {

    @Override
    boolean inThisSuite(Scenario scenario) {
        return inShare(scenario, 1, 2);
    }
}
