package io.leasehold.lock.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LeaseLoss;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockEventListener;
import io.leasehold.lock.LockOptions;
import io.leasehold.lock.inmemory.InMemoryLockBackend;
import io.leasehold.lock.inmemory.ManualClock;
import io.leasehold.lock.spi.LockKeys;
import io.leasehold.lock.testkit.driver.Eventually;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * An acquire whose reply came after its command timed out (a retry with the same owner won the
 * lock) must not be undone while the lease it produced is being released: the clean-up of that late
 * reply used to delete the lock just before the holder's own release ran, which then found the lock
 * gone and reported a false {@code STOLEN} loss (seen as a rare flake of a conformance scenario on
 * Jedis). The test holds each reply and command by hand, so the interleaving is exact.
 */
class LateAcquireReplyDuringReleaseTest {

    private static final String NAME = "orders:late";
    private static final String LOCK_KEY = LockKeys.lockKey(LockClient.Builder.DEFAULT_KEY_PREFIX, NAME);
    private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(2);
    private static final LockOptions OPTIONS =
            LockOptions.builder().leaseTime(Duration.ofSeconds(30)).build();

    private ManualClock clock;
    private InMemoryLockBackend redis;
    private GatedRepliesBackend gated;
    private LockClient client;
    private final List<LeaseLoss> losses = new CopyOnWriteArrayList<>();
    private final AtomicInteger releasedEvents = new AtomicInteger();

    @BeforeEach
    void start() {
        clock = new ManualClock();
        redis = InMemoryLockBackend.withClock(clock);
        gated = new GatedRepliesBackend(redis.newNode());
        client = LockClient.builder(gated)
                .ticker(clock)
                .commandTimeout(COMMAND_TIMEOUT)
                .listener(new LockEventListener() {
                    @Override
                    public void onLeaseLost(LeaseLoss loss) {
                        losses.add(loss);
                    }

                    @Override
                    public void onReleased(String lockName, long fencingToken, Duration heldFor) {
                        releasedEvents.incrementAndGet();
                    }
                })
                .build();
    }

    @AfterEach
    void stop() {
        client.close();
        redis.close();
    }

    @Test
    void shouldReleaseCleanlyWhenALateAcquireReplyArrivesWhileTheReleaseIsOnItsWay() throws Exception {
        Lease lease = leaseWonByARetryWhileTheFirstReplyIsHeld();

        // When the holder releases, and the first attempt's reply arrives before its release has run
        gated.holdNextRelease();
        CompletableFuture<Boolean> released = lease.releaseAsync();
        Eventually.until("the holder's release was sent", () -> gated.releases.size() == 1);
        gated.completeHeldAcquireReply();
        gated.sendHeldRelease();

        // Then the release deleted the holder's lock, and nobody reports a loss
        assertTrue(released.get(10, TimeUnit.SECONDS), "the holder's own release deleted its lock");
        Eventually.until("the release reported", () -> releasedEvents.get() == 1);
        assertEquals(List.of(), losses, "no lease was lost");
        assertFalse(redis.exists(LOCK_KEY), "the lock is free");
        assertTrue(lease.lost().getNow(null) == null, "lost() never completes on a release");
    }

    @Test
    void shouldStillUndoALateAcquireThatRanAfterTheHoldersRelease() throws Exception {
        Lease lease = leaseWonByARetryWhileTheFirstReplyIsHeld();

        // When the holder's release runs first, and only then the late acquire runs again (re-taking the lock)
        assertTrue(lease.release());
        redis.writeKey(LOCK_KEY, gated.firstAcquireOwner.get() + ":" + lease.fencingToken());
        gated.completeHeldAcquireReply();

        // Then the late reply's clean-up frees the lock for others
        Eventually.until("the late acquire was undone", () -> !redis.exists(LOCK_KEY));
        assertEquals(List.of(), losses, "no lease was lost");
    }

    private Lease leaseWonByARetryWhileTheFirstReplyIsHeld() throws Exception {
        return gated.leaseWonByARetry(client, clock, COMMAND_TIMEOUT, NAME, OPTIONS);
    }
}
