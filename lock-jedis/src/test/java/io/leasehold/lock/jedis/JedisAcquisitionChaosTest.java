package io.leasehold.lock.jedis;

import io.leasehold.lock.spi.LockBackend;
import io.leasehold.lock.testkit.driver.AcquisitionChaosDriverTests;
import io.leasehold.lock.testkit.redis.RedisEndpoint;

/** The acquisition's chaos attacks (see {@link AcquisitionChaosDriverTests}) with Jedis. */
class JedisAcquisitionChaosTest extends AcquisitionChaosDriverTests {

    @Override
    protected LockBackend open(RedisEndpoint endpoint) {
        return JedisTestClients.owningAt(endpoint);
    }
}
