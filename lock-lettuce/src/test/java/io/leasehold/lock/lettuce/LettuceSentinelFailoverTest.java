package io.leasehold.lock.lettuce;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LeaseLoss;
import io.leasehold.lock.LockBackendException;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockOptions;
import io.leasehold.lock.LockTimeoutException;
import io.leasehold.lock.spi.LockKeys;
import io.leasehold.lock.testkit.redis.RedisEndpoint;
import io.leasehold.lock.testkit.redis.RedisFixtures;
import io.leasehold.lock.testkit.redis.SentinelRedis;
import io.lettuce.core.RedisClient;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Killing the Sentinel-managed master: leases learn they are lost, and locking goes on on the promoted replica. */
class LettuceSentinelFailoverTest {

    private static final Duration FAILOVER_BOUND = Duration.ofSeconds(60);

    private static SentinelRedis sentinel;
    private static RedisClient client;

    @BeforeAll
    static void start() {
        sentinel = RedisFixtures.sharedSentinel();
        sentinel.restoreAll();
        client = LettuceTestClients.redisClient(sentinel);
    }

    @AfterAll
    static void stop() {
        LettuceTestClients.shutdown(client);
        sentinel.restoreAll();
        sentinel.flushAll();
    }

    @Test
    void shouldSignalLossThenGrantHigherTokensAndResubscribeOnThePromotedMasterWhenTheMasterDies() throws Exception {
        String name = "failover:" + UUID.randomUUID();
        // A 1 s lease cannot be confirmed through a failover: Sentinel alone waits 1 s before it calls the master down.
        LockOptions shortLease = LockOptions.builder().leaseTime(Duration.ofSeconds(1)).build();
        LettuceLockBackend backend = LettuceLockBackend.create(client);
        try (LockClient locks = LockClient.builder(backend).commandTimeout(Duration.ofSeconds(1)).build()) {
            // Given a held, auto-renewed lease and an active subscription
            Lease held = locks.lock(name, shortLease).acquire(Duration.ofSeconds(10));
            String channel = "failover:{" + UUID.randomUUID() + "}:released";
            MessageRecorder recorder = new MessageRecorder();
            backend.subscribe(channel, recorder).get(10, TimeUnit.SECONDS);
            RedisEndpoint oldMaster = sentinel.currentMasterEndpoint();

            // When the master is killed and Sentinel promotes the replica
            sentinel.master().kill();

            // Then the holder is told (any reason), well before anything else happens
            LeaseLoss loss = held.lost().get(FAILOVER_BOUND.toSeconds(), TimeUnit.SECONDS);
            assertThat(loss.reason()).isNotNull();
            assertThat(held.isValid()).isFalse();
            RedisEndpoint newMaster = sentinel.awaitFailover(oldMaster, FAILOVER_BOUND);
            assertThat(newMaster).isNotEqualTo(oldMaster);

            // And a new acquisition succeeds on the promoted master, with a higher fencing token
            Lease next = acquireThroughFailover(locks, name);
            assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
            assertThat(sentinel.master().command("EXISTS", LockKeys.lockKey(LockClient.Builder.DEFAULT_KEY_PREFIX, name)))
                    .as("the lock lives on the promoted master").isEqualTo(1L);
            assertThat(next.release()).isTrue();

            // And the subscription was made again on the promoted master, and its listener told
            assertThat(recorder.resubscribed.poll(FAILOVER_BOUND.toSeconds(), TimeUnit.SECONDS)).isEqualTo(channel);
            Eventually.until("the promoted master has the subscription", () -> shardSubscribers(channel) == 1);
            sentinel.master().command("SPUBLISH", channel, "released");
            assertThat(recorder.messages.poll(10, TimeUnit.SECONDS)).isEqualTo("released");
        } finally {
            sentinel.restoreAll();
        }
    }

    /** Lettuce reconnects through the Sentinels with back-off; until it has, calls fail or time out. */
    private static Lease acquireThroughFailover(LockClient locks, String name) throws InterruptedException {
        long deadline = System.nanoTime() + FAILOVER_BOUND.toNanos();
        while (true) {
            try {
                return locks.lock(name).acquire(Duration.ofSeconds(5));
            } catch (LockBackendException | LockTimeoutException e) {
                if (System.nanoTime() - deadline > 0) {
                    throw new AssertionError("no acquisition within " + FAILOVER_BOUND + " of the failover", e);
                }
                Thread.sleep(200);
            }
        }
    }

    private static long shardSubscribers(String channel) {
        List<?> reply = (List<?>) sentinel.master().command("PUBSUB", "SHARDNUMSUB", channel);
        return (Long) reply.get(1);
    }
}
