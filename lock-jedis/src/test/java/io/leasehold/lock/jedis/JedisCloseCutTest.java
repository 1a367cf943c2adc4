package io.leasehold.lock.jedis;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.lock.spi.LuaScript;
import io.leasehold.lock.testkit.redis.RedisFixtures;
import io.leasehold.lock.testkit.redis.StandaloneRedis;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.RedisClient;

/**
 * What {@code close()} does to a script call that is about to write: Jedis reconnects a connection
 * whose socket was closed as soon as anyone writes on it, so a cut alone does not stop a write that
 * comes after it; the backend must not let the call write once it is closed.
 */
class JedisCloseCutTest {

    private static final LuaScript SET = LuaScript.of("set", "return redis.call('SET', KEYS[1], ARGV[1])");

    @Test
    void shouldSendNothingOnceClosedWhenCloseCutsACallAboutToWrite() throws Exception {
        try (StandaloneRedis redis = RedisFixtures.startStandalone();
                RedisClient client = RedisClient.builder()
                        .hostAndPort(redis.host(), redis.port())
                        .clientConfig(DefaultJedisClientConfig.builder()
                                .socketTimeoutMillis(15_000)
                                .build())
                        .build()) {
            JedisLockBackend backend = JedisLockBackend.create(client);
            backend.eval(SET, List.of("warm"), List.of("1")).get(10, TimeUnit.SECONDS);
            // Given a call that holds its connection and is about to write when close() begins
            CountDownLatch aboutToWrite = new CountDownLatch(1);
            CountDownLatch closing = new CountDownLatch(1);
            CompletableFuture<Object> call = backend.eval(SET, List.of("after-close"), List.of("sent"), () -> {
                aboutToWrite.countDown();
                await(closing);
                // the write hook returns once close() has begun (and may be cutting the connection)
                long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (!backend.toString().endsWith(", closed}") && System.nanoTime() < giveUp) {
                    Thread.onSpinWait();
                }
            });
            assertThat(aboutToWrite.await(10, TimeUnit.SECONDS)).isTrue();
            // and a frozen server, so that a write that gets through stays unanswered until the end
            redis.pauseAll();
            long closeNanos;
            try {
                closing.countDown();
                long start = System.nanoTime();
                backend.close();
                closeNanos = System.nanoTime() - start;
            } finally {
                redis.resumeAll();
            }

            // Then close() returned within its bound (5 s for the backend's threads: the pool that takes
            // the cut connection back may open its replacement on the script thread, and that waits on
            // the frozen server), the call failed, and Redis never ran it
            assertThat(Duration.ofNanos(closeNanos)).isLessThan(Duration.ofSeconds(8));
            assertThat(call).failsWithin(Duration.ofSeconds(10));
            // a write that got through before the cut would be in the server's socket buffer and run
            // within a millisecond of its resumption; half a second is a wide margin for it
            Thread.sleep(500);
            assertThat(redis.server().command("GET", "after-close"))
                    .as("the cut call's SET reached Redis")
                    .isNull();
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            assertThat(latch.await(10, TimeUnit.SECONDS)).isTrue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
