package io.leasehold.lock.testkit;

import static io.leasehold.lock.testkit.ScriptCaller.failure;
import static io.leasehold.lock.testkit.ScriptCaller.fenceKey;
import static io.leasehold.lock.testkit.ScriptCaller.lockKey;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.inmemory.InMemoryLockBackend;
import io.leasehold.lock.inmemory.InMemoryScriptException;
import io.leasehold.lock.inmemory.ManualClock;
import io.leasehold.lock.spi.LuaScript;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Calls Redis would answer with an error fail alike, with a message naming the script and argument. */
class InMemoryScriptErrorsTest {

    private final InMemoryLockBackend redis = InMemoryLockBackend.withClock(new ManualClock());

    @AfterEach
    void close() {
        redis.close();
    }

    @Test
    void shouldFailAnUnknownScriptNamingIt() {
        Throwable error = failure(redis.eval(LuaScript.of("my-script", "return 1"), List.of(), List.of()));

        assertInstanceOf(UnsupportedOperationException.class, error);
        assertTrue(error.getMessage().contains("'my-script'"), error.getMessage());
    }

    @Test
    void shouldRefuseAForeignSourceUnderABundledName() {
        Throwable error = failure(redis.eval(LuaScript.of("acquire", "return 1"), List.of("k", "f"), List.of()));

        assertInstanceOf(UnsupportedOperationException.class, error);
        assertTrue(error.getMessage().contains("'acquire'"), error.getMessage());
    }

    @Test
    void shouldFailANonIntegerLeaseWithRedisError() {
        Throwable error = failure(redis.eval(
                ScriptCaller.ACQUIRE,
                ScriptCaller.queueKeys("orders", false),
                List.of("owner-a", "30s", "60000", "1500", "SPUBLISH", "1")));

        assertInstanceOf(InMemoryScriptException.class, error);
        assertTrue(error.getMessage().startsWith("ERR value is not an integer or out of range"), error.getMessage());
        assertTrue(error.getMessage().contains("script 'acquire'"), error.getMessage());
        assertTrue(error.getMessage().contains("ARGV[2]") && error.getMessage().contains("'30s'"), error.getMessage());
    }

    @Test
    void shouldFailAMissingKeyNamingIt() {
        Throwable error = failure(redis.eval(
                ScriptCaller.ACQUIRE,
                List.of(lockKey("orders"), fenceKey("orders")),
                List.of("owner-a", "30000", "60000", "1500", "SPUBLISH", "1")));

        assertInstanceOf(InMemoryScriptException.class, error);
        assertTrue(error.getMessage().contains("KEYS[3] is missing"), error.getMessage());
    }

    @Test
    void shouldKeepTheWritesMadeBeforeAScriptErrorLikeRedis() {
        Throwable error = failure(redis.eval(
                ScriptCaller.ACQUIRE,
                ScriptCaller.queueKeys("orders", false),
                List.of("owner-a", "0", "60000", "1500", "SPUBLISH", "1")));

        assertEquals(
                "ERR invalid expire time in 'set' command"
                        + " (in-memory backend, script 'acquire': ARGV[2] (lease) must be positive, but was 0)",
                error.getMessage());
        assertTrue(redis.exists(fenceKey("orders")), "the counter was set before the lock's SET failed");
        assertFalse(redis.exists(lockKey("orders")));
    }

    @Test
    void shouldFailANonPositiveCounterTtlAsRedisSetDoesAndTakeNoLock() {
        Throwable error = failure(redis.eval(
                ScriptCaller.ACQUIRE,
                ScriptCaller.queueKeys("orders", false),
                List.of("owner-a", "30000", "0", "1500", "SPUBLISH", "1")));

        assertEquals(
                "ERR invalid expire time in 'set' command"
                        + " (in-memory backend, script 'acquire': ARGV[3] (counter idle TTL) must be positive, but was 0)",
                error.getMessage());
        assertFalse(redis.exists(lockKey("orders")));
        assertFalse(redis.exists(fenceKey("orders")));
    }

    @Test
    void shouldFailNullKeysWithAClearMessage() {
        List<String> keys = new java.util.ArrayList<>();
        keys.add(null);

        Throwable error = failure(redis.eval(ScriptCaller.INSPECT, keys, List.of()));

        assertInstanceOf(IllegalArgumentException.class, error);
        assertTrue(error.getMessage().contains("must not contain null"), error.getMessage());
    }
}
