package io.leasehold.lock.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.DistributedLock;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockTimeoutException;
import io.leasehold.lock.inmemory.InMemoryLockBackend;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The parts of Curator's {@code TestInterProcessMutexBase} (run by {@code TestInterProcessMutex}) that
 * exercise {@code isAcquiredInThisProcess}, ported onto our API and run on the in-memory backend. (The
 * same behaviour runs on every driver as the conformance scenarios of {@code HoldQueryScenarios.kt}.)
 *
 * <p>The translation: Curator's {@code acquire()} ... {@code release()} on one thread is our blocking
 * {@code runLocked} body, a nested {@code acquire()} a nested {@code runLocked}. Curator asks whether
 * any thread of the process holds the mutex; our query is narrower, the current thread (by the
 * reentrancy rule, G10), so each check is asked on the thread it is about, and "someone holds it" is
 * {@link DistributedLock#isLocked()}. Two Curator clients are two {@link LockClient}s.
 */
class CuratorInterProcessMutexHoldQueriesPortTest {

    private static final String LOCK_PATH = "/locks/our-lock";
    private static final Duration WAIT = Duration.ofSeconds(10);

    private final InMemoryLockBackend zookeeper = new InMemoryLockBackend();
    private final LockClient client = LockClient.create(zookeeper.newNode());
    private final ExecutorService service = Executors.newCachedThreadPool();

    @AfterEach
    void close() {
        service.shutdownNow();
        client.close();
        zookeeper.close();
    }

    /** Port of {@code testReentrant}: foo, bar and snafu take the mutex three deep. */
    @Test
    void shouldStayHeldThroughThreeNestedCallsAndNotAfterTheOutermost() {
        DistributedLock mutex = client.lock(LOCK_PATH);
        foo(mutex, () -> {});
        assertFalse(mutex.isHeldByCurrentThread());
        assertEquals(0, mutex.holdCount());
    }

    /** Port of {@code testReentrant2Threads}: while the owner is two deep, another thread is refused. */
    @Test
    void shouldRefuseAnotherThreadWhileTheOwnerIsNested() {
        DistributedLock mutex = client.lock(LOCK_PATH);
        foo(mutex, () -> {
            // (in bar, two deep) another thread of this process does not hold it, tries, and is refused
            LockTimeoutException refused = CompletableFuture.supplyAsync(
                            () -> {
                                assertFalse(mutex.isHeldByCurrentThread(), "held by the other thread");
                                return assertThrows(
                                        LockTimeoutException.class,
                                        () -> mutex.runLocked(Duration.ofMillis(300), () -> {}));
                            },
                            service)
                    .join();
            assertTrue(refused.heldByThisClient() && !refused.heldByCaller(), refused.getMessage());
            assertTrue(mutex.isHeldByCurrentThread(), "the owner still holds it after the other thread gave up");
            assertEquals(2, mutex.holdCount());
        });
        assertFalse(mutex.isHeldByCurrentThread());
    }

    /** Port of {@code testReentrantSingleLock}: ten threads on one handle hold it one at a time. */
    @Test
    void shouldLetTenThreadsOfOneHandleHoldItOneAtATime() throws Exception {
        DistributedLock mutex = client.lock(LOCK_PATH);
        AtomicBoolean hasLock = new AtomicBoolean();
        CountDownLatch start = new CountDownLatch(1);
        List<CompletableFuture<Integer>> threads = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            threads.add(CompletableFuture.supplyAsync(
                    () -> {
                        awaitQuietly(start);
                        return locked(mutex, () -> {
                            assertTrue(hasLock.compareAndSet(false, true), "two threads hold it at once");
                            try {
                                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5)); // widen the window for overlap
                                return mutex.holdCount();
                            } finally {
                                hasLock.set(false);
                            }
                        });
                    },
                    service));
        }
        start.countDown();
        for (CompletableFuture<Integer> thread : threads) {
            assertEquals(1, thread.get(30, TimeUnit.SECONDS), "holdCount() in each thread's body");
        }
    }

    /** Port of {@code test2Clients}: one of two clients holds it, then the other. */
    @Test
    void shouldLetOneOfTwoClientsHoldItAtATimeAndTellEachThreadItsOwnAnswer() throws Exception {
        try (LockClient client2 = LockClient.create(zookeeper.newNode())) {
            DistributedLock mutexForClient1 = client.lock(LOCK_PATH);
            DistributedLock mutexForClient2 = client2.lock(LOCK_PATH);
            CountDownLatch acquiredByClient1 = new CountDownLatch(1);
            CountDownLatch releaseClient1 = new CountDownLatch(1);
            CompletableFuture<Void> holder1 = CompletableFuture.runAsync(
                    () -> mutexForClient1.runLocked(WAIT, () -> {
                        acquiredByClient1.countDown();
                        awaitQuietly(releaseClient1);
                    }),
                    service);
            assertTrue(acquiredByClient1.await(10, TimeUnit.SECONDS), "client 1 acquires");
            CompletableFuture<boolean[]> holder2 = CompletableFuture.supplyAsync(
                    () -> locked(mutexForClient2, () -> new boolean[] {
                        mutexForClient2.isHeldByCurrentThread(), mutexForClient1.isHeldByCurrentThread()
                    }),
                    service);

            // While client 1 holds it: locked for everyone, held by neither handle on this thread
            assertTrue(mutexForClient2.isLocked());
            assertFalse(mutexForClient1.isHeldByCurrentThread() || mutexForClient2.isHeldByCurrentThread());
            assertFalse(holder2.isDone(), "client 2 waits while client 1 holds it");

            releaseClient1.countDown();
            holder1.get(10, TimeUnit.SECONDS);
            boolean[] seenByClient2 = holder2.get(10, TimeUnit.SECONDS);
            assertTrue(seenByClient2[0], "client 2's thread holds it through client 2's handle");
            assertFalse(seenByClient2[1], "client 1's handle is another client's: not held by client 2's thread");
        }
    }

    private static void foo(DistributedLock mutex, Runnable inBar) {
        mutex.runLocked(WAIT, () -> {
            assertTrue(mutex.isHeldByCurrentThread());
            assertEquals(1, mutex.holdCount());
            bar(mutex, inBar);
            assertTrue(mutex.isHeldByCurrentThread());
            assertEquals(1, mutex.holdCount());
        });
    }

    private static void bar(DistributedLock mutex, Runnable inBar) {
        mutex.runLocked(WAIT, () -> {
            assertTrue(mutex.isHeldByCurrentThread());
            assertEquals(2, mutex.holdCount());
            inBar.run();
            snafu(mutex);
            assertTrue(mutex.isHeldByCurrentThread());
            assertEquals(2, mutex.holdCount());
        });
    }

    private static void snafu(DistributedLock mutex) {
        mutex.runLocked(WAIT, () -> {
            assertTrue(mutex.isHeldByCurrentThread());
            assertEquals(3, mutex.holdCount());
        });
    }

    /** {@code lock.callLocked(WAIT, body)} for a lambda that must not throw checked exceptions. */
    private static <T> T locked(DistributedLock lock, Callable<T> body) {
        try {
            return lock.callLocked(WAIT, body);
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new CompletionException(e);
        }
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            if (!latch.await(30, TimeUnit.SECONDS)) {
                throw new AssertionError("timed out waiting for the latch");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted waiting for the latch", e);
        }
    }
}
