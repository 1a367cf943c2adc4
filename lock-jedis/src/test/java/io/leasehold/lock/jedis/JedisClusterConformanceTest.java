package io.leasehold.lock.jedis;

import io.leasehold.lock.testkit.LockBackendFixture;
import io.leasehold.lock.testkit.conformance.LockConformanceSuite;
import io.leasehold.lock.testkit.redis.RedisLockBackendFixture;

/** The whole conformance suite against Jedis on a three-master Redis Cluster, faults done for real. */
class JedisClusterConformanceTest extends LockConformanceSuite {

    @Override
    protected LockBackendFixture createFixture() {
        return RedisLockBackendFixture.sharedCluster("jedis-cluster", JedisTestClients::owningCluster);
    }
}
