package io.leasehold.lock.testkit;

import io.leasehold.lock.testkit.redis.RedisLockBackendFixture;
import io.leasehold.lock.testkit.redis.RespScriptBackend;
import io.leasehold.lock.testkit.redis.StandaloneRedis;
import java.time.Duration;

/** The wait queue's script contract on a real redis-server: what proves the Lua. */
class RedisQueueScriptContractTest extends QueueScriptContractTestBase {

    @Override
    protected LockBackendFixture createFixture() {
        return RedisLockBackendFixture.sharedStandalone("resp-standalone", RespScriptBackend::new);
    }

    @Override
    @SuppressWarnings("unchecked")
    protected long pttl(String key) {
        StandaloneRedis redis = ((RedisLockBackendFixture<StandaloneRedis>) fixture).topology();
        return (Long) redis.masterForKey(key).command("PTTL", key);
    }

    /** Real TTLs and TIME: the time must really pass (the margin is in {@code PAST_SHORT_WAIT}). */
    @Override
    protected void passTime(Duration duration) throws InterruptedException {
        Thread.sleep(duration.toMillis());
    }
}
