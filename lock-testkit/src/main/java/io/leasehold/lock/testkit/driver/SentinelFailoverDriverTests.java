package io.leasehold.lock.testkit.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LeaseLoss;
import io.leasehold.lock.LockBackendException;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockOptions;
import io.leasehold.lock.LockTimeoutException;
import io.leasehold.lock.spi.LockBackend;
import io.leasehold.lock.spi.LockKeys;
import io.leasehold.lock.testkit.redis.RedisEndpoint;
import io.leasehold.lock.testkit.redis.RedisFixtures;
import io.leasehold.lock.testkit.redis.SentinelRedis;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Killing the Sentinel-managed master, for every driver: leases learn they are lost, locking goes on
 * on the promoted replica with higher fencing tokens, and subscriptions follow the new master.
 * Extend it with your {@link DriverUnderTest}; it runs on the JVM's shared Sentinel group.
 */
public abstract class SentinelFailoverDriverTests {

    private static final Duration FAILOVER_BOUND = Duration.ofSeconds(60);

    /** The driver under test. */
    protected abstract DriverUnderTest driver();

    @Test
    void shouldSignalLossThenGrantHigherTokensAndResubscribeOnThePromotedMasterWhenTheMasterDies() throws Exception {
        SentinelRedis sentinel = RedisFixtures.sharedSentinel();
        sentinel.restoreAll();
        String name = "failover:" + UUID.randomUUID();
        // A 1 s lease cannot be confirmed through a failover: Sentinel alone waits 1 s before it calls the master down.
        LockOptions shortLease =
                LockOptions.builder().leaseTime(Duration.ofSeconds(1)).build();
        LockBackend backend = driver().open(sentinel).backend();
        try (LockClient locks = LockClient.builder(backend)
                .commandTimeout(Duration.ofSeconds(1))
                .build()) {
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
            assertNotNull(loss.reason());
            assertFalse(held.isValid());
            RedisEndpoint newMaster = sentinel.awaitFailover(oldMaster, FAILOVER_BOUND);
            assertNotEquals(oldMaster, newMaster);

            // And a new acquisition succeeds on the promoted master, with a higher fencing token
            Lease next = acquireThroughFailover(locks, name);
            assertTrue(next.fencingToken() > held.fencingToken(), "token after the failover is higher");
            assertEquals(
                    1L,
                    sentinel.master().command("EXISTS", LockKeys.lockKey(LockClient.Builder.DEFAULT_KEY_PREFIX, name)),
                    "the lock lives on the promoted master");
            assertTrue(next.release());

            // And the subscription was made again on the promoted master, and its listener told
            assertEquals(channel, recorder.resubscribed.poll(FAILOVER_BOUND.toSeconds(), TimeUnit.SECONDS));
            Eventually.until(
                    "the promoted master has the subscription", () -> shardSubscribers(sentinel, channel) == 1);
            sentinel.master().command("SPUBLISH", channel, "released");
            assertEquals("released", recorder.messages.poll(10, TimeUnit.SECONDS));
        } finally {
            sentinel.restoreAll();
            sentinel.flushAll();
        }
    }

    /** A driver reconnects through the Sentinels with back-off; until it has, calls fail or time out. */
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

    private static long shardSubscribers(SentinelRedis sentinel, String channel) {
        List<?> reply = (List<?>) sentinel.master().command("PUBSUB", "SHARDNUMSUB", channel);
        return (Long) reply.get(1);
    }
}
