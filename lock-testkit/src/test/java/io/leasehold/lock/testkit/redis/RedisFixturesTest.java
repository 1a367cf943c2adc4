package io.leasehold.lock.testkit.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.opentest4j.TestAbortedException;

class RedisFixturesTest {

    private static final Map<String, String> NOTHING_INSTALLED = Map.of("PATH", "/nonexistent-dir");

    private static void assertSaysHowToGetRedis(String message) {
        assertTrue(message.contains("apt-get install redis-server"), message);
        assertTrue(message.contains("LEASEHOLD_REDIS_SERVER"), message);
        assertTrue(message.contains("REDIS_URL"), message);
        assertTrue(message.contains("Docker"), message);
        assertTrue(message.contains("-Dleasehold.redis.skip=true"), message);
    }

    @Test
    void shouldSayHowToGetRedisWhenNothingProvidesIt() {
        RedisEnvironment env = RedisEnvironment.of(NOTHING_INSTALLED, false, () -> false);

        RedisFixtureException failure =
                assertThrows(RedisFixtureException.class, () -> RedisFixtures.startStandalone(env));

        assertTrue(failure.getMessage().startsWith("No Redis for a standalone topology"), failure.getMessage());
        assertSaysHowToGetRedis(failure.getMessage());
    }

    @Test
    void shouldNameTheMissingBinaryWhenLeaseholdRedisServerPointsNowhere() {
        RedisEnvironment env = RedisEnvironment.of(
                Map.of("LEASEHOLD_REDIS_SERVER", "/nonexistent/redis-server", "PATH", "/usr/bin:/bin"),
                false,
                () -> true);

        RedisFixtureException failure =
                assertThrows(RedisFixtureException.class, () -> RedisFixtures.startStandalone(env));

        assertTrue(
                failure.getMessage()
                        .contains("LEASEHOLD_REDIS_SERVER is set to '/nonexistent/redis-server',"
                                + " but no executable redis-server is there"),
                failure.getMessage());
        assertSaysHowToGetRedis(failure.getMessage());
    }

    @Test
    void shouldSkipWithTheReasonWhenTheUserOptedOut() {
        RedisEnvironment env = RedisEnvironment.of(NOTHING_INSTALLED, true, () -> false);

        TestAbortedException skipped =
                assertThrows(TestAbortedException.class, () -> RedisFixtures.startStandalone(env));

        assertTrue(
                skipped.getMessage().startsWith("skipped because -Dleasehold.redis.skip=true: No Redis"),
                skipped.getMessage());
    }

    @Test
    void shouldSayThatSentinelAndClusterNeedALocalBinaryEvenWithRedisUrlAndDocker() {
        RedisEnvironment env = RedisEnvironment.of(
                Map.of("PATH", "/nonexistent-dir", "REDIS_URL", "redis://127.0.0.1:1"), false, () -> true);

        RedisFixtureException sentinel =
                assertThrows(RedisFixtureException.class, () -> RedisFixtures.startSentinel(env));
        RedisFixtureException cluster =
                assertThrows(RedisFixtureException.class, () -> RedisFixtures.startCluster(env));

        assertTrue(
                sentinel.getMessage()
                        .startsWith("No redis-server binary for a Sentinel topology (which needs a local"
                                + " binary; REDIS_URL and Docker give only a standalone server)"),
                sentinel.getMessage());
        assertTrue(
                cluster.getMessage().startsWith("No redis-server binary for a cluster topology"), cluster.getMessage());
        assertSaysHowToGetRedis(sentinel.getMessage());
    }

    @Test
    void shouldUseAnExternalServerFromRedisUrlWithoutControllingItsProcess() {
        try (StandaloneRedis local = RedisFixtures.startStandalone()) {
            String url = local.uri() + "/2";
            RedisEnvironment env = RedisEnvironment.of(Map.of("REDIS_URL", url, "PATH", ""), false, () -> false);
            StandaloneRedis external = RedisFixtures.startStandalone(env);

            assertEquals(url, external.uri());
            assertInstanceOf(ExternalRedisNode.class, external.server());
            external.server().command("SET", "k", "in-db-2");
            assertEquals("in-db-2", external.server().command("GET", "k"));
            assertEquals(0L, local.server().command("EXISTS", "k"), "the admin client selected database 2, not 0");
            UnsupportedOperationException refused =
                    assertThrows(UnsupportedOperationException.class, external::pauseAll);
            assertTrue(refused.getMessage().startsWith("REDIS_URL names an external server"), refused.getMessage());
            assertTrue(external.unsupportedControls().containsKey(RedisNode.Control.PAUSE));

            external.close();
            assertEquals(
                    "PONG", local.server().command("PING"), "closing an external topology leaves the server running");
        }
    }

    @Test
    void shouldFindRedisServerOnPath() {
        RedisServerBinary real = RedisServerBinary.locate().orElseThrow();
        String dir = real.path().getParent().toString();

        RedisServerBinary found = RedisServerBinary.locate(Map.of("PATH", "/nonexistent-dir:" + dir))
                .orElseThrow();

        assertEquals(real.path(), found.path());
    }
}
