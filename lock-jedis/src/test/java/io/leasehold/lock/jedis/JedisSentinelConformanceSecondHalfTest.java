package io.leasehold.lock.jedis;

import io.leasehold.lock.testkit.conformance.Scenario;

/** The second half of the conformance suite of {@link JedisSentinelConformanceTest}, on the same kind of fixture. */
class JedisSentinelConformanceSecondHalfTest extends JedisSentinelConformanceTest {

    @Override
    protected boolean runs(Scenario scenario) {
        return inShare(scenario, 1, 2);
    }
}
