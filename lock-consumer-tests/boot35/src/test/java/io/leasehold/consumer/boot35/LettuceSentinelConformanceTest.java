package io.leasehold.consumer.boot35;

import io.leasehold.lock.testkit.LockBackendFixture;
import io.leasehold.lock.testkit.conformance.LockConformanceSuite;
import io.leasehold.lock.testkit.redis.RedisLockBackendFixture;

/** The whole conformance suite against Lettuce 6.6 on a Sentinel-managed master ({@code redis-sentinel://}). */
class LettuceSentinelConformanceTest extends LockConformanceSuite {

    @Override
    protected LockBackendFixture createFixture() {
        return RedisLockBackendFixture.sharedSentinel("lettuce-6.6-sentinel", OldestClients::lettuce);
    }
}
