package io.leasehold.lock.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.leasehold.lock.spi.LuaScript;
import io.leasehold.lock.spi.ScriptNames;
import io.leasehold.lock.testkit.redis.RedisLockBackendFixture;
import io.leasehold.lock.testkit.redis.RedisNode;
import io.leasehold.lock.testkit.redis.RespScriptBackend;
import io.leasehold.lock.testkit.redis.StandaloneRedis;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** quorum-enlist.lua's contract on a real redis-server: what proves the Lua. */
class RedisQuorumEnlistScriptContractTest extends QuorumEnlistScriptContractTestBase {

    @Override
    protected LockBackendFixture createFixture() {
        return RedisLockBackendFixture.sharedStandalone("resp-standalone", RespScriptBackend::new);
    }

    @SuppressWarnings("unchecked")
    private RedisNode node(String key) {
        return ((RedisLockBackendFixture<StandaloneRedis>) fixture).topology().masterForKey(key);
    }

    @Test
    void shouldTellTheServersMaxmemoryAndPolicyAsItIsConfigured() {
        RedisNode node = node(record());
        Object maxmemory = ((List<?>) node.command("CONFIG", "GET", "maxmemory")).get(1);
        Object policy = ((List<?>) node.command("CONFIG", "GET", "maxmemory-policy")).get(1);
        try {
            node.command("CONFIG", "SET", "maxmemory", "100mb");
            node.command("CONFIG", "SET", "maxmemory-policy", "volatile-lru");
            List<?> probe = (List<?>) backend()
                    .eval(LuaScript.bundled(ScriptNames.QUORUM_ENLIST), List.of(record()), List.of("probe", ""))
                    .join();

            assertEquals(List.of(Long.toString(100L * 1024 * 1024), "volatile-lru"), probe.subList(5, 7));
        } finally {
            node.command("CONFIG", "SET", "maxmemory-policy", String.valueOf(policy));
            node.command("CONFIG", "SET", "maxmemory", String.valueOf(maxmemory));
        }
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
