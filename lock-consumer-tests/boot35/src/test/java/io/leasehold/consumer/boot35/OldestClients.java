package io.leasehold.consumer.boot35;

import io.leasehold.lock.jedis.JedisLockBackend;
import io.leasehold.lock.lettuce.LettuceLockBackend;
import io.leasehold.lock.spi.LockBackend;
import io.leasehold.lock.testkit.redis.OwningLockBackend;
import io.leasehold.lock.testkit.redis.RedisEndpoint;
import io.leasehold.lock.testkit.redis.RedisTopology;
import io.leasehold.lock.testkit.redis.SentinelRedis;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.JedisCluster;
import redis.clients.jedis.JedisPooled;
import redis.clients.jedis.JedisSentineled;

/**
 * Backends over the oldest clients Leasehold supports (this module's Lettuce 6.6 and Jedis 6.0), each
 * over its own client built as an application on those versions builds it (Jedis 6 has
 * {@code JedisPooled} and {@code JedisSentineled} where Jedis 8 has {@code RedisClient} and
 * {@code RedisSentinelClient}), and closing that client when the fixture closes the backend.
 */
final class OldestClients {

    /** Lettuce's own timeout for a command and the connect handshake: short, so that a frozen server fails fast. */
    private static final Duration LETTUCE_TIMEOUT = Duration.ofSeconds(5);

    private static final ClientResources RESOURCES = DefaultClientResources.create();

    private OldestClients() {}

    /** Lettuce on a standalone server or a Sentinel group, by the topology's URI. */
    static LockBackend lettuce(RedisTopology redis) {
        RedisURI uri = RedisURI.create(redis.uri());
        uri.setTimeout(LETTUCE_TIMEOUT);
        RedisClient client = RedisClient.create(RESOURCES, uri);
        return OwningLockBackend.of(LettuceLockBackend.create(client), () -> shutdown(client));
    }

    /** Lettuce on a cluster, seeded with every master. */
    static LockBackend lettuceCluster(RedisTopology cluster) {
        List<RedisURI> seeds = cluster.clientEndpoints().stream()
                .map(endpoint -> RedisURI.builder()
                        .withHost(endpoint.host())
                        .withPort(endpoint.port())
                        .withTimeout(LETTUCE_TIMEOUT)
                        .build())
                .collect(Collectors.toList());
        RedisClusterClient client = RedisClusterClient.create(RESOURCES, seeds);
        return OwningLockBackend.of(LettuceLockBackend.create(client), () -> shutdown(client));
    }

    /** Jedis on a standalone server. */
    static LockBackend jedis(RedisTopology redis) {
        RedisEndpoint endpoint = redis.clientEndpoints().get(0);
        JedisPooled client = new JedisPooled(new HostAndPort(endpoint.host(), endpoint.port()), jedisConfig());
        return OwningLockBackend.of(JedisLockBackend.create(client), client::close);
    }

    /** Jedis on the master of a Sentinel group. */
    static LockBackend jedisSentinel(SentinelRedis sentinel) {
        JedisSentineled client =
                new JedisSentineled(sentinel.masterName(), jedisConfig(), hostsAndPorts(sentinel), jedisConfig());
        return OwningLockBackend.of(JedisLockBackend.create(client), client::close);
    }

    /** Jedis on a cluster, seeded with every master. */
    static LockBackend jedisCluster(RedisTopology cluster) {
        JedisCluster client = new JedisCluster(hostsAndPorts(cluster), jedisConfig());
        return OwningLockBackend.of(JedisLockBackend.create(client), client::close);
    }

    /** Jedis's default timeouts, as an application gets them. */
    private static JedisClientConfig jedisConfig() {
        return DefaultJedisClientConfig.builder().build();
    }

    private static Set<HostAndPort> hostsAndPorts(RedisTopology topology) {
        return topology.clientEndpoints().stream()
                .map(endpoint -> new HostAndPort(endpoint.host(), endpoint.port()))
                .collect(Collectors.toSet());
    }

    private static void shutdown(AbstractRedisClient client) {
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
}
