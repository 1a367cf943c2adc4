package io.leasehold.lock.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.DistributedLock;
import io.leasehold.lock.LeaseLostException;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockOptions;
import io.leasehold.lock.inmemory.InMemoryLockBackend;
import io.leasehold.lock.inmemory.ManualClock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The parts of Redisson's {@code RedissonLockTest} that exercise {@code isHeldByCurrentThread} and
 * {@code getHoldCount}, ported onto our API and run on the in-memory backend. (The same behaviour runs
 * on every driver as the conformance scenarios of {@code HoldQueryScenarios.kt}.)
 *
 * <p>The translation: Redisson's {@code lock()} ... {@code unlock()} on one thread is our blocking
 * {@code runLocked} body, and a second {@code lock()} on the same thread is a nested {@code runLocked}:
 * our reentrancy is by blocking body on a thread (G10); a lease from {@code acquire()} is an explicit
 * handle bound to no thread, and does not count. Redisson's {@code unlock()} after the lease expired
 * throws {@code IllegalMonitorStateException}; ours ends the body with {@link LeaseLostException}.
 */
class RedissonLockHoldQueriesPortTest {

    private static final String NAME = "lock";
    private static final Duration WAIT = Duration.ofSeconds(10);

    private final InMemoryLockBackend redis = new InMemoryLockBackend();
    private final LockClient redisson = LockClient.create(redis.newNode());
    private final ExecutorService otherThreads = Executors.newCachedThreadPool();

    @AfterEach
    void close() {
        otherThreads.shutdownNow();
        redisson.close();
        redis.close();
    }

    /** Port of {@code testIsHeldByCurrentThread}. */
    @Test
    void shouldBeHeldByTheCurrentThreadOnlyWhileItsBodyRuns() {
        DistributedLock lock = redisson.lock(NAME);
        assertFalse(lock.isHeldByCurrentThread());
        lock.runLocked(WAIT, () -> assertTrue(lock.isHeldByCurrentThread()));
        assertFalse(lock.isHeldByCurrentThread());
    }

    /** Port of {@code testIsHeldByCurrentThreadOtherThread}. */
    @Test
    void shouldNotBeHeldByAnotherThreadWhileHeldNorAfterTheRelease() {
        DistributedLock lock = redisson.lock(NAME);
        lock.runLocked(
                WAIT, () -> assertFalse(onOtherThread(() -> redisson.lock(NAME).isHeldByCurrentThread())));
        assertFalse(onOtherThread(() -> redisson.lock(NAME).isHeldByCurrentThread()));
    }

    /** Port of {@code testGetHoldCount}. */
    @Test
    void shouldCountTheNestedBodiesOfTheCurrentThread() {
        DistributedLock lock = redisson.lock(NAME);
        assertEquals(0, lock.holdCount());
        lock.runLocked(WAIT, () -> assertEquals(1, lock.holdCount()));
        assertEquals(0, lock.holdCount());

        lock.runLocked(WAIT, () -> {
            lock.runLocked(WAIT, () -> assertEquals(2, lock.holdCount()));
            assertEquals(1, lock.holdCount());
        });
        assertEquals(0, lock.holdCount());
    }

    /** Port of {@code testReentrancy}: a second tryLock on the thread succeeds, another thread's fails. */
    @Test
    void shouldReenterOnTheSameThreadButRefuseAnotherThread() {
        DistributedLock lock = redisson.lock("lock1");
        lock.runLocked(Duration.ZERO, () -> lock.runLocked(Duration.ZERO, () -> assertEquals(2, lock.holdCount())));
        lock.runLocked(Duration.ZERO, () -> {
            Optional<?> otherThreadsTry =
                    onOtherThread(() -> redisson.lock("lock1").tryAcquire());
            assertTrue(otherThreadsTry.isEmpty(), "tryAcquire() on another thread while held: " + otherThreadsTry);
        });
    }

    /** Port of {@code testIsLockedOtherThread}, beside the hold queries: locked for all, held for one. */
    @Test
    void shouldBeLockedForEveryThreadButHeldOnlyByTheHoldingOne() {
        DistributedLock lock = redisson.lock(NAME);
        lock.runLocked(WAIT, () -> {
            assertTrue(onOtherThread(() -> redisson.lock(NAME).isLocked()));
            assertFalse(onOtherThread(() -> redisson.lock(NAME).isHeldByCurrentThread()));
            assertTrue(lock.isLocked() && lock.isHeldByCurrentThread());
        });
        assertFalse(onOtherThread(() -> redisson.lock(NAME).isLocked()));
    }

    /** Port of {@code testExpire}: a lease that ran out is not held, and ending its body says so. */
    @Test
    void shouldNotBeHeldOnceTheLeaseExpired() {
        ManualClock clock = new ManualClock();
        try (InMemoryLockBackend frozen = InMemoryLockBackend.withClock(clock);
                LockClient holder =
                        LockClient.builder(frozen.newNode()).ticker(clock).build();
                LockClient other =
                        LockClient.builder(frozen.newNode()).ticker(clock).build()) {
            LockOptions twoSeconds = LockOptions.builder()
                    .leaseTime(Duration.ofSeconds(2))
                    .autoRenew(false)
                    .build();
            DistributedLock lock = holder.lock(NAME, twoSeconds);
            boolean[] heldAfterExpiry = {true};
            int[] countAfterExpiry = {-1};
            assertThrows(
                    LeaseLostException.class,
                    () -> lock.runLocked(WAIT, () -> {
                        clock.advance(Duration.ofSeconds(2));
                        heldAfterExpiry[0] = lock.isHeldByCurrentThread();
                        countAfterExpiry[0] = lock.holdCount();
                    }));
            assertFalse(heldAfterExpiry[0], "isHeldByCurrentThread() after the lease expired");
            assertEquals(0, countAfterExpiry[0], "holdCount() after the lease expired");
            assertTrue(other.lock(NAME).tryAcquire().isPresent(), "another client takes the expired lock");
        }
    }

    /** Runs {@code query} on another thread and returns its answer (bounded: fails the test after 10 s). */
    private <T> T onOtherThread(Callable<T> query) {
        try {
            return otherThreads.submit(query).get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError("the query on another thread failed", e);
        }
    }
}
