package io.leasehold.lock.testkit;

import static io.leasehold.lock.testkit.ScriptCaller.fenceKey;
import static io.leasehold.lock.testkit.ScriptCaller.lockKey;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The acquire script: take a free lock, re-acquire idempotently, refuse a second owner. */
class InMemoryAcquireScriptTest extends InMemoryScriptTestBase {

    private static final Instant START = Instant.ofEpochSecond(1_700_000_000L, 123_456_789L);

    InMemoryAcquireScriptTest() {
        super(START);
    }

    @Test
    void shouldAcquireFreeLockWithTokenAndFullLease() {
        List<?> reply = scripts.acquire("orders", "owner-a", 30_000);

        assertEquals(List.of(1L, "1700000000123456", 30_000L), reply, "the token is the clock in µs");
        assertEquals(Optional.of("owner-a:1700000000123456"), redis.get(lockKey("orders")));
        assertEquals(30_000L, redis.pttl(lockKey("orders")));
    }

    @Test
    void shouldReplyWithLongStatusStringTokenAndLongLease() {
        List<?> reply = scripts.acquire("orders", "owner-a", 30_000);

        assertEquals(Long.class, reply.get(0).getClass());
        assertEquals(String.class, reply.get(1).getClass());
        assertEquals(Long.class, reply.get(2).getClass());
    }

    @Test
    void shouldReturnSameTokenAndResetLeaseWhenSameOwnerAcquiresAgain() {
        String token = (String) scripts.acquire("orders", "owner-a", 30_000).get(1);
        clock.advance(Duration.ofSeconds(10));

        List<?> again = scripts.acquire("orders", "owner-a", 20_000);

        assertEquals(List.of(1L, token, 20_000L), again);
        assertEquals(20_000L, redis.pttl(lockKey("orders")));
        assertEquals(Optional.of(token), redis.get(fenceKey("orders")), "a retried acquire takes no new token");
    }

    @Test
    void shouldRefuseAnotherOwnerWithHolderTokenAndRemainingTtl() {
        String token = (String) scripts.acquire("orders", "owner-a", 30_000).get(1);
        clock.advance(Duration.ofSeconds(5));

        List<?> contended = scripts.acquire("orders", "owner-b", 30_000);

        assertEquals(List.of(0L, token, 25_000L, 0L), contended);
        assertEquals(Optional.of("owner-a:" + token), redis.get(lockKey("orders")), "the holder keeps the lock");
    }

    @Test
    void shouldGiveTheCounterItsIdleTtlOnEveryAcquisition() {
        scripts.acquire("orders", "owner-a", 30_000);
        clock.advance(Duration.ofMinutes(10));
        scripts.release("orders", "owner-a");

        scripts.acquire("orders", "owner-b", 30_000);

        assertEquals(ScriptCaller.COUNTER_TTL_MS, redis.pttl(fenceKey("orders")));
    }

    @Test
    void shouldLockIndependentNamesIndependently() {
        scripts.acquire("orders", "owner-a", 30_000);
        clock.advance(Duration.ofMillis(1));

        List<?> other = scripts.acquire("invoices", "owner-b", 30_000);

        assertEquals(List.of(1L, "1700000000124456", 30_000L), other, "its own counter: the clock in µs");
        assertEquals(Optional.of("owner-a:1700000000123456"), redis.get(lockKey("orders")));
    }
}
