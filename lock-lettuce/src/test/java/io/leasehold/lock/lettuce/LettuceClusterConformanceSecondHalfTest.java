package io.leasehold.lock.lettuce;

import io.leasehold.lock.testkit.conformance.Scenario;

/** The second half of the conformance suite of {@link LettuceClusterConformanceTest}, on the same kind of fixture. */
class LettuceClusterConformanceSecondHalfTest extends LettuceClusterConformanceTest {

    @Override
    protected boolean runs(Scenario scenario) {
        return inShare(scenario, 1, 2);
    }
}
