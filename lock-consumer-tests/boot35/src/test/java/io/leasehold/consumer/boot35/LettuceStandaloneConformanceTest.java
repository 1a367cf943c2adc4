package io.leasehold.consumer.boot35;

import io.leasehold.lock.testkit.LockBackendFixture;
import io.leasehold.lock.testkit.conformance.LockConformanceSuite;
import io.leasehold.lock.testkit.conformance.Scenario;
import io.leasehold.lock.testkit.redis.RedisLockBackendFixture;

/**
 * The first half of the conformance suite against Lettuce 6.6 on a standalone server (the second half is
 * {@link LettuceStandaloneConformanceSecondHalfTest}, which a fork of its own runs beside it): on a standalone
 * server every scenario runs on both of the oldest clients.
 */
class LettuceStandaloneConformanceTest extends LockConformanceSuite {

    @Override
    protected LockBackendFixture createFixture() {
        return RedisLockBackendFixture.sharedStandalone("lettuce-6.6-standalone", OldestClients::lettuce);
    }

    @Override
    protected boolean runs(Scenario scenario) {
        return inShare(scenario, 0, 2);
    }
}
