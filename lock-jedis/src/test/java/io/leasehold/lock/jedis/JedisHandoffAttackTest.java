package io.leasehold.lock.jedis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LockBackendException;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockInfo;
import io.leasehold.lock.spi.LockKeys;
import io.leasehold.lock.spi.ScriptNames;
import io.leasehold.lock.testkit.CountingLockBackend;
import io.leasehold.lock.testkit.driver.Eventually;
import io.leasehold.lock.testkit.faults.Direction;
import io.leasehold.lock.testkit.faults.FaultProxy;
import io.leasehold.lock.testkit.redis.RedisFixtures;
import io.leasehold.lock.testkit.redis.StandaloneRedis;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.RedisClient;

/**
 * Adversarial tests of the local handoff against a real Redis with Jedis, which runs scripts on
 * several pooled connections: the handoff's reply cut off. (The handoff delayed past the command
 * timeout fails with Jedis: the waiter's retry overtakes it on another connection, see
 * HandoffFailureTest#shouldNotLeaveAWaiterAsleepWhileRedisHoldsTheLockForItAfterALateHandoff.)
 */
class JedisHandoffAttackTest {

    private static final String PREFIX = LockClient.Builder.DEFAULT_KEY_PREFIX;
    private final StandaloneRedis redis = RedisFixtures.sharedStandalone();

    private static RedisClient clientVia(FaultProxy proxy) {
        return RedisClient.builder()
                .hostAndPort(proxy.host(), proxy.port())
                .clientConfig(JedisTestClients.config())
                .build();
    }

    private static void awaitQueued(CountingLockBackend counting) {
        Eventually.until(
                "the waiter tried, was contended and subscribed; " + counting,
                () -> counting.count(ScriptNames.ACQUIRE) >= 2 && counting.activeSubscriptions() >= 1);
    }

    private String get(String key) {
        Object value = redis.server().command("GET", key);
        return value == null ? null : value.toString();
    }

    /**
     * The handoff runs in Redis, but its reply is held back and then the connections are reset: the
     * waiter (time left) is not failed with a backend error (G9), gets the lock exactly once with a
     * higher token, and the holder's release reports true or its unknown outcome, never a loss.
     */
    @Test
    void shouldHandTheLockOverOnceWhenTheHandoffsReplyIsCutOff() throws Exception {
        String name = "jedis-handoff:cut-" + UUID.randomUUID();
        String key = LockKeys.lockKey(PREFIX, name);
        try (FaultProxy proxy = FaultProxy.start(redis.endpoint())) {
            RedisClient client = clientVia(proxy);
            CountingLockBackend counting = new CountingLockBackend(JedisLockBackend.create(client));
            List<String> lost = new CopyOnWriteArrayList<>();
            try (LockClient node = LockClient.builder(counting)
                    .commandTimeout(Duration.ofSeconds(3))
                    .listener(new io.leasehold.lock.LockEventListener() {
                        @Override
                        public void onLeaseLost(io.leasehold.lock.LeaseLoss loss) {
                            lost.add(loss.toString());
                        }
                    })
                    .build()) {
                Lease held = node.lock(name).acquire(Duration.ofSeconds(10));
                CompletableFuture<Lease> waiting = node.lock(name).acquireAsync(Duration.ofSeconds(60));
                awaitQueued(counting);

                // Replies held back (1 s: a new pooled connection's handshake still fits its 2 s socket timeout),
                // and once the handoff has run in Redis, every connection is reset: its reply is lost.
                proxy.latency(Direction.TARGET_TO_CLIENT, Duration.ofMillis(1000));
                CompletableFuture<Boolean> released = held.releaseAsync();
                Eventually.until("the handoff ran in Redis", () -> {
                    String value = get(key);
                    return value != null && !value.contains(":" + held.fencingToken());
                });
                proxy.cutConnections();
                proxy.resume();

                Lease lease = waiting.get(20, TimeUnit.SECONDS);
                assertTrue(lease.fencingToken() > held.fencingToken());
                assertEquals(
                        Optional.of(lease.fencingToken()),
                        node.lock(name).inspect().map(LockInfo::fencingToken));
                try {
                    assertTrue(released.get(20, TimeUnit.SECONDS), "the holder's release");
                } catch (ExecutionException unknownOutcome) {
                    assertInstanceOf(LockBackendException.class, unknownOutcome.getCause());
                }
                assertTrue(lease.release());
                assertEquals(null, get(key));
                assertTrue(lost.isEmpty(), "losses reported: " + lost);
            } finally {
                client.close();
            }
        }
    }
}
