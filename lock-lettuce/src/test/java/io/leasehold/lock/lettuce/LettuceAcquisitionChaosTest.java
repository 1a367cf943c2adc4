package io.leasehold.lock.lettuce;

import io.leasehold.lock.spi.LockBackend;
import io.leasehold.lock.testkit.driver.AcquisitionChaosDriverTests;
import io.leasehold.lock.testkit.redis.RedisEndpoint;

/** The acquisition's chaos attacks (see {@link AcquisitionChaosDriverTests}) with Lettuce. */
class LettuceAcquisitionChaosTest extends AcquisitionChaosDriverTests {

    @Override
    protected LockBackend open(RedisEndpoint endpoint) {
        return LettuceTestClients.owningAt(endpoint);
    }
}
