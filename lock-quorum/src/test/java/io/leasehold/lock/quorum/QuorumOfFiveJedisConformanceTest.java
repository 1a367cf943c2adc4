package io.leasehold.lock.quorum;

import io.leasehold.lock.testkit.LockBackendFixture;

/**
 * The conformance suite on a quorum of 5 real {@code redis-server}s, each member a Jedis backend; the
 * scenarios a quorum does not have are reported skipped with their reasons, as on in-memory members.
 */
class QuorumOfFiveJedisConformanceTest extends QuorumConformanceSuite {

    @Override
    protected LockBackendFixture createFixture() {
        return RedisMembers.jedis(5);
    }
}
