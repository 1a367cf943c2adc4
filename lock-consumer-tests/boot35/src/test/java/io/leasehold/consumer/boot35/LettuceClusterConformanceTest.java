package io.leasehold.consumer.boot35;

import io.leasehold.lock.testkit.LockBackendFixture;
import io.leasehold.lock.testkit.conformance.LockConformanceSuite;
import io.leasehold.lock.testkit.conformance.Scenario;
import io.leasehold.lock.testkit.redis.RedisLockBackendFixture;

/**
 * The second half of the conformance suite against Lettuce 6.6 on a three-master Redis Cluster
 * (the other half runs on {@link JedisClusterConformanceTest}: on this
 * topology every scenario runs on one of the oldest clients, and on a standalone server on both; lock-lettuce and
 * lock-jedis run the whole suite on every topology with the newest).
 */
class LettuceClusterConformanceTest extends LockConformanceSuite {

    @Override
    protected LockBackendFixture createFixture() {
        return RedisLockBackendFixture.sharedCluster("lettuce-6.6-cluster", OldestClients::lettuceCluster);
    }

    @Override
    protected boolean runs(Scenario scenario) {
        return inShare(scenario, 1, 2);
    }
}
