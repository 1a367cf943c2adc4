package io.leasehold.lock.jedis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.spi.Deployment;
import io.leasehold.lock.testkit.redis.RedisFixtures;
import io.leasehold.lock.testkit.redis.SentinelRedis;
import io.leasehold.lock.testkit.redis.StandaloneRedis;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Connection;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisCluster;
import redis.clients.jedis.RedisSentinelClient;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.providers.ConnectionProvider;

/**
 * Which Jedis clients the backend takes: it tells a single server, a Sentinel group and a cluster
 * apart by the provider that holds the client's connections (the client classes differ among Jedis
 * 6, 7 and 8), and refuses, naming what it got, the kinds whose connections it cannot borrow.
 */
class JedisClientKindsTest {

    @Test
    void shouldRefuseAClientOverASingleConnection() {
        StandaloneRedis redis = RedisFixtures.sharedStandalone();
        try (Connection connection = new Connection(new HostAndPort(redis.host(), redis.port()));
                UnifiedJedis single = new UnifiedJedis(connection) {}) {
            assertThatThrownBy(() -> JedisLockBackend.create(single))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("client must be a pooled client for a single server (RedisClient,"
                            + " JedisPooled), a Sentinel client (RedisSentinelClient, JedisSentineled) or a Cluster"
                            + " client (RedisClusterClient, JedisCluster), but was a ")
                    .hasMessageEndingWith(" over a single connection");
        }
    }

    @Test
    void shouldRefuseAClientOverAProviderOfAnotherKind() {
        StandaloneRedis redis = RedisFixtures.sharedStandalone();
        ConnectionProvider elsewhere = new ConnectionProvider() {
            @Override
            public Connection getConnection() {
                return new Connection(new HostAndPort(redis.host(), redis.port()));
            }

            @Override
            public Connection getConnection(CommandArguments args) {
                return getConnection();
            }

            @Override
            public void close() {}
        };
        try (UnifiedJedis custom = new UnifiedJedis(elsewhere, 1, Duration.ofSeconds(1))) {
            assertThatThrownBy(() -> JedisLockBackend.create(custom))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageEndingWith("but was a redis.clients.jedis.UnifiedJedis over a "
                            + elsewhere.getClass().getName());
        }
    }

    @Test
    void shouldRefuseASentinelClientWhosePoolIsTooSmallForTheSubscriberAndTheScriptThreads() {
        SentinelRedis sentinel = RedisFixtures.sharedSentinel();
        try (RedisSentinelClient tiny = RedisSentinelClient.builder()
                .masterName(sentinel.masterName())
                .sentinels(JedisTestClients.hostsAndPorts(sentinel))
                .clientConfig(JedisTestClients.config())
                .sentinelClientConfig(JedisTestClients.config())
                .poolConfig(JedisTestClients.pool(1))
                .build()) {
            JedisTestClients.assertRefusesAPoolOfOne(tiny);
            assertThatThrownBy(() -> JedisLockBackend.create(tiny, 1))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("scriptThreads must be below the client's pool maxTotal of 1 (one connection stays for"
                            + " the subscriber), but was 1");
        }
    }

    @Test
    void shouldTellItsDeploymentFromTheClientsProvider() {
        StandaloneRedis redis = RedisFixtures.sharedStandalone();
        SentinelRedis sentinel = RedisFixtures.sharedSentinel();
        try (UnifiedJedis pooled = JedisTestClients.redisClient(redis);
                JedisLockBackend one = JedisLockBackend.create(pooled);
                RedisSentinelClient sentineled = JedisTestClients.sentinelClient(sentinel);
                JedisLockBackend managed = JedisLockBackend.create(sentineled);
                UnifiedJedis cluster = JedisTestClients.clusterClient(RedisFixtures.sharedCluster());
                JedisLockBackend clustered = JedisLockBackend.create(cluster)) {
            assertThat(one.deployment()).isEqualTo(Deployment.STANDALONE);
            assertThat(managed.deployment()).isEqualTo(Deployment.SENTINEL);
            assertThat(clustered.deployment()).isEqualTo(Deployment.CLUSTER);
        }
    }

    @Test
    @SuppressWarnings("deprecation") // JedisCluster is the cluster client of Jedis 6 and 7, kept in 8
    void shouldLockOverTheClusterClientOfJedis6And7() throws Exception {
        try (JedisCluster cluster = new JedisCluster(
                        JedisTestClients.hostsAndPorts(RedisFixtures.sharedCluster()),
                        JedisTestClients.config(),
                        JedisTestClients.pool(4));
                LockClient locks = JedisLockBackend.lockClient(cluster)) {
            Lease lease = locks.lock("kinds:cluster")
                    .tryAcquire(Duration.ofSeconds(5))
                    .orElseThrow();
            assertThat(cluster.exists("leasehold:{kinds:cluster}")).isTrue();
            assertThat(lease.release()).isTrue();
            assertThat(cluster.exists("leasehold:{kinds:cluster}")).isFalse();
        }
    }
}
