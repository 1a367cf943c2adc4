package io.leasehold.lock.internal;

import static org.junit.jupiter.api.Assertions.fail;

import io.leasehold.lock.LockClient;
import io.leasehold.lock.inmemory.InMemoryLockBackend;
import io.leasehold.lock.inmemory.ManualClock;
import io.leasehold.lock.spi.LockKeys;
import io.leasehold.lock.testkit.driver.Eventually;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;

/**
 * What the handoff attacks share: an in-memory store on a {@link ManualClock}, one node behind a
 * {@link HandoffGateBackend} (the client under attack) and helpers to move the clock and to wait for
 * a waiter to have queued.
 */
abstract class HandoffAttackSupport {

    static final String PREFIX = LockClient.Builder.DEFAULT_KEY_PREFIX;

    final ManualClock clock = new ManualClock();
    final InMemoryLockBackend redis = InMemoryLockBackend.withClock(clock);
    final HandoffGateBackend gate = new HandoffGateBackend(redis.newNode());
    final HandoffEvents events = new HandoffEvents();
    LockClient client;
    LockClient other;

    @AfterEach
    void closeClientsAndStore() {
        if (client != null) {
            client.close();
        }
        if (other != null) {
            other.close();
        }
        redis.close();
    }

    /** The client under attack: on the gate, the manual clock and {@code commandTimeout}. */
    LockClient client(Duration commandTimeout) {
        client = LockClient.builder(gate)
                .ticker(clock)
                .commandTimeout(commandTimeout)
                .listener(events)
                .build();
        return client;
    }

    /** Another application node on the same store and clock. */
    LockClient other() {
        other = LockClient.builder(redis.newNode()).ticker(clock).build();
        return other;
    }

    static String lockKey(String name) {
        return LockKeys.lockKey(PREFIX, name);
    }

    static String queueKey(String name) {
        return LockKeys.queueKey(PREFIX, name);
    }

    static String channel(String name) {
        return LockKeys.releaseChannel(PREFIX, name);
    }

    /** The owner part of the lock's value in the store, or "-" when the lock is free. */
    String holderOwner(String name) {
        return redis.get(lockKey(name)).map(v -> v.substring(0, v.indexOf(':'))).orElse("-");
    }

    /** Waits until the client has made {@code plainAcquires} attempts and subscribed the name's channel. */
    void awaitQueued(String name, int plainAcquires) {
        Eventually.until(
                "the waiter tried, was contended and subscribed; calls " + gate.calls,
                () -> gate.plainAcquires.get() >= plainAcquires && redis.subscriberCount(channel(name)) >= 1);
    }

    /**
     * Moves the manual clock on in {@code step}s (letting the engine's timer run) until {@code done},
     * at most {@code max}; after the last step it waits generously (real time) for {@code done}.
     */
    void advanceUntil(String what, Duration step, Duration max, BooleanSupplier done) throws InterruptedException {
        Duration moved = Duration.ZERO;
        while (!done.getAsBoolean() && moved.compareTo(max) < 0) {
            clock.advance(step);
            moved = moved.plus(step);
            awaitRealTime(done, 100); // the engine's timer checks a manual ticker every millisecond
        }
        awaitRealTime(done, 10_000);
        if (!done.getAsBoolean()) {
            fail("not reached after moving the clock " + moved + ": " + what + "; calls " + gate.calls);
        }
    }

    private static void awaitRealTime(BooleanSupplier done, long millis) throws InterruptedException {
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (!done.getAsBoolean() && System.nanoTime() - until < 0) {
            Thread.sleep(2);
        }
    }

    /** Moves the manual clock on by {@code total} in {@code step}s, giving the engine's timer a moment after each. */
    void advanceBy(Duration total, Duration step) throws InterruptedException {
        for (Duration moved = Duration.ZERO; moved.compareTo(total) < 0; moved = moved.plus(step)) {
            clock.advance(step);
            Thread.sleep(
                    20); // the timer runs what became due within a millisecond or so; nothing asserts on this pause
        }
    }
}
