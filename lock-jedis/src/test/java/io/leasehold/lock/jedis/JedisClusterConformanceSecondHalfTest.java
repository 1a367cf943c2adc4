package io.leasehold.lock.jedis;

import io.leasehold.lock.testkit.conformance.Scenario;

/** The second half of the conformance suite of {@link JedisClusterConformanceTest}, on the same kind of fixture. */
class JedisClusterConformanceSecondHalfTest extends JedisClusterConformanceTest {

    @Override
    protected boolean runs(Scenario scenario) {
        return inShare(scenario, 1, 2);
    }
}
