package io.leasehold.lock.testkit.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.spi.LockBackend;
import io.leasehold.lock.spi.LuaScript;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The fixture over the shared Sentinel group and the shared cluster, as driver tests use them. */
class RedisLockBackendFixtureTopologiesTest {

    private static final LuaScript SET =
            LuaScript.of("set", "return redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])");
    private static final Duration SHORT = Duration.ofMillis(300);

    private static Object await(CompletableFuture<Object> reply) throws Exception {
        return reply.get(20, TimeUnit.SECONDS);
    }

    private static void assertKeyFaultsReachTheOwningMaster(RedisLockBackendFixture<?> fixture) throws Exception {
        LockBackend backend = fixture.newBackend();
        List<String> keys = new ArrayList<>();
        for (char tag = 'a'; tag <= 'f'; tag++) {
            String key = "leasehold:{" + tag + "}";
            keys.add(key);
            assertEquals("OK", await(backend.eval(SET, List.of(key), List.of("owner:1", "60000"))));
        }
        for (int i = 0; i < keys.size(); i++) {
            String key = keys.get(i);
            if (i % 2 == 0) {
                fixture.deleteKey(key);
            } else {
                fixture.expireNow(key);
            }
            assertEquals(0L, fixture.topology().masterForKey(key).command("EXISTS", key), key);
        }
        for (String key : keys) {
            fixture.writeKey(key + ":fence", "42");
            fixture.writeForeignKey(key);
            RedisNode owner = fixture.topology().masterForKey(key);
            assertEquals("42", owner.command("GET", key + ":fence"), key);
            assertEquals("hash", owner.command("TYPE", key), key);
        }
    }

    private static void assertWholeTopologyFreezesAndServesAgain(RedisLockBackendFixture<?> fixture) throws Exception {
        RedisTopology topology = fixture.topology();
        List<RedisNode> all = new ArrayList<>(topology.servers());
        if (topology instanceof SentinelRedis sentinel) {
            all.addAll(sentinel.sentinels());
        }

        fixture.makeUnavailable();
        for (RedisNode node : all) {
            assertFalse(node.ping(SHORT), node + " answers while unavailable");
        }

        fixture.makeAvailable();
        for (RedisNode node : all) {
            assertTrue(node.ping(Duration.ofSeconds(10)), node + " is silent after makeAvailable");
        }
        assertEquals("OK", await(fixture.newBackend().eval(SET, List.of("after"), List.of("v", "60000"))));
    }

    @Test
    void shouldRouteKeyFaultsToTheOwningClusterMasterAndFreezeTheWholeCluster() throws Exception {
        RedisLockBackendFixture<ClusterRedis> fixture =
                RedisLockBackendFixture.sharedCluster("resp-cluster", RespScriptBackend::new);
        try (fixture) {
            assertKeyFaultsReachTheOwningMaster(fixture);
            assertWholeTopologyFreezesAndServesAgain(fixture);
        }
        ClusterRedis cluster = fixture.topology();
        for (RedisNode node : cluster.nodes()) {
            assertEquals(0L, node.command("DBSIZE"), "closing a sharing fixture flushes the cluster");
        }
        assertEquals(
                "ok",
                Replies.info(cluster.nodes().get(0).command("CLUSTER", "INFO")).get("cluster_state"));
    }

    @Test
    void shouldApplyKeyFaultsOnTheCurrentSentinelMasterAndFreezeTheWholeGroup() throws Exception {
        RedisLockBackendFixture<SentinelRedis> fixture =
                RedisLockBackendFixture.sharedSentinel("resp-sentinel", RespScriptBackend::new);
        try (fixture) {
            assertKeyFaultsReachTheOwningMaster(fixture);
            assertWholeTopologyFreezesAndServesAgain(fixture);
            fixture.flushAll();
            assertEquals(0L, fixture.topology().master().command("DBSIZE"));
        }
        assertEquals("PONG", fixture.topology().master().command("PING"), "a sharing fixture leaves the group running");
    }

    @Test
    void shouldReuseOneSharedTopologyPerJvm() {
        assertTrue(RedisFixtures.sharedCluster() == RedisFixtures.sharedCluster());
        assertTrue(RedisFixtures.sharedSentinel() == RedisFixtures.sharedSentinel());
        assertTrue(RedisFixtures.sharedStandalone() == RedisFixtures.sharedStandalone());
    }
}
