package io.leasehold.lock.testkit;

import static io.leasehold.lock.testkit.ScriptCaller.lockKey;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** TTLs run on the backend's clock, and a moved clock is seen by the very next call. */
class InMemoryExpiryTest extends InMemoryScriptTestBase {

    @Test
    void shouldKeepTheLockUntilItsWholeTtlHasPassed() {
        scripts.acquire("orders", "owner-a", 30_000);

        clock.advance(Duration.ofMillis(29_999));

        assertTrue(redis.exists(lockKey("orders")));
        assertEquals(1L, redis.pttl(lockKey("orders")));
        assertEquals(0L, scripts.acquire("orders", "owner-b", 30_000).get(0));
    }

    @Test
    void shouldFreeTheLockForAnotherOwnerOnceTheTtlHasPassed() {
        long first = scripts.acquireToken("orders", "owner-a", 30_000);

        clock.advance(Duration.ofSeconds(30));

        assertFalse(redis.exists(lockKey("orders")));
        assertTrue(scripts.acquireToken("orders", "owner-b", 30_000) > first);
    }

    @Test
    void shouldShowExpiryToEveryScriptAtOnce() {
        scripts.acquire("orders", "owner-a", 30_000);

        clock.advance(Duration.ofSeconds(31));

        assertEquals(List.of(), scripts.inspect("orders"));
        assertEquals(List.of(0L), scripts.renew(List.of("orders"), List.of("owner-a", "30000")));
        assertEquals(0L, scripts.extend("orders", "owner-a", 30_000));
        assertEquals(0L, scripts.release("orders", "owner-a"));
        assertEquals(0L, scripts.forceRelease("orders"));
    }

    @Test
    void shouldLeaveOnlyLiveKeysInTheKeyListing() {
        scripts.acquire("short", "owner-a", 1_000);
        scripts.acquire("long", "owner-a", 60_000);

        clock.advance(Duration.ofSeconds(2));

        assertEquals(
                Set.of(lockKey("long"), ScriptCaller.fenceKey("short"), ScriptCaller.fenceKey("long")), redis.keys());
    }

    @Test
    void shouldRejectMovingTheManualClockBackwards() {
        IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(
                IllegalArgumentException.class, () -> clock.advance(Duration.ofMillis(-1)));

        assertEquals(
                "amount must not be negative (a ManualClock only moves forward), but was PT-0.001S", e.getMessage());
    }
}
