package io.leasehold.lock.jedis;

import io.leasehold.lock.testkit.LockBackendFixture;
import io.leasehold.lock.testkit.conformance.LockConformanceSuite;
import io.leasehold.lock.testkit.redis.RedisLockBackendFixture;

/** The whole conformance suite against Jedis on a Sentinel-managed master, faults done for real. */
class JedisSentinelConformanceTest extends LockConformanceSuite {

    @Override
    protected LockBackendFixture createFixture() {
        return RedisLockBackendFixture.sharedSentinel("jedis-sentinel", JedisTestClients::owningSentinel);
    }
}
