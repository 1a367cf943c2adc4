package io.leasehold.lock.lettuce;

import io.leasehold.lock.testkit.conformance.Scenario;

/** The second half of the conformance suite of {@link LettuceSentinelConformanceTest}, on the same kind of fixture. */
class LettuceSentinelConformanceSecondHalfTest extends LettuceSentinelConformanceTest {

    @Override
    protected boolean runs(Scenario scenario) {
        return inShare(scenario, 1, 2);
    }
}
