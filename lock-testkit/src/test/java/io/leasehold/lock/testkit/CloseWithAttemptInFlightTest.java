package io.leasehold.lock.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.LockClient;
import io.leasehold.lock.spi.LockBackend;
import io.leasehold.lock.spi.LockKeys;
import io.leasehold.lock.spi.LuaScript;
import io.leasehold.lock.spi.ScriptNames;
import io.leasehold.lock.testkit.driver.Eventually;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
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
            AttemptsOnTheWire backend = new AttemptsOnTheWire(redis.newNode(), redis.newNode());
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

    /** Holds acquire calls until {@link #land()}, which runs them on the wire (a node that stays open). */
    private static final class AttemptsOnTheWire extends ForwardingLockBackend {
        final List<Runnable> held = new CopyOnWriteArrayList<>();
        final AtomicInteger landed = new AtomicInteger();
        private final LockBackend wire;

        AttemptsOnTheWire(LockBackend delegate, LockBackend wire) {
            super(delegate);
            this.wire = wire;
        }

        @Override
        public CompletableFuture<Object> eval(LuaScript script, List<String> keys, List<String> args) {
            if (!script.name().equals(ScriptNames.ACQUIRE)) {
                return super.eval(script, keys, args);
            }
            CompletableFuture<Object> reply = new CompletableFuture<>();
            held.add(() -> {
                landed.incrementAndGet();
                wire.eval(script, keys, args).whenComplete((value, error) -> {
                    if (error == null) {
                        reply.complete(value);
                    } else {
                        reply.completeExceptionally(error);
                    }
                });
            });
            return reply;
        }

        void land() {
            held.forEach(Runnable::run);
            held.clear();
        }
    }
}
