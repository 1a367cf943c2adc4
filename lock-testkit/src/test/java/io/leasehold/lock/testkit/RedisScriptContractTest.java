package io.leasehold.lock.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.testkit.redis.RedisLockBackendFixture;
import io.leasehold.lock.testkit.redis.RespScriptBackend;
import io.leasehold.lock.testkit.redis.StandaloneRedis;
import java.util.List;

/** The script contract on a real redis-server: what proves the Lua. */
class RedisScriptContractTest extends ScriptContractTestBase {

    @Override
    protected LockBackendFixture createFixture() {
        return RedisLockBackendFixture.sharedStandalone("resp-standalone", RespScriptBackend::new);
    }

    @SuppressWarnings("unchecked")
    private StandaloneRedis redis() {
        return ((RedisLockBackendFixture<StandaloneRedis>) fixture).topology();
    }

    @Override
    protected long pttl(String key) {
        return (Long) redis().masterForKey(key).command("PTTL", key);
    }

    @Override
    protected long serverTimeMicros() {
        List<?> time = (List<?>) redis().server().command("TIME");
        return Long.parseLong((String) time.get(0)) * 1_000_000L + Long.parseLong((String) time.get(1));
    }

    /**
     * A server whose clock advances during a script (TIME up to Redis 7.0, os.clock from 7.4 on) tells
     * a run time above 0 for 200 leases; Redis 7.2 and 7.3 freeze TIME and have no os.clock: 0.
     */
    @Override
    protected void assertRunTimeTold(long micros) {
        String version = serverVersion();
        if (version.startsWith("7.2.") || version.startsWith("7.3.")) {
            assertEquals(0L, micros, "redis-server " + version + " cannot tell");
        } else {
            assertTrue(micros > 0, () -> "redis-server " + version + " told a run time of " + micros + " µs");
        }
    }

    private String serverVersion() {
        for (String line :
                String.valueOf(redis().server().command("INFO", "server")).split("\r?\n")) {
            if (line.startsWith("redis_version:")) {
                return line.substring("redis_version:".length()).strip();
            }
        }
        throw new IllegalStateException("INFO server names no redis_version");
    }
}
