package io.leasehold.lock.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.leasehold.lock.LockClient;
import io.leasehold.lock.inmemory.InMemoryLockBackend;
import java.time.Duration;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A {@code callLockedAsync} body runs on the callback executor, also when the lock is free and the
 * acquisition completes at once (the in-memory backend answers on the caller's thread): never inside
 * the call, on the caller's own thread.
 */
class CallLockedAsyncThreadTest {

    @Test
    void shouldRunEveryBodyOnTheCallbackExecutorEvenWhenTheAcquisitionCompletesAtOnce() throws Exception {
        try (InMemoryLockBackend redis = new InMemoryLockBackend();
                LockClient client = LockClient.create(redis.newNode())) {
            Set<String> bodyThreads = ConcurrentHashMap.newKeySet();
            for (int i = 0; i < 300; i++) {
                CompletableFuture<String> call = client.lock("orders:" + i).callLockedAsync(Duration.ZERO, lease -> {
                    bodyThreads.add(Thread.currentThread().getName());
                    return CompletableFuture.completedFuture("done");
                });
                assertEquals("done", call.get(10, TimeUnit.SECONDS));
            }

            Set<String> elsewhere = new TreeSet<>(bodyThreads);
            elsewhere.removeIf(name -> name.startsWith("leasehold-callback-"));
            assertEquals(Set.of(), elsewhere, "threads that ran a body outside the callback executor");
        }
    }
}
