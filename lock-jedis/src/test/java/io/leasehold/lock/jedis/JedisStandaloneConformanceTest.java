package io.leasehold.lock.jedis;

import io.leasehold.lock.testkit.LockBackendFixture;
import io.leasehold.lock.testkit.conformance.LockConformanceSuite;
import io.leasehold.lock.testkit.redis.RedisLockBackendFixture;

/** The whole conformance suite against Jedis on a standalone Redis, faults done for real. */
class JedisStandaloneConformanceTest extends LockConformanceSuite {

    @Override
    protected LockBackendFixture createFixture() {
        return RedisLockBackendFixture.sharedStandalone("jedis-standalone", JedisTestClients::owningStandalone);
    }
}
