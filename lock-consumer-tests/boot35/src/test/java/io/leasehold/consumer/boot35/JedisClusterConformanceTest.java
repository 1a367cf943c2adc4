package io.leasehold.consumer.boot35;

import io.leasehold.lock.testkit.LockBackendFixture;
import io.leasehold.lock.testkit.conformance.LockConformanceSuite;
import io.leasehold.lock.testkit.redis.RedisLockBackendFixture;

/** The whole conformance suite against Jedis 6.0 ({@code JedisCluster}) on a three-master Redis Cluster. */
class JedisClusterConformanceTest extends LockConformanceSuite {

    @Override
    protected LockBackendFixture createFixture() {
        return RedisLockBackendFixture.sharedCluster("jedis-6.0-cluster", OldestClients::jedisCluster);
    }
}
