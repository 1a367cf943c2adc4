package io.leasehold.consumer.boot35;

import io.leasehold.lock.testkit.LockBackendFixture;
import io.leasehold.lock.testkit.conformance.LockConformanceSuite;
import io.leasehold.lock.testkit.conformance.Scenario;
import io.leasehold.lock.testkit.redis.RedisLockBackendFixture;

/**
 * The first half of the conformance suite against Jedis 6.0 ({@code JedisCluster}) on a three-master Redis Cluster
 * (the other half runs on {@link LettuceClusterConformanceTest}: on this
 * topology every scenario runs on one of the oldest clients, and on a standalone server on both; lock-lettuce and
 * lock-jedis run the whole suite on every topology with the newest).
 */
class JedisClusterConformanceTest extends LockConformanceSuite {

    @Override
    protected LockBackendFixture createFixture() {
        return RedisLockBackendFixture.sharedCluster("jedis-6.0-cluster", OldestClients::jedisCluster);
    }

    @Override
    protected boolean runs(Scenario scenario) {
        return inShare(scenario, 0, 2);
    }
}
