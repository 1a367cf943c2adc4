package io.leasehold.lock.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.LockClient;
import io.leasehold.lock.inmemory.InMemoryLockBackend;
import io.leasehold.lock.spi.LockKeys;
import io.leasehold.lock.testkit.driver.Eventually;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * {@code close()} while a waiter's acquire attempt is still on its way to Redis: Redis runs it
 * whatever the client does meanwhile, so close() must undo it after it landed, not before (a
 * clean-up that overtakes the attempt finds nothing, and the attempt then holds the lock for a lease
 * time, with nobody left to release it).
 */
class CloseWithAttemptInFlightTest {

    @Test
    void shouldUndoAnAttemptThatLandsAfterCloseBeganBeforeCloseReturns() throws Exception {
        String name = "orders:42";
        try (InMemoryLockBackend redis = new InMemoryLockBackend()) {
            // What is on the wire reaches Redis however the client ends: a node of its own, left open
            AcquiresOnTheWire backend = new AcquiresOnTheWire(redis.newNode(), redis.newNode());
            backend.holdAcquires = true;
            LockClient client = LockClient.builder(backend)
                    .closeTimeout(Duration.ofSeconds(5))
                    .build();
            // Given a waiter whose first attempt is on its way
            CompletableFuture<?> waiting = client.lock(name).acquireAsync(Duration.ofSeconds(30));
            Eventually.until("the attempt was sent", () -> backend.held.size() == 1);
            // When the client closes, and the attempt lands (taking the free lock) while close() runs
            Thread closer = new Thread(client::close, "closer");
            closer.start();
            closer.join(1_000); // (a close() that did not wait for the attempt has returned by now)
            backend.land();
            closer.join(10_000);
            assertFalse(closer.isAlive(), "close() returned");
            // Then close() undid it: nothing left in Redis
            assertTrue(waiting.isDone(), "the waiter's acquisition ended");
            assertFalse(
                    redis.exists(LockKeys.lockKey(LockClient.Builder.DEFAULT_KEY_PREFIX, name)),
                    "nothing left in Redis: "
                            + redis.get(LockKeys.lockKey(LockClient.Builder.DEFAULT_KEY_PREFIX, name)));
            assertEquals(1, backend.landed.get(), "the attempt landed once");
        }
    }
}
