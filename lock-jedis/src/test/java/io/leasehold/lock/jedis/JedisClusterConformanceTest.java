package io.leasehold.lock.jedis;

import io.leasehold.lock.testkit.LockBackendFixture;
import io.leasehold.lock.testkit.conformance.LockConformanceSuite;
import io.leasehold.lock.testkit.conformance.Scenario;
import io.leasehold.lock.testkit.redis.RedisLockBackendFixture;

/**
 * The first half of the conformance suite against Jedis on a three-master Redis Cluster, faults done for real;
 * {@link JedisClusterConformanceSecondHalfTest} runs the other half in a fork of its own, side by side (the scenarios
 * wait on real time, not on the CPU).
 */
class JedisClusterConformanceTest extends LockConformanceSuite {

    @Override
    protected LockBackendFixture createFixture() {
        return RedisLockBackendFixture.sharedCluster("jedis-cluster", JedisTestClients::owningCluster);
    }

    @Override
    protected boolean runs(Scenario scenario) {
        return inShare(scenario, 0, 2);
    }
}
