package io.leasehold.lock.lettuce;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LeaseState;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockOptions;
import io.leasehold.lock.spi.LockBackend;
import io.leasehold.lock.spi.LockKeys;
import io.leasehold.lock.spi.LuaScript;
import io.leasehold.lock.spi.ScriptNames;
import io.leasehold.lock.testkit.CountingLockBackend;
import io.leasehold.lock.testkit.ForwardingLockBackend;
import io.leasehold.lock.testkit.driver.Eventually;
import io.leasehold.lock.testkit.faults.Direction;
import io.leasehold.lock.testkit.faults.FaultProxy;
import io.leasehold.lock.testkit.redis.RedisFixtures;
import io.leasehold.lock.testkit.redis.StandaloneRedis;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Review attacks on LockOptions.minHoldTime (commit 42aa454) against a real redis-server with Lettuce.
 */
class LettuceMinHoldAttackTest {

    private static final String PREFIX = LockClient.Builder.DEFAULT_KEY_PREFIX;
    private final StandaloneRedis redis = RedisFixtures.sharedStandalone();

    private long pttl(String key) {
        return Long.parseLong(redis.server().command("PTTL", key).toString());
    }

    private String get(String key) {
        Object value = redis.server().command("GET", key);
        return value == null ? null : value.toString();
    }

    /**
     * The hold runs in Redis, its reply is held back, then every connection is reset: the hold is sent
     * again with the same number, Redis answers "superseded", and the release reports true; the hold
     * stays. (Passes.)
     */
    @Test
    void shouldCountAHoldWhoseReplyWasCutOffAsSet() throws Exception {
        String name = "minhold:cut-" + UUID.randomUUID();
        String key = LockKeys.lockKey(PREFIX, name);
        try (FaultProxy proxy = FaultProxy.start(redis.endpoint())) {
            RedisClient client = RedisClient.create(
                    LettuceTestClients.RESOURCES,
                    RedisURI.builder()
                            .withHost(proxy.host())
                            .withPort(proxy.port())
                            .withTimeout(LettuceTestClients.LETTUCE_TIMEOUT)
                            .build());
            CountingLockBackend counting = new CountingLockBackend(LettuceLockBackend.create(client));
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
            } finally {
                LettuceTestClients.shutdown(client);
            }
        }
    }

    /**
     * MinHoldAttackTest's renewal race on a real server: the engine's ticker is moved by hand (Redis
     * keeps real time), the two locks are given slots of their own so that they ride in two renew calls
     * of one round, and the renewer's thread is held inside the first call while the other lease is
     * released 10 s (by the ticker) into a 10 min min-hold time. Expected: the lock keeps ~9 min 50 s.
     * Observed: the renewal numbered after the hold sets 30 s over it.
     */
    @Test
    void shouldNotLetARenewalNumberedAfterTheHoldShortenItOnARealServer() throws Exception {
        AtomicLong ticker = new AtomicLong(System.nanoTime());
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch proceed = new CountDownLatch(1);
        List<List<String>> renewKeys = new CopyOnWriteArrayList<>();
        AtomicInteger renewReplies = new AtomicInteger();
        RedisClient client = RedisClient.create(LettuceTestClients.RESOURCES, RedisURI.create(redis.uri()));
        LockBackend gated = new ForwardingLockBackend(LettuceLockBackend.create(client)) {
            @Override
            public int slot(String key) {
                return key.hashCode() & 16383;
            }

            @Override
            public CompletableFuture<Object> eval(LuaScript script, List<String> keys, List<String> args) {
                if (!script.name().equals(ScriptNames.RENEW)) {
                    return super.eval(script, keys, args);
                }
                renewKeys.add(List.copyOf(keys));
                if (renewKeys.size() == 1) {
                    entered.countDown();
                    try {
                        proceed.await(10, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                return super.eval(script, keys, args).whenComplete((r, e) -> renewReplies.incrementAndGet());
            }
        };
        String suffix = UUID.randomUUID().toString();
        try (LockClient node = LockClient.builder(gated).ticker(ticker::get).build()) {
            LockOptions options = LockOptions.builder()
                    .leaseTime(Duration.ofSeconds(30))
                    .minHoldTime(Duration.ofMinutes(10))
                    .build();
            Lease a = node.lock("minhold:a-" + suffix, options).acquire(Duration.ZERO);
            Lease b = node.lock("minhold:b-" + suffix, options).acquire(Duration.ZERO);

            ticker.addAndGet(TimeUnit.SECONDS.toNanos(10));
            assertTrue(entered.await(10, TimeUnit.SECONDS), "the round's first renew call was sent");
            Lease other = renewKeys.get(0).contains(LockKeys.lockKey(PREFIX, a.lockName())) ? b : a;
            String otherKey = LockKeys.lockKey(PREFIX, other.lockName());
            assertFalse(renewKeys.get(0).contains(otherKey), "two calls: " + renewKeys);

            assertTrue(other.release());
            long afterRelease = pttl(otherKey);
            proceed.countDown();
            Eventually.until("the round's calls were answered", () -> renewReplies.get() >= 2);

            long left = pttl(otherKey);
            assertTrue(
                    left > Duration.ofMinutes(9).toMillis(),
                    "TTL right after the release " + afterRelease + " ms, after the renewal round " + left
                            + " ms (value " + get(otherKey) + ")");
        } finally {
            proceed.countDown();
            LettuceTestClients.shutdown(client);
        }
    }
}
