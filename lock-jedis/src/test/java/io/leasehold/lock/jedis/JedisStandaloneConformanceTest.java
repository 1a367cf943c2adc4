package io.leasehold.lock.jedis;

import io.leasehold.lock.testkit.LockBackendFixture;
import io.leasehold.lock.testkit.conformance.LockConformanceSuite;
import io.leasehold.lock.testkit.conformance.Scenario;
import io.leasehold.lock.testkit.redis.RedisLockBackendFixture;

/**
 * The first half of the conformance suite against Jedis on a standalone Redis, faults done for real;
 * {@link JedisStandaloneConformanceSecondHalfTest} runs the other half in a fork of its own, side by side (the scenarios
 * wait on real time, not on the CPU).
 */
class JedisStandaloneConformanceTest extends LockConformanceSuite {

    @Override
    protected LockBackendFixture createFixture() {
        return RedisLockBackendFixture.sharedStandalone("jedis-standalone", JedisTestClients::owningStandalone);
    }

    @Override
    protected boolean runs(Scenario scenario) {
        return inShare(scenario, 0, 2);
    }
}
