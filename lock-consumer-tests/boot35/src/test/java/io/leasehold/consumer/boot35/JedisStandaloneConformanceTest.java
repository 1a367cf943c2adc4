package io.leasehold.consumer.boot35;

import io.leasehold.lock.testkit.LockBackendFixture;
import io.leasehold.lock.testkit.conformance.LockConformanceSuite;
import io.leasehold.lock.testkit.redis.RedisLockBackendFixture;

/** The whole conformance suite against Jedis 6.0 ({@code JedisPooled}) on a standalone server. */
class JedisStandaloneConformanceTest extends LockConformanceSuite {

    @Override
    protected LockBackendFixture createFixture() {
        return RedisLockBackendFixture.sharedStandalone("jedis-6.0-standalone", OldestClients::jedis);
    }
}
