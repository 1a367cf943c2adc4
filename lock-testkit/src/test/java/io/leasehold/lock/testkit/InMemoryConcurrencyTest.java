package io.leasehold.lock.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.inmemory.InMemoryLockBackend;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Script executions are atomic under concurrent callers on many nodes. */
class InMemoryConcurrencyTest {

    private static final int THREADS = 8;
    private static final int ROUNDS = 500;

    /** Unguarded on purpose: only the lock keeps its read-modify-write exact. */
    private long counter;

    @Test
    void shouldGrantTheLockToOneCallerAtATime() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try (InMemoryLockBackend redis = new InMemoryLockBackend()) {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<Integer>> results = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                ScriptCaller scripts = new ScriptCaller(redis.newNode());
                String owner = "owner-" + t;
                results.add(pool.submit(() -> {
                    start.await();
                    int wins = 0;
                    for (int i = 0; i < ROUNDS; i++) {
                        if (scripts.acquire("counter", owner, 30_000).get(0).equals(1L)) {
                            long seen = counter;
                            Thread.yield();
                            counter = seen + 1;
                            wins++;
                            assertEquals(1L, scripts.release("counter", owner));
                        }
                    }
                    return wins;
                }));
            }
            start.countDown();
            int wins = 0;
            for (Future<Integer> result : results) {
                wins += result.get(60, TimeUnit.SECONDS);
            }
            assertTrue(wins > 0);
            assertEquals(wins, counter, "two callers held the lock at once");
        } finally {
            pool.shutdownNow();
        }
    }
}
