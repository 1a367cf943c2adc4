package io.leasehold.lock.jedis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LeaseState;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockOptions;
import io.leasehold.lock.spi.LockKeys;
import io.leasehold.lock.spi.ScriptNames;
import io.leasehold.lock.testkit.CountingLockBackend;
import io.leasehold.lock.testkit.driver.Eventually;
import io.leasehold.lock.testkit.faults.Direction;
import io.leasehold.lock.testkit.faults.FaultProxy;
import io.leasehold.lock.testkit.redis.RedisFixtures;
import io.leasehold.lock.testkit.redis.StandaloneRedis;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Review attack on LockOptions.minHoldTime (commit 42aa454) against a real redis-server with Jedis. */
class JedisMinHoldAttackTest {

    private static final String PREFIX = LockClient.Builder.DEFAULT_KEY_PREFIX;
    private final StandaloneRedis redis = RedisFixtures.sharedStandalone();

    private long pttl(String key) {
        return Long.parseLong(redis.server().command("PTTL", key).toString());
    }

    private String get(String key) {
        Object value = redis.server().command("GET", key);
        return value == null ? null : value.toString();
    }

    /** The hold runs, its reply is held back and the connections reset: resent, "superseded", true. (Passes.) */
    @Test
    void shouldCountAHoldWhoseReplyWasCutOffAsSet() throws Exception {
        String name = "minhold:jedis-cut-" + UUID.randomUUID();
        String key = LockKeys.lockKey(PREFIX, name);
        try (FaultProxy proxy = FaultProxy.start(redis.endpoint())) {
            CountingLockBackend counting = new CountingLockBackend(JedisTestClients.owningAt(proxy.endpoint()));
            try (LockClient node = LockClient.builder(counting)
                    .commandTimeout(Duration.ofSeconds(3))
                    .build()) {
                Lease lease = node.lock(
                                name,
                                LockOptions.builder()
                                        .minHoldTime(Duration.ofSeconds(10))
                                        .build())
                        .acquire(Duration.ofSeconds(5));
                proxy.latency(Direction.TARGET_TO_CLIENT, Duration.ofMillis(1000));
                CompletableFuture<Boolean> released = lease.releaseAsync();
                Eventually.until("the hold ran in Redis", () -> {
                    String value = get(key);
                    return value != null
                            && value.endsWith(":" + ((1L << 53) - 1))
                            && pttl(key) <= 10_000; // the hold's final number
                });
                proxy.cutConnections();
                proxy.resume();

                assertTrue(released.get(20, TimeUnit.SECONDS), "release() whose hold's reply was cut off");
                assertEquals(LeaseState.RELEASED, lease.state());
                assertFalse(lease.lost().isDone());
                assertTrue(counting.count(ScriptNames.EXTEND) >= 2, "the hold was sent again: " + counting);
                long left = pttl(key);
                assertTrue(left > 5_000 && left <= 10_000, "the hold's TTL: " + left);
            }
        }
    }
}
