package io.leasehold.lock.jedis;

import io.leasehold.lock.spi.LockBackend;
import io.leasehold.lock.testkit.driver.AcquisitionChaosDriverTests;
import io.leasehold.lock.testkit.redis.OwningLockBackend;
import io.leasehold.lock.testkit.redis.RedisEndpoint;
import redis.clients.jedis.RedisClient;

/** The acquisition's chaos attacks (see {@link AcquisitionChaosDriverTests}) with Jedis. */
class JedisAcquisitionChaosTest extends AcquisitionChaosDriverTests {

    @Override
    protected LockBackend open(RedisEndpoint endpoint) {
        RedisClient client = RedisClient.builder()
                .hostAndPort(endpoint.host(), endpoint.port())
                .clientConfig(JedisTestClients.config())
                .build();
        return OwningLockBackend.of(JedisLockBackend.create(client), client::close);
    }
}
