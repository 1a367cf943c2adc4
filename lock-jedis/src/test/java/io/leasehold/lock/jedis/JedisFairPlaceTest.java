package io.leasehold.lock.jedis;

import io.leasehold.lock.spi.LockBackend;
import io.leasehold.lock.testkit.driver.FairPlaceDriverTests;
import io.leasehold.lock.testkit.redis.OwningLockBackend;
import io.leasehold.lock.testkit.redis.RedisEndpoint;
import redis.clients.jedis.RedisClient;

/** Fair waiters' places kept by the watchdog (see {@link FairPlaceDriverTests}) with Jedis. */
class JedisFairPlaceTest extends FairPlaceDriverTests {

    @Override
    protected LockBackend open(RedisEndpoint endpoint) {
        RedisClient client = RedisClient.builder()
                .hostAndPort(endpoint.host(), endpoint.port())
                .clientConfig(JedisTestClients.config())
                .build();
        return OwningLockBackend.of(JedisLockBackend.create(client), client::close);
    }
}
