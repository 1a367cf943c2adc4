package io.leasehold.lock.lettuce;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.lock.spi.LuaScript;
import io.leasehold.lock.testkit.redis.ClusterRedis;
import io.leasehold.lock.testkit.redis.RedisFixtures;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Lettuce-specific on a cluster: the backend closes only what it opened. (What every driver must do
 * on a cluster is in {@link LettuceClusterDriverTest}.)
 */
class LettuceClusterTest {

    private static ClusterRedis cluster;
    private static RedisClusterClient client;

    @BeforeAll
    static void start() {
        cluster = RedisFixtures.sharedCluster();
        cluster.restoreAll();
        client = LettuceTestClients.clusterClient(cluster);
    }

    @AfterAll
    static void stop() {
        LettuceTestClients.shutdown(client);
        cluster.flushAll();
    }

    @Test
    void shouldLeaveTheUsersClusterClientAndConnectionsOpenWhenClosed() throws Exception {
        try (StatefulRedisClusterConnection<String, String> users = client.connect()) {
            LettuceLockBackend backend = LettuceLockBackend.create(client);
            backend.eval(LuaScript.of("echo", "return ARGV[1]"), List.of("close:{a}"), List.of("x"))
                    .get(10, TimeUnit.SECONDS);
            backend.subscribe("cluster-close:{7}", (c, m) -> {}).get(10, TimeUnit.SECONDS);

            backend.close();

            assertThat(users.sync().set("close:{b}", "v")).isEqualTo("OK");
            try (StatefulRedisClusterConnection<String, String> fresh = client.connect()) {
                assertThat(fresh.sync().get("close:{b}")).isEqualTo("v");
            }
        }
    }
}
