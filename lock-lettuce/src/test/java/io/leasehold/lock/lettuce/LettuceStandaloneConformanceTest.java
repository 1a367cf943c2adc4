package io.leasehold.lock.lettuce;

import io.leasehold.lock.testkit.LockBackendFixture;
import io.leasehold.lock.testkit.conformance.LockConformanceSuite;
import io.leasehold.lock.testkit.redis.RedisLockBackendFixture;

/** The whole conformance suite against Lettuce on a standalone Redis, faults done for real. */
class LettuceStandaloneConformanceTest extends LockConformanceSuite {

    @Override
    protected LockBackendFixture createFixture() {
        return RedisLockBackendFixture.sharedStandalone("lettuce-standalone", LettuceTestClients::owningStandalone);
    }
}
