package io.leasehold.lock.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockTimeoutException;
import io.leasehold.lock.inmemory.InMemoryLockBackend;
import io.leasehold.lock.spi.LockKeys;
import io.leasehold.lock.spi.ScriptNames;
import io.leasehold.lock.testkit.driver.Eventually;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A fair waiter whose client's round trip is longer than the 0.5 s a fair attempt first waits for
 * its reply (but within its command timeout) still gets the lock the queue grants it: once an attempt
 * of its wait has timed out, its later attempts wait the whole command timeout. Were they cut at
 * 0.5 s each, every retry (same owner) would run in Redis and reset the granted lock's TTL to a full
 * lease, yet never be answered in time: the lock would stay held for nobody's lease for the slow
 * waiter's whole wait, and every other client's waiter behind it would time out.
 */
class FairWaiterOnSlowLinkTest {

    private static final String PREFIX = LockClient.Builder.DEFAULT_KEY_PREFIX;

    private final InMemoryLockBackend redis = new InMemoryLockBackend();
    private final LockClient fast = LockClient.builder(redis.newNode()).build();
    /** Its acquire replies arrive 600 ms after the script ran (a slow link); its command timeout is 2 s. */
    private final LockClient slow = LockClient.builder(
                    new SlowRepliesBackend(redis.newNode(), Duration.ofMillis(600), ScriptNames.ACQUIRE::equals))
            .commandTimeout(Duration.ofSeconds(2))
            .build();

    @AfterEach
    void close() {
        fast.close();
        slow.close();
        redis.close();
    }

    @Test
    void shouldHandTheGrantToAFairWaiterWhoseRoundTripIsLongerThanHalfASecond() throws Exception {
        // Given a fair lock held by one client, and the other client's waiter queued behind it
        String name = "fair:slow-link";
        Lease first = fast.fairLock(name).acquire(Duration.ofSeconds(5));
        CompletableFuture<Lease> slowWaiter = slow.fairLock(name).acquireAsync(Duration.ofSeconds(20));
        Eventually.until(
                "the slow waiter has its place in the queue",
                () -> redis.sortedSetMembers(LockKeys.queueKey(PREFIX, name)).size() == 1);
        // When the holder releases, granting the lock to the slow waiter
        assertTrue(first.release());
        // Then the slow waiter gets its lease, and the lock is free once it releases
        Lease granted = slowWaiter.get(10, TimeUnit.SECONDS);
        assertTrue(granted.fencingToken() > first.fencingToken(), "tokens rise along the queue");
        assertTrue(granted.release());
        assertEquals(
                true,
                fast.fairLock(name)
                        .tryAcquire(Duration.ofSeconds(1))
                        .map(Lease::release)
                        .orElse(false),
                "the fast client takes the lock after the slow waiter released it");
    }

    @Test
    void shouldTakeAFreeFairLockWithoutAWaitWhenTheReplyComesWithinTheCommandTimeout() {
        // A call that will not wait takes no place in the queue: it waits for its reply as any call does
        Optional<Lease> taken = slow.fairLock("fair:slow-try").tryAcquire();
        assertTrue(taken.isPresent(), "tryAcquire() of a free fair lock, answered after 600 ms");
        assertTrue(taken.get().release());
    }

    @Test
    void shouldLetTheReplyDecideAFairWaitShorterThanTheRoundTrip() {
        // Given a wait (300 ms) that is over before the first reply (600 ms) comes
        String free = "fair:slow-short-wait-free";
        // Then a free lock is taken, from the reply
        Optional<Lease> taken = slow.fairLock(free).tryAcquire(Duration.ofMillis(300));
        assertTrue(taken.isPresent(), "tryAcquire(300 ms) of a free fair lock, answered after 600 ms");
        assertTrue(taken.get().release());
        // And a held one times out as contended, not as a backend failure
        String held = "fair:slow-short-wait-held";
        Lease holder = fast.fairLock(held).acquire(Duration.ofSeconds(5));
        assertThrows(
                LockTimeoutException.class,
                () -> slow.fairLock(held).acquire(Duration.ofMillis(300)),
                "acquire(300 ms) of a held fair lock, answered after 600 ms");
        assertTrue(holder.release());
        assertFalse(fast.lock(held).isLocked(), "isLocked() once the holder released (the slow waiter left)");
    }
}
