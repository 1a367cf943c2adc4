package io.leasehold.lock.jedis;

import io.leasehold.lock.testkit.driver.DriverUnderTest;
import io.leasehold.lock.testkit.redis.OwningLockBackend;
import io.leasehold.lock.testkit.redis.RedisTopology;
import io.leasehold.lock.testkit.redis.SentinelRedis;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.RedisSentinelClient;

/** Jedis for the shared driver tests: a backend over its own client, closed with it. */
final class JedisDriver implements DriverUnderTest {

    @Override
    public OpenedBackend open(RedisTopology topology) {
        switch (topology.kind()) {
            case CLUSTER: {
                RedisClusterClient client = JedisTestClients.clusterClient(topology);
                JedisLockBackend backend = JedisLockBackend.create(client);
                return new OpenedBackend(OwningLockBackend.of(backend, client::close), backend::scriptFallbacks);
            }
            case SENTINEL: {
                RedisSentinelClient client = JedisTestClients.sentinelClient((SentinelRedis) topology);
                JedisLockBackend backend = JedisLockBackend.create(client);
                return new OpenedBackend(OwningLockBackend.of(backend, client::close), backend::scriptFallbacks);
            }
            default: {
                RedisClient client = JedisTestClients.redisClient(topology);
                JedisLockBackend backend = JedisLockBackend.create(client);
                return new OpenedBackend(OwningLockBackend.of(backend, client::close), backend::scriptFallbacks);
            }
        }
    }
}
