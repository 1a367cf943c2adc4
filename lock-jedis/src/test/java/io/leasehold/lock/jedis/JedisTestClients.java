package io.leasehold.lock.jedis;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.leasehold.lock.spi.LockBackend;
import io.leasehold.lock.testkit.redis.OwningLockBackend;
import io.leasehold.lock.testkit.redis.RedisEndpoint;
import io.leasehold.lock.testkit.redis.RedisTopology;
import io.leasehold.lock.testkit.redis.SentinelRedis;
import java.util.Set;
import java.util.stream.Collectors;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.RedisSentinelClient;
import redis.clients.jedis.UnifiedJedis;

/**
 * Jedis clients for tests, built as an application would build them, with Jedis's default timeouts.
 * A backend made here owns its client, so that closing the backend (the fixture does) closes the
 * client too.
 */
final class JedisTestClients {

    private JedisTestClients() {}

    static JedisClientConfig config() {
        return DefaultJedisClientConfig.builder().build();
    }

    /** A client for a standalone server. */
    static RedisClient redisClient(RedisTopology redis) {
        RedisEndpoint endpoint = redis.clientEndpoints().get(0);
        return RedisClient.builder()
                .hostAndPort(endpoint.host(), endpoint.port())
                .clientConfig(config())
                .build();
    }

    /** A client for the master of a Sentinel group. */
    static RedisSentinelClient sentinelClient(SentinelRedis sentinel) {
        return RedisSentinelClient.builder()
                .masterName(sentinel.masterName())
                .sentinels(hostsAndPorts(sentinel))
                .clientConfig(config())
                .sentinelClientConfig(config())
                .build();
    }

    /** A client for a cluster, seeded with every master. */
    static RedisClusterClient clusterClient(RedisTopology cluster) {
        return RedisClusterClient.builder()
                .nodes(hostsAndPorts(cluster))
                .clientConfig(config())
                .build();
    }

    /** A pool configuration of Jedis's defaults but {@code maxTotal}. */
    static ConnectionPoolConfig pool(int maxTotal) {
        ConnectionPoolConfig config = new ConnectionPoolConfig();
        config.setMaxTotal(maxTotal);
        return config;
    }

    /** Checks that the backend refuses {@code client}, whose pool allows one connection only. */
    static void assertRefusesAPoolOfOne(UnifiedJedis client) {
        assertThatThrownBy(() -> JedisLockBackend.create(client))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("the client's connection pool must allow at least 2 connections (one for the subscriber,"
                        + " one for scripts), but its maxTotal was 1");
    }

    static LockBackend owningStandalone(RedisTopology redis) {
        RedisClient client = redisClient(redis);
        return OwningLockBackend.of(JedisLockBackend.create(client), client::close);
    }

    /** A backend on its own client of the server at {@code endpoint} (a fault proxy's, say) that closes the client when closed. */
    static LockBackend owningAt(RedisEndpoint endpoint) {
        RedisClient client = RedisClient.builder()
                .hostAndPort(endpoint.host(), endpoint.port())
                .clientConfig(config())
                .build();
        return OwningLockBackend.of(JedisLockBackend.create(client), client::close);
    }

    static LockBackend owningSentinel(SentinelRedis sentinel) {
        RedisSentinelClient client = sentinelClient(sentinel);
        return OwningLockBackend.of(JedisLockBackend.create(client), client::close);
    }

    static LockBackend owningCluster(RedisTopology cluster) {
        RedisClusterClient client = clusterClient(cluster);
        return OwningLockBackend.of(JedisLockBackend.create(client), client::close);
    }

    static Set<HostAndPort> hostsAndPorts(RedisTopology topology) {
        return topology.clientEndpoints().stream()
                .map(endpoint -> new HostAndPort(endpoint.host(), endpoint.port()))
                .collect(Collectors.toSet());
    }
}
