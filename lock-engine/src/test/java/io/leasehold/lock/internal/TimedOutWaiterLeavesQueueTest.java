package io.leasehold.lock.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.DistributedLock;
import io.leasehold.lock.Lease;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.inmemory.InMemoryLockBackend;
import io.leasehold.lock.spi.LockBackend;
import io.leasehold.lock.spi.LockKeys;
import io.leasehold.lock.spi.LuaScript;
import io.leasehold.lock.spi.ScriptNames;
import io.leasehold.lock.testkit.ForwardingLockBackend;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A waiter that timed out has left the lock's wait queue in Redis by the time its call returns: a
 * release that follows (on any thread that saw the timeout) finds nobody to grant the lock to, and
 * the lock is free at once. Its clean-up reaches Redis here 200 ms after it is sent (a slow network),
 * so a timeout that returned before its clean-up was answered would leave its place to be granted.
 */
class TimedOutWaiterLeavesQueueTest {

    private static final String PREFIX = LockClient.Builder.DEFAULT_KEY_PREFIX;

    private final InMemoryLockBackend redis = new InMemoryLockBackend();
    private final List<String> order = new CopyOnWriteArrayList<>();
    /** A client that holds the lock. */
    private final LockClient holder = LockClient.builder(redis.newNode()).build();
    /** Another client, whose releases reach Redis late. */
    private final LockClient waiter =
            LockClient.builder(new SlowReleasesBackend(redis.newNode(), order)).build();

    @AfterEach
    void close() {
        holder.close();
        waiter.close();
        redis.close();
    }

    @Test
    void shouldHaveLeftTheRedisQueueWhenATimedOutTryAcquireReturns() throws Exception {
        // Given a lock held by one client, and another client whose releases reach Redis late
        String name = "timed-out:leaves";
        Lease held = holder.lock(name).tryAcquire().orElseThrow();
        // When a waiter of the other client times out
        DistributedLock lock = waiter.lock(name);
        assertTrue(lock.tryAcquire(Duration.ofMillis(100)).isEmpty(), "tryAcquire while held");
        order.add("tryAcquire returned");
        // Then its place in the queue was removed before its call returned
        assertEquals(List.of("release of the waiter ran", "tryAcquire returned"), order);
        assertEquals(List.of(), redis.sortedSetMembers(LockKeys.queueKey(PREFIX, name)), "queue places");
        // And the holder's release leaves the lock free, not granted to the waiter that left
        assertTrue(held.release());
        assertFalse(holder.lock(name).isLocked(), "isLocked() after the release");
    }

    @Test
    void shouldHaveLeftTheRedisQueueWhenATimedOutAsyncAcquisitionCompletes() throws Exception {
        String name = "timed-out:leaves-async";
        Lease held = holder.lock(name).tryAcquire().orElseThrow();
        CompletableFuture<Lease> attempt = waiter.lock(name).acquireAsync(Duration.ofMillis(100));
        CompletableFuture<Void> observed = attempt.handle((lease, error) -> {
            order.add("acquireAsync completed");
            return null;
        });
        observed.get(10, TimeUnit.SECONDS);
        assertTrue(attempt.isCompletedExceptionally(), "acquireAsync while held");
        assertEquals(List.of("release of the waiter ran", "acquireAsync completed"), order);
        assertTrue(held.release());
        assertFalse(holder.lock(name).isLocked(), "isLocked() after the release");
    }

    @Test
    void shouldReturnATimedOutWaitWithinItsWaitPlusOneCommandTimeoutWhenRepliesAreSlow() throws Exception {
        // Given a client whose replies come 1.9 s after its calls ran (its command timeout is 2 s), and
        // a lock held by another client
        try (InMemoryLockBackend store = new InMemoryLockBackend();
                LockClient other = LockClient.builder(store.newNode()).build();
                LockClient slowClient = LockClient.builder(
                                new SlowRepliesBackend(store.newNode(), Duration.ofMillis(1_900), script -> true))
                        .commandTimeout(Duration.ofSeconds(2))
                        .build()) {
            String name = "timed-out:slow-replies";
            Lease held = other.lock(name).tryAcquire().orElseThrow();
            // When it waits 1 s: its attempt's reply (contended) comes after the deadline, and its
            // clean-up's reply would come 1.9 s after that
            long start = System.nanoTime();
            assertTrue(slowClient.lock(name).tryAcquire(Duration.ofSeconds(1)).isEmpty(), "tryAcquire while held");
            long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            // Then the call still returns within its wait plus one command timeout (3 s; 3.8 s if the
            // clean-up's reply were awaited in full), with a margin for a slow machine
            assertTrue(tookMs < 3_500, "tryAcquire(1 s) returned after " + tookMs + " ms");
            assertTrue(held.release());
        }
    }

    /** Runs release.lua 200 ms after it is sent, and notes when it ran. */
    private static final class SlowReleasesBackend extends ForwardingLockBackend {

        private final Executor late = CompletableFuture.delayedExecutor(200, TimeUnit.MILLISECONDS);
        private final List<String> order;

        SlowReleasesBackend(LockBackend delegate, List<String> order) {
            super(delegate);
            this.order = order;
        }

        @Override
        public CompletableFuture<Object> eval(LuaScript script, List<String> keys, List<String> args) {
            if (!script.name().equals(ScriptNames.RELEASE)) {
                return super.eval(script, keys, args);
            }
            return CompletableFuture.supplyAsync(() -> null, late)
                    .thenCompose(ignored -> super.eval(script, keys, args))
                    .whenComplete((reply, error) -> order.add("release of the waiter ran"));
        }
    }
}
