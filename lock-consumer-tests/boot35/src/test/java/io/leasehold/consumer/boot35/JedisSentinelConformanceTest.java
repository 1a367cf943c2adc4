package io.leasehold.consumer.boot35;

import io.leasehold.lock.testkit.LockBackendFixture;
import io.leasehold.lock.testkit.conformance.LockConformanceSuite;
import io.leasehold.lock.testkit.redis.RedisLockBackendFixture;

/** The whole conformance suite against Jedis 6.0 ({@code JedisSentineled}) on a Sentinel-managed master. */
class JedisSentinelConformanceTest extends LockConformanceSuite {

    @Override
    protected LockBackendFixture createFixture() {
        return RedisLockBackendFixture.sharedSentinel("jedis-6.0-sentinel", OldestClients::jedisSentinel);
    }
}
