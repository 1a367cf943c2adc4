package io.leasehold.lock.testkit;

import static io.leasehold.lock.testkit.ScriptCaller.fenceKey;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.inmemory.InMemoryLockBackend;
import io.leasehold.lock.inmemory.ManualClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The fencing counter on a manual clock: a hybrid logical clock, {@code max(last token + 1, TIME in
 * µs)}, monotonic across every loss and rollback, even while the clock stands still.
 */
class InMemoryFencingCounterTest {

    private static final Instant START = Instant.ofEpochSecond(1_700_000_000L, 123_456_789L);
    private static final long START_MICROS = 1_700_000_000_123_456L;

    @Test
    void shouldTakeTheClockMicrosAsTheTokenWhenTheCounterIsMissing() {
        try (InMemoryLockBackend redis = InMemoryLockBackend.withClock(new ManualClock(START))) {
            long token = new ScriptCaller(redis).acquireToken("orders", "owner-a", 30_000);

            assertEquals(START_MICROS, token);
            assertEquals(Optional.of(Long.toString(START_MICROS)), redis.get(fenceKey("orders")));
        }
    }

    @Test
    void shouldIssueATokenAboveTheHighestWhenTheCounterIsRolledBackWhileTheClockStandsStill() {
        try (InMemoryLockBackend redis = InMemoryLockBackend.withClock(new ManualClock(START))) {
            ScriptCaller scripts = new ScriptCaller(redis);
            long first = scripts.acquireToken("orders", "owner-a", 30_000);
            scripts.release("orders", "owner-a");
            scripts.acquireToken("orders", "owner-b", 30_000);
            scripts.release("orders", "owner-b");
            long highest = scripts.acquireToken("orders", "owner-c", 30_000);
            scripts.release("orders", "owner-c");

            redis.writeKey(fenceKey("orders"), Long.toString(first));
            long next = scripts.acquireToken("orders", "owner-d", 30_000);

            // The emulated TIME stands in for the microseconds a real server spends per acquisition.
            assertEquals(highest + 1, next);
        }
    }

    @Test
    void shouldTakeTheClockWhenItHasMovedPastARolledBackCounter() {
        ManualClock clock = new ManualClock(START);
        try (InMemoryLockBackend redis = InMemoryLockBackend.withClock(clock)) {
            ScriptCaller scripts = new ScriptCaller(redis);
            scripts.acquireToken("orders", "owner-a", 30_000);
            scripts.release("orders", "owner-a");
            redis.writeKey(fenceKey("orders"), "1");
            clock.advance(Duration.ofSeconds(2));

            long token = scripts.acquireToken("orders", "owner-b", 30_000);

            assertEquals(START_MICROS + 2_000_000, token);
        }
    }

    @Test
    void shouldIssueIncreasingTokensToSuccessiveHolders() {
        try (InMemoryLockBackend redis = InMemoryLockBackend.withClock(new ManualClock(START))) {
            ScriptCaller scripts = new ScriptCaller(redis);
            long first = scripts.acquireToken("orders", "owner-a", 30_000);
            scripts.release("orders", "owner-a");

            long second = scripts.acquireToken("orders", "owner-b", 30_000);

            assertEquals(first + 1, second);
        }
    }

    @Test
    void shouldReseedAboveEarlierTokensAfterFlushAll() {
        ManualClock clock = new ManualClock(START);
        try (InMemoryLockBackend redis = InMemoryLockBackend.withClock(clock)) {
            ScriptCaller scripts = new ScriptCaller(redis);
            long before = scripts.acquireToken("orders", "owner-a", 30_000);
            clock.advance(Duration.ofMillis(1));

            redis.flushAll();
            long after = scripts.acquireToken("orders", "owner-b", 30_000);

            assertEquals(START_MICROS + 1_000, after, "the clock, as no counter is left");
            assertTrue(after > before);
        }
    }

    @Test
    void shouldKeepTokensIncreasingAcrossFlushAllWhileManualClockStandsStill() {
        try (InMemoryLockBackend redis = InMemoryLockBackend.withClock(new ManualClock(START))) {
            ScriptCaller scripts = new ScriptCaller(redis);
            long previous = 0;
            for (int i = 0; i < 20; i++) {
                long token = scripts.acquireToken("orders", "owner-" + i, 30_000);
                long earlier = previous;
                assertTrue(token > earlier, () -> "token " + token + " is not above the earlier " + earlier);
                previous = token;
                redis.flushAll();
            }
        }
    }

    @Test
    void shouldReseedAboveEarlierTokensWhenCounterExpiresIdle() {
        ManualClock clock = new ManualClock(START);
        try (InMemoryLockBackend redis = InMemoryLockBackend.withClock(clock)) {
            ScriptCaller scripts = new ScriptCaller(redis);
            long before = scripts.acquireToken("orders", "owner-a", 1_000);
            scripts.release("orders", "owner-a");

            clock.advance(Duration.ofMillis(ScriptCaller.COUNTER_TTL_MS));
            assertFalse(redis.exists(fenceKey("orders")), "the idle counter has expired");
            long after = scripts.acquireToken("orders", "owner-b", 1_000);

            assertEquals(START_MICROS + ScriptCaller.COUNTER_TTL_MS * 1_000, after);
            assertTrue(after > before);
        }
    }

    @Test
    void shouldKeepTokensStrictlyIncreasingAcrossFlushesOnTheSystemClock() {
        try (InMemoryLockBackend redis = new InMemoryLockBackend()) {
            ScriptCaller scripts = new ScriptCaller(redis);
            long previous = 0;
            for (int i = 0; i < 200; i++) {
                String owner = "owner-" + i;
                long token = scripts.acquireToken("orders", owner, 30_000);
                assertTrue(token > previous, () -> "token " + token + " is not above its predecessor");
                previous = token;
                if (i % 3 == 0) {
                    redis.flushAll();
                } else {
                    scripts.release("orders", owner);
                }
            }
        }
    }

    @Test
    void shouldNotTakeATokenWhenTheLockIsHeld() {
        try (InMemoryLockBackend redis = InMemoryLockBackend.withClock(new ManualClock(START))) {
            ScriptCaller scripts = new ScriptCaller(redis);
            scripts.acquireToken("orders", "owner-a", 30_000);

            List<?> refused = scripts.acquire("orders", "owner-b", 30_000);

            assertEquals(0L, refused.get(0));
            assertEquals(Optional.of(Long.toString(START_MICROS)), redis.get(fenceKey("orders")));
        }
    }
}
