package io.leasehold.lock.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.DistributedLock;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockEventListener;
import io.leasehold.lock.LockOptions;
import io.leasehold.lock.inmemory.InMemoryLockBackend;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * The listeners' event queue is bounded: a listener that blocks costs bounded memory, the engine
 * never waits for it, and what it misses it misses whole (a lease's start and end together).
 */
class ListenerQueueBoundTest {

    /** The bound LockEventListener documents. */
    private static final int BOUND = 10_000;

    private static final int PAIRS = 30_000;

    @Test
    void shouldDropWholeLeasesPastTheBoundWhileAListenerBlocksAndNeverHoldUpTheEngine() throws Exception {
        BlockingListener listener = new BlockingListener();
        try (InMemoryLockBackend redis = new InMemoryLockBackend();
                LockClient client =
                        LockClient.builder(redis.newNode()).listener(listener).build()) {
            DistributedLock lock = client.lock(
                    "orders:42", LockOptions.builder().autoRenew(false).build());
            // Given a listener stuck in its first event
            lock.acquire(Duration.ZERO).release();
            assertTrue(listener.entered.await(10, TimeUnit.SECONDS), "the listener got its first event");
            // When the engine produces far more events than the bound (30,000 leases: 60,000 events)
            long start = System.nanoTime();
            for (int i = 0; i < PAIRS; i++) {
                lock.acquire(Duration.ZERO).release();
            }
            // Then locking never waited for the listener
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            assertTrue(took.compareTo(Duration.ofSeconds(60)) < 0, "30,000 acquire/release pairs took " + took);
            // And once it is unstuck, it hears about at most the bound of them, in whole leases
            listener.unblock.countDown();
            awaitUntil(
                    () -> "every lease heard whole or counted as dropped: " + listener,
                    () -> listener.acquired.get() + listener.dropped.get() == PAIRS + 1
                            && listener.released.get() == listener.acquired.get());
            int acquired = listener.acquired.get();
            assertTrue(acquired <= BOUND, "onAcquired heard " + acquired + " times, past the bound of " + BOUND);
            assertEquals(acquired, listener.released.get(), "every reported lease ended, and only those");
            // And it was told how many it missed, once the queue had room again
            assertTrue(listener.dropped.get() >= PAIRS + 1 - BOUND, "onEventsDropped counts: " + listener);
        }
    }

    private static void awaitUntil(Supplier<String> what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out waiting until " + what.get());
            }
            Thread.sleep(10);
        }
    }

    /** Blocks in its first event until the test lets it go; counts what it hears. */
    private static final class BlockingListener implements LockEventListener {
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch unblock = new CountDownLatch(1);
        final AtomicInteger acquired = new AtomicInteger();
        final AtomicInteger released = new AtomicInteger();
        final AtomicLong dropped = new AtomicLong();

        @Override
        public void onAcquired(String lockName, long fencingToken, Duration waited) {
            acquired.incrementAndGet();
            entered.countDown();
            try {
                unblock.await(60, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        @Override
        public void onReleased(String lockName, long fencingToken, Duration held) {
            released.incrementAndGet();
        }

        @Override
        public void onEventsDropped(long count) {
            dropped.addAndGet(count);
        }

        @Override
        public String toString() {
            return "acquired " + acquired + ", released " + released + ", dropped " + dropped;
        }
    }
}
