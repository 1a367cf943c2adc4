package io.leasehold.lock.testkit.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.SocketTimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class StandaloneRedisTest {

    private static final Duration ONE_SECOND = Duration.ofSeconds(1);

    private StandaloneRedis redis;

    @BeforeEach
    void startRedis() {
        redis = RedisFixtures.startStandalone();
    }

    @AfterEach
    void stopRedis() {
        redis.close();
    }

    @Test
    void shouldAnswerPingOnItsOwnLoopbackPortNeverOnTheDefaultPort() {
        assertEquals("PONG", redis.server().command("PING"));
        assertEquals("127.0.0.1", redis.host());
        assertNotEquals(6379, redis.port());
        assertEquals("redis://127.0.0.1:" + redis.port(), redis.uri());
        assertEquals(List.of(redis.endpoint()), redis.clientEndpoints());
        assertEquals(RedisTopology.Kind.STANDALONE, redis.kind());
    }

    @Test
    void shouldRunWithoutPersistence() {
        assertEquals(List.of("save", ""), redis.server().command("CONFIG", "GET", "save"));
        assertEquals(List.of("appendonly", "no"), redis.server().command("CONFIG", "GET", "appendonly"));
    }

    @Test
    void shouldComeBackEmptyOnTheSamePortAfterKillAndRestart() {
        RedisNode server = redis.server();
        server.command("SET", "k", "v");

        server.kill();
        assertFalse(server.isRunning());
        assertFalse(server.ping(ONE_SECOND));

        server.restart();
        assertTrue(server.isRunning());
        assertEquals(redis.endpoint(), server.endpoint());
        assertEquals("PONG", server.command("PING"));
        assertNull(server.command("GET", "k"), "no persistence: the restarted server is empty");
    }

    @Test
    void shouldNotAnswerWhilePausedAndAnswerAgainAfterResume() {
        RedisNode server = redis.server();

        redis.pauseAll();
        assertTrue(server.isPaused());
        RedisFixtureException silent =
                assertThrows(RedisFixtureException.class, () -> server.command(Duration.ofMillis(300), "PING"));
        assertInstanceOf(SocketTimeoutException.class, silent.getCause());

        redis.resumeAll();
        assertFalse(server.isPaused());
        assertEquals("PONG", server.command("PING"));
    }

    @Test
    void shouldFlushDataAndScripts() {
        RedisNode server = redis.server();
        server.command("SET", "k", "v");
        String sha = (String) server.command("SCRIPT", "LOAD", "return 1");

        redis.flushAll();
        assertEquals(0L, server.command("DBSIZE"));
        assertEquals(List.of(1L), server.command("SCRIPT", "EXISTS", sha));

        redis.scriptFlush();
        assertEquals(List.of(0L), server.command("SCRIPT", "EXISTS", sha));
    }

    @Test
    void shouldRunArbitraryAdminCommandsAndThrowErrorReplies() {
        RedisNode server = redis.server();
        assertEquals(0L, server.command("CLIENT", "KILL", "TYPE", "pubsub"));
        server.command("SET", "k", "v");
        assertEquals(1L, server.command("PEXPIRE", "k", "60000"));
        assertEquals(1L, redis.masterForKey("k").command("DEL", "k"));

        RedisErrorReply error = assertThrows(RedisErrorReply.class, () -> server.command("NOSUCHCOMMAND"));
        assertEquals("ERR", error.code());
    }

    @Test
    void shouldRestoreAKilledOrPausedServer() {
        redis.server().kill();
        redis.restoreAll();
        assertEquals("PONG", redis.server().command("PING"));

        redis.pauseAll();
        redis.restoreAll();
        assertFalse(redis.server().isPaused());
        assertEquals("PONG", redis.server().command("PING"));
    }

    @Test
    void shouldStopTheServerAndDeleteItsDirectoryOnClose() {
        RedisServerProcess process = (RedisServerProcess) redis.server();
        Path dir = process.directory();
        assertTrue(Files.isDirectory(dir));

        redis.close();

        assertFalse(process.isRunning());
        assertFalse(process.ping(ONE_SECOND));
        assertFalse(Files.exists(dir));
        redis.close();
    }
}
