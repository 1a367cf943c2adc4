package io.leasehold.consumer.boot35;

import io.leasehold.lock.testkit.LockBackendFixture;
import io.leasehold.lock.testkit.conformance.LockConformanceSuite;
import io.leasehold.lock.testkit.conformance.Scenario;
import io.leasehold.lock.testkit.redis.RedisLockBackendFixture;

/**
 * The first half of the conformance suite against Jedis 6.0 ({@code JedisPooled}) on a standalone server (the second half is
 * {@link JedisStandaloneConformanceSecondHalfTest}, which a fork of its own runs beside it): on a standalone
 * server every scenario runs on both of the oldest clients.
 */
class JedisStandaloneConformanceTest extends LockConformanceSuite {

    @Override
    protected LockBackendFixture createFixture() {
        return RedisLockBackendFixture.sharedStandalone("jedis-6.0-standalone", OldestClients::jedis);
    }

    @Override
    protected boolean runs(Scenario scenario) {
        return inShare(scenario, 0, 2);
    }
}
