package io.leasehold.lock.testkit;

import io.leasehold.lock.testkit.redis.RedisLockBackendFixture;
import io.leasehold.lock.testkit.redis.RedisNode;
import io.leasehold.lock.testkit.redis.RespScriptBackend;
import io.leasehold.lock.testkit.redis.StandaloneRedis;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** quorum-fair-acquire.lua's contract on a real redis-server: what proves the Lua. */
class RedisQuorumFairAcquireScriptContractTest extends QuorumFairAcquireScriptContractTestBase {

    @Override
    protected LockBackendFixture createFixture() {
        return RedisLockBackendFixture.sharedStandalone("resp-standalone", RespScriptBackend::new);
    }

    @SuppressWarnings("unchecked")
    private RedisNode node(String key) {
        return ((RedisLockBackendFixture<StandaloneRedis>) fixture).topology().masterForKey(key);
    }

    @Override
    protected long pttl(String key) {
        return (Long) node(key).command("PTTL", key);
    }

    @Override
    protected Optional<String> get(String key) {
        return Optional.ofNullable((String) node(key).command("GET", key));
    }

    @Override
    protected Map<String, Double> sortedSet(String key) {
        List<?> flat = (List<?>) node(key).command("ZRANGE", key, "0", "-1", "WITHSCORES");
        Map<String, Double> members = new LinkedHashMap<>();
        for (int i = 0; i < flat.size(); i += 2) {
            members.put((String) flat.get(i), Double.parseDouble((String) flat.get(i + 1)));
        }
        return members;
    }

    /** Real TTLs and TIME: the time must really pass. */
    @Override
    protected void passTime(Duration duration) throws InterruptedException {
        Thread.sleep(duration.toMillis());
    }
}
