package io.leasehold.lock.lettuce;

import io.leasehold.lock.spi.LockBackend;
import io.leasehold.lock.testkit.driver.FairPlaceDriverTests;
import io.leasehold.lock.testkit.redis.RedisEndpoint;

/** Fair waiters' places kept by the watchdog (see {@link FairPlaceDriverTests}) with Lettuce. */
class LettuceFairPlaceTest extends FairPlaceDriverTests {

    @Override
    protected LockBackend open(RedisEndpoint endpoint) {
        return LettuceTestClients.owningAt(endpoint);
    }
}
