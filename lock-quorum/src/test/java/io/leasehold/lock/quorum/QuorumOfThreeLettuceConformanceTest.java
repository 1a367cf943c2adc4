package io.leasehold.lock.quorum;

import io.leasehold.lock.testkit.LockBackendFixture;
import io.leasehold.lock.testkit.conformance.Scenario;

/**
 * The first half of the conformance suite on a quorum of 3 real {@code redis-server}s, each member a Lettuce backend;
 * the scenarios a quorum does not have are reported skipped with their reasons, as on in-memory members.
 * The second half is {@link QuorumOfThreeLettuceConformanceSecondHalfTest}, which a fork of its own runs beside it.
 */
class QuorumOfThreeLettuceConformanceTest extends QuorumConformanceSuite {

    @Override
    protected LockBackendFixture createFixture() {
        return RedisMembers.lettuce(3);
    }

    @Override
    boolean inThisSuite(Scenario scenario) {
        return inShare(scenario, 0, 2);
    }
}
