package io.leasehold.lock.testkit.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.leasehold.lock.spi.LockBackend;
import io.leasehold.lock.spi.LockKeys;
import io.leasehold.lock.spi.LuaScript;
import io.leasehold.lock.spi.ScriptNames;
import io.leasehold.lock.spi.support.Checks;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * On a real Redis Cluster, every accepted lock name maps to a lock key, fence key and release
 * channel in one slot ({@code CLUSTER KEYSLOT}), so that the scripts, which touch two of them at
 * once, never fail with CROSSSLOT.
 */
class LockKeysClusterTest {

    private static final String PREFIX = "leasehold:";
    private static final LuaScript ACQUIRE = LuaScript.bundled(ScriptNames.ACQUIRE);
    private static final LuaScript RELEASE = LuaScript.bundled(ScriptNames.RELEASE);
    private static final String OWNER = "0123456789abcdef0123456789abcdef";

    private static RedisLockBackendFixture<ClusterRedis> fixture;
    private static LockBackend backend;

    @BeforeAll
    static void startCluster() {
        fixture = RedisLockBackendFixture.sharedCluster("resp-cluster", RespScriptBackend::new);
        backend = fixture.newBackend();
    }

    @AfterAll
    static void closeFixture() {
        if (fixture != null) {
            fixture.close();
        }
    }

    static Stream<Arguments> names() {
        return Stream.of(
                Arguments.of("brace first", "}x"),
                Arguments.of("a lone closing brace", "}"),
                Arguments.of("two closing braces", "}}"),
                Arguments.of("an opening brace", "{"),
                Arguments.of("an empty hash tag", "{}"),
                Arguments.of("braces inside", "a}b{c"),
                Arguments.of("an escape's look-alike", "%7D"),
                Arguments.of("a percent sign", "%"),
                Arguments.of("a brace and a look-alike", "}%7D"),
                Arguments.of("emoji", "🔒🗝️👩‍💻"),
                Arguments.of("CJK", "注文:四十二"),
                Arguments.of("combining marks", "e\u0301\u0327-a\u0308"),
                Arguments.of("512 characters", "n".repeat(511) + "}"),
                Arguments.of("512 closing braces", "}".repeat(512)));
    }

    private static long keyslot(String key) {
        return (Long) fixture.topology().nodes().get(0).command("CLUSTER", "KEYSLOT", key);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("names")
    void shouldPutAllKeysOfTheLockInOneSlotAndRunTheScriptsOnThem(String description, String name) throws Exception {
        Checks.lockName(name);
        String lock = LockKeys.lockKey(PREFIX, name);
        String fence = LockKeys.fenceKey(PREFIX, name);
        String channel = LockKeys.releaseChannel(PREFIX, name);
        String queue = LockKeys.queueKey(PREFIX, name);
        String waiters = LockKeys.waitersKey(PREFIX, name);
        String marker = LockKeys.yieldMarkerKey(PREFIX, name);
        List<String> keys = List.of(lock, fence, queue, waiters, channel);

        List<?> acquired =
                (List<?>) backend.eval(ACQUIRE, keys, List.of(OWNER, "30000", "60000", "1500", "SPUBLISH", "0"))
                        .get(20, TimeUnit.SECONDS);
        assertEquals(1L, acquired.get(0), "acquire of " + description);
        List<?> queued =
                (List<?>) backend.eval(ACQUIRE, keys, List.of("waiter", "30000", "60000", "1500", "SPUBLISH", "0"))
                        .get(20, TimeUnit.SECONDS);
        assertEquals(
                List.of(0L, 1L),
                List.of(queued.get(0), queued.get(3)),
                "a waiter's place in the queue of " + description);
        Object released = backend.eval(
                        RELEASE,
                        List.of(lock, fence, queue, waiters, channel, marker),
                        List.of(OWNER, "60000", "1500", "SPUBLISH", "30000"))
                .get(20, TimeUnit.SECONDS);
        assertEquals(1L, released, "release (a grant to the waiter) of " + description);
        for (String key : List.of(fence, queue, waiters, channel, marker)) {
            assertEquals(keyslot(lock), keyslot(key), "lock key and " + key + " of " + description);
        }
    }
}
