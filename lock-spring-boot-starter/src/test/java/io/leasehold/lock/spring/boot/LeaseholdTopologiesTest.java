package io.leasehold.lock.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.testkit.redis.ClusterRedis;
import io.leasehold.lock.testkit.redis.RedisEndpoint;
import io.leasehold.lock.testkit.redis.RedisFixtures;
import io.leasehold.lock.testkit.redis.RedisTopology;
import io.leasehold.lock.testkit.redis.SentinelRedis;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The auto-configured client on the two other topologies that {@code spring.data.redis.*} configures, each
 * on real servers (the JVM's shared ones, see {@link RedisFixtures}): a Sentinel group (the lock on the
 * master the Sentinels name) and a Redis Cluster (the lock on the master of its slot), with both connection
 * factories.
 */
class LeaseholdTopologiesTest {

    private static SentinelRedis sentinel;
    private static ClusterRedis cluster;

    /** The JVM's shared Sentinel group and cluster, which the {@code @SpringBootTest} classes use too. */
    @BeforeAll
    static void start() {
        sentinel = RedisFixtures.sharedSentinel();
        cluster = RedisFixtures.sharedCluster();
    }

    private static String nodes(List<RedisEndpoint> endpoints) {
        return endpoints.stream().map(e -> e.host() + ":" + e.port()).collect(Collectors.joining(","));
    }

    private static ApplicationContextRunner app(String clientType, String... redisProperties) {
        return new ApplicationContextRunner()
                .withConfiguration(
                        AutoConfigurations.of(DataRedisAutoConfiguration.class, LeaseholdAutoConfiguration.class))
                .withPropertyValues("spring.data.redis.client-type=" + clientType)
                .withPropertyValues(redisProperties);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"lettuce", "jedis"})
    void shouldLockOnTheMasterThatTheSentinelsName(String clientType) {
        app(
                        clientType,
                        "spring.data.redis.sentinel.master=" + sentinel.masterName(),
                        "spring.data.redis.sentinel.nodes=" + nodes(sentinel.sentinelEndpoints()))
                .run(context -> locksOn(sentinel, context.getBean(LockClient.class), "sentinel:" + clientType));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"lettuce", "jedis"})
    void shouldLockOnTheMasterOfTheLocksSlotInACluster(String clientType) {
        app(clientType, "spring.data.redis.cluster.nodes=" + nodes(cluster.clientEndpoints()))
                .run(context -> locksOn(cluster, context.getBean(LockClient.class), "cluster:" + clientType));
    }

    private static void locksOn(RedisTopology topology, LockClient client, String name) {
        String key = "leasehold:{" + name + "}";
        Lease lease = client.lock(name).acquire(Duration.ofSeconds(5));

        assertThat(topology.masterForKey(key).command("GET", key))
                .as("the lock's value on the master that serves its key")
                .asString()
                .endsWith(":" + lease.fencingToken());
        assertThat(lease.release()).isTrue();
        assertThat(topology.masterForKey(key).command("EXISTS", key)).isEqualTo(0L);
    }
}
