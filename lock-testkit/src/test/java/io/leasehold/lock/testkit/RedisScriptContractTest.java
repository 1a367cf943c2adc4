package io.leasehold.lock.testkit;

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
}
