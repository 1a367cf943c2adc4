package io.leasehold.lock.lettuce;

import io.leasehold.lock.spi.LockBackend;
import io.leasehold.lock.testkit.driver.AcquisitionChaosDriverTests;
import io.leasehold.lock.testkit.redis.OwningLockBackend;
import io.leasehold.lock.testkit.redis.RedisEndpoint;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;

/** The acquisition's chaos attacks (see {@link AcquisitionChaosDriverTests}) with Lettuce. */
class LettuceAcquisitionChaosTest extends AcquisitionChaosDriverTests {

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
