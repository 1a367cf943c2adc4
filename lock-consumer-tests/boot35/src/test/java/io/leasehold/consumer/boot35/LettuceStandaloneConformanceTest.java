package io.leasehold.consumer.boot35;

import io.leasehold.lock.testkit.LockBackendFixture;
import io.leasehold.lock.testkit.conformance.LockConformanceSuite;
import io.leasehold.lock.testkit.redis.RedisLockBackendFixture;

/** The whole conformance suite against Lettuce 6.6 on a standalone server. */
class LettuceStandaloneConformanceTest extends LockConformanceSuite {

    @Override
    protected LockBackendFixture createFixture() {
        return RedisLockBackendFixture.sharedStandalone("lettuce-6.6-standalone", OldestClients::lettuce);
    }
}
