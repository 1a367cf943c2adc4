package io.leasehold.lock.lettuce;

import io.leasehold.lock.testkit.LockBackendFixture;
import io.leasehold.lock.testkit.conformance.LockConformanceSuite;
import io.leasehold.lock.testkit.redis.RedisLockBackendFixture;

/** The whole conformance suite against Lettuce on a three-master Redis Cluster. */
class LettuceClusterConformanceTest extends LockConformanceSuite {

    @Override
    protected LockBackendFixture createFixture() {
        return RedisLockBackendFixture.sharedCluster("lettuce-cluster", LettuceTestClients::owningCluster);
    }
}
