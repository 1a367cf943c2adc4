package io.leasehold.lock.lettuce;

import io.leasehold.lock.spi.LockBackend;
import io.leasehold.lock.testkit.driver.FairPlaceDriverTests;
import io.leasehold.lock.testkit.redis.OwningLockBackend;
import io.leasehold.lock.testkit.redis.RedisEndpoint;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;

/** Fair waiters' places kept by the watchdog (see {@link FairPlaceDriverTests}) with Lettuce. */
class LettuceFairPlaceTest extends FairPlaceDriverTests {

    @Override
    protected LockBackend open(RedisEndpoint endpoint) {
        RedisClient client = RedisClient.create(
                LettuceTestClients.RESOURCES,
                RedisURI.builder()
                        .withHost(endpoint.host())
                        .withPort(endpoint.port())
                        .withTimeout(LettuceTestClients.LETTUCE_TIMEOUT)
                        .build());
        return OwningLockBackend.of(LettuceLockBackend.create(client), () -> LettuceTestClients.shutdown(client));
    }
}
