package io.leasehold.lock.testkit.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class ClusterRedisTest {

    private static final Duration SHORT = Duration.ofMillis(300);

    private static ClusterRedis cluster;

    @BeforeAll
    static void startCluster() {
        cluster = RedisFixtures.startCluster();
    }

    @AfterEach
    void restoreCluster() {
        cluster.restoreAll();
        cluster.flushAll();
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void shouldReportStateOkWithAllSlotsCoveredOnEveryNode() {
        assertEquals(3, cluster.nodes().size());
        for (RedisNode node : cluster.nodes()) {
            Map<String, String> info = Replies.info(node.command("CLUSTER", "INFO"));
            assertEquals("ok", info.get("cluster_state"));
            assertEquals("16384", info.get("cluster_slots_assigned"));
            assertEquals("3", info.get("cluster_known_nodes"));
            assertEquals("3", info.get("cluster_size"));
        }
    }

    @Test
    void shouldAgreeWithEveryNodesSlotMap() {
        for (RedisNode node : cluster.nodes()) {
            int covered = 0;
            for (Object range : (List<?>) node.command("CLUSTER", "SLOTS")) {
                List<?> fields = (List<?>) range;
                int first = ((Long) fields.get(0)).intValue();
                int last = ((Long) fields.get(1)).intValue();
                int ownerPort = ((Long) ((List<?>) fields.get(2)).get(1)).intValue();
                assertEquals(ownerPort, cluster.nodeForSlot(first).endpoint().port());
                assertEquals(ownerPort, cluster.nodeForSlot(last).endpoint().port());
                covered += last - first + 1;
            }
            assertEquals(16384, covered);
        }
    }

    @Test
    void shouldComputeTheSameSlotAsClusterKeyslot() {
        RedisNode node = cluster.nodes().get(0);
        for (String key :
                List.of("foo", "leasehold:{orders:42}", "leasehold:{orders:42}:fence", "a{}b", "{x", "é{ü}", "")) {
            assertEquals((long) ClusterSlots.slot(key), node.command("CLUSTER", "KEYSLOT", key), key);
        }
    }

    @Test
    void shouldPlaceKeysWithDifferentHashTagsOnDifferentNodes() {
        Set<RedisEndpoint> owners = new HashSet<>();
        for (char tag = 'a'; tag <= 'z'; tag++) {
            String key = "leasehold:{" + tag + "}";
            RedisNode owner = cluster.masterForKey(key);
            owner.command("SET", key, "v");
            assertEquals("v", owner.command("GET", key));
            owners.add(owner.endpoint());
        }
        assertEquals(3, owners.size(), "26 tags spread over all three masters");

        RedisNode owner = cluster.masterForKey("leasehold:{a}");
        RedisNode other =
                cluster.nodes().stream().filter(n -> n != owner).findFirst().orElseThrow();
        RedisErrorReply moved = assertThrows(RedisErrorReply.class, () -> other.command("GET", "leasehold:{a}"));
        assertEquals("MOVED", moved.code());
        assertTrue(moved.getMessage().endsWith(owner.endpoint().toString()), moved.getMessage());
    }

    @Test
    void shouldFlushEveryMasterAndEveryScriptCache() {
        String sha = null;
        for (char tag = 'a'; tag <= 'z'; tag++) {
            cluster.masterForKey("{" + tag + "}").command("SET", "{" + tag + "}", "v");
        }
        for (RedisNode node : cluster.nodes()) {
            sha = (String) node.command("SCRIPT", "LOAD", "return 1");
        }

        cluster.flushAll();
        cluster.scriptFlush();

        for (RedisNode node : cluster.nodes()) {
            assertEquals(0L, node.command("DBSIZE"));
            assertEquals(List.of(0L), node.command("SCRIPT", "EXISTS", sha));
        }
    }

    @Test
    void shouldRejoinAfterAKilledNodeIsRestarted() {
        RedisNode victim = cluster.nodes().get(1);
        String id = (String) victim.command("CLUSTER", "MYID");

        victim.kill();
        assertFalse(victim.ping(SHORT));
        cluster.restoreAll();

        assertEquals(id, victim.command("CLUSTER", "MYID"), "the node kept its identity from nodes.conf");
        assertEquals("ok", Replies.info(victim.command("CLUSTER", "INFO")).get("cluster_state"));
        String key = "{restart}";
        RedisNode owner = cluster.masterForKey(key);
        owner.command("SET", key, "v");
        assertEquals("v", owner.command("GET", key));
    }

    @Test
    void shouldFreezeEveryNodeAndServeAgainAfterResume() {
        cluster.pauseAll();
        for (RedisNode node : cluster.nodes()) {
            assertTrue(node.isPaused());
            assertFalse(node.ping(SHORT));
        }

        cluster.resumeAll();

        for (RedisNode node : cluster.nodes()) {
            assertFalse(node.isPaused());
            assertEquals("ok", Replies.info(node.command("CLUSTER", "INFO")).get("cluster_state"));
        }
        assertNotSame(cluster.nodes().get(0), cluster.nodes().get(1));
        assertNotEquals(cluster.uri(), cluster.nodes().get(1).endpoint().uri());
        assertEquals(cluster.nodes().get(0).endpoint().uri(), cluster.uri());
    }
}
