package io.leasehold.lock.testkit.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class SentinelRedisTest {

    private static final Duration GENEROUS = Duration.ofSeconds(60);
    private static final Duration SHORT = Duration.ofMillis(300);

    private static SentinelRedis group;

    @BeforeAll
    static void startGroup() {
        group = RedisFixtures.startSentinel();
    }

    @AfterEach
    void restoreGroup() {
        group.restoreAll();
    }

    @AfterAll
    static void stopGroup() {
        if (group != null) {
            group.close();
        }
    }

    @Test
    void shouldReportTheMasterThroughEverySentinel() {
        RedisEndpoint master = group.currentMasterEndpoint();

        for (RedisNode sentinel : group.sentinels()) {
            assertEquals(
                    List.of("127.0.0.1", Integer.toString(master.port())),
                    sentinel.command("SENTINEL", "GET-MASTER-ADDR-BY-NAME", "mymaster"));
        }
        assertEquals(master, group.master().endpoint());
        assertEquals(1, group.replicas().size());
        assertEquals(RedisTopology.Kind.SENTINEL, group.kind());
    }

    @Test
    void shouldOfferASentinelUriWithEverySentinelAndTheMasterName() {
        String hosts =
                group.sentinelEndpoints().stream().map(RedisEndpoint::toString).collect(Collectors.joining(","));

        assertEquals("redis-sentinel://" + hosts + "#mymaster", group.uri());
        assertEquals(3, group.sentinelEndpoints().size());
        assertEquals(group.sentinelEndpoints(), group.clientEndpoints());
        assertEquals("mymaster", group.masterName());
        assertTrue(group.sentinelEndpoints().stream().noneMatch(e -> e.port() == 26379 || e.port() == 6379));
    }

    @Test
    void shouldReplicateWritesToTheReplica() {
        group.master().command("SET", "replicated", "yes");
        RedisNode replica = group.replicas().get(0);

        Await.until(
                "the replica to receive the write",
                GENEROUS,
                () -> "yes".equals(replica.command("GET", "replicated")),
                () -> "");
        group.flushAll();
        Await.until(
                "the replica to receive the flush",
                GENEROUS,
                () -> Long.valueOf(0L).equals(replica.command("DBSIZE")),
                () -> "");
    }

    @Test
    void shouldPromoteTheReplicaWhenTheMasterIsKilledAndTakeTheOldMasterBackAsReplica() {
        RedisNode oldMaster = group.master();
        RedisNode replica = group.replicas().get(0);

        oldMaster.kill();
        RedisEndpoint promoted = group.awaitFailover(oldMaster.endpoint(), GENEROUS);

        assertEquals(replica.endpoint(), promoted);
        assertEquals("master", ((List<?>) replica.command("ROLE")).get(0));
        for (RedisNode sentinel : group.sentinels()) {
            assertEquals(
                    Long.toString(promoted.port()),
                    ((List<?>) sentinel.command("SENTINEL", "GET-MASTER-ADDR-BY-NAME", "mymaster")).get(1));
        }

        group.restoreAll();

        assertTrue(oldMaster.isRunning());
        assertEquals("slave", ((List<?>) oldMaster.command("ROLE")).get(0), "the old master rejoined as a replica");
        assertEquals(promoted, group.currentMasterEndpoint());
    }

    @Test
    void shouldFreezeTheWholeGroupAndResumeItWithoutAFailover() {
        RedisEndpoint master = group.currentMasterEndpoint();

        group.pauseAll();
        assertFalse(group.sentinels().get(0).ping(SHORT));
        assertFalse(group.servers().get(0).ping(SHORT));
        assertFalse(group.servers().get(1).ping(SHORT));

        group.resumeAll();
        assertTrue(group.servers().stream().allMatch(server -> server.ping(GENEROUS)));
        assertTrue(group.sentinels().stream().allMatch(sentinel -> sentinel.ping(GENEROUS)));
        assertEquals(master, group.currentMasterEndpoint());
    }

    @Test
    void shouldFlushScriptsOnEveryDataServer() {
        String sha = (String) group.master().command("SCRIPT", "LOAD", "return 1");
        group.replicas().get(0).command("SCRIPT", "LOAD", "return 1");

        group.scriptFlush();

        for (RedisNode server : group.servers()) {
            assertEquals(List.of(0L), server.command("SCRIPT", "EXISTS", sha));
        }
        assertNotEquals(
                group.servers().get(0).endpoint(), group.servers().get(1).endpoint());
    }
}
