package io.leasehold.lock.quorum;

import io.leasehold.lock.testkit.conformance.Scenario;

/** The second half of the conformance suite of {@link QuorumOfFiveLettuceConformanceTest}, on the same kind of fixture. */
class QuorumOfFiveLettuceConformanceSecondHalfTest extends QuorumOfFiveLettuceConformanceTest {

    @Override
    boolean inThisSuite(Scenario scenario) {
        return inShare(scenario, 1, 2);
    }
}
