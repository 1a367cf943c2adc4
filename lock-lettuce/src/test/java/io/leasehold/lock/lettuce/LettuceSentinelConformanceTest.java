package io.leasehold.lock.lettuce;

import io.leasehold.lock.testkit.LockBackendFixture;
import io.leasehold.lock.testkit.conformance.LockConformanceSuite;
import io.leasehold.lock.testkit.conformance.Scenario;
import io.leasehold.lock.testkit.redis.RedisLockBackendFixture;

/**
 * The first half of the conformance suite against Lettuce on a Sentinel-managed master ({@code redis-sentinel://}), faults done for real;
 * {@link LettuceSentinelConformanceSecondHalfTest} runs the other half in a fork of its own, side by side (the scenarios
 * wait on real time, not on the CPU).
 */
class LettuceSentinelConformanceTest extends LockConformanceSuite {

    @Override
    protected LockBackendFixture createFixture() {
        return RedisLockBackendFixture.sharedSentinel("lettuce-sentinel", LettuceTestClients::owningStandalone);
    }

    @Override
    protected boolean runs(Scenario scenario) {
        return inShare(scenario, 0, 2);
    }
}
