package io.leasehold.lock.testkit;

import io.leasehold.lock.testkit.redis.RedisLockBackendFixture;
import io.leasehold.lock.testkit.redis.RedisNode;
import io.leasehold.lock.testkit.redis.RespScriptBackend;
import io.leasehold.lock.testkit.redis.StandaloneRedis;
import java.util.Optional;

/** quorum-restore.lua's contract on a real redis-server: what proves the Lua. */
class RedisQuorumRestoreScriptContractTest extends QuorumRestoreScriptContractTestBase {

    @Override
    protected LockBackendFixture createFixture() {
        return RedisLockBackendFixture.sharedStandalone("resp-standalone", RespScriptBackend::new);
    }

    @SuppressWarnings("unchecked")
    private RedisNode node(String key) {
        return ((RedisLockBackendFixture<StandaloneRedis>) fixture).topology().masterForKey(key);
    }

    @Override
    protected Optional<String> get(String key) {
        return Optional.ofNullable((String) node(key).command("GET", key));
    }

    @Override
    protected Optional<String> hashField(String key, String field) {
        return Optional.ofNullable((String) node(key).command("HGET", key, field));
    }

    @Override
    protected void writeHashField(String key, String field, String value) {
        node(key).command("HSET", key, field, value);
    }
}
