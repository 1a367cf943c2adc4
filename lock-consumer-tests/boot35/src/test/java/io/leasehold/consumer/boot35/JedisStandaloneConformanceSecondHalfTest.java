package io.leasehold.consumer.boot35;

import io.leasehold.lock.testkit.conformance.Scenario;

/** The second half of the conformance suite of {@link JedisStandaloneConformanceTest}, on the same kind of fixture. */
class JedisStandaloneConformanceSecondHalfTest extends JedisStandaloneConformanceTest {

    @Override
    protected boolean runs(Scenario scenario) {
        return inShare(scenario, 1, 2);
    }
}
