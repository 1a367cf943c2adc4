package io.leasehold.lock.testkit;

import static io.leasehold.lock.testkit.ScriptCaller.lockKey;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The renew, extend and inspect scripts. */
class InMemoryLeaseScriptsTest extends InMemoryScriptTestBase {

    @Test
    void shouldRenewABatchAnsweringOneZeroMinusOnePerLease() {
        scripts.acquire("mine", "owner-a", 30_000);
        scripts.acquire("theirs", "owner-b", 30_000);
        clock.advance(Duration.ofSeconds(10));

        Object reply = scripts.renew(
                List.of("mine", "absent", "theirs"),
                List.of("owner-a", "40000", "owner-a", "40000", "owner-a", "40000"));

        assertEquals(List.of(1L, 0L, -1L), reply);
        assertEquals(40_000L, redis.pttl(lockKey("mine")), "renewed from now");
        assertEquals(20_000L, redis.pttl(lockKey("theirs")), "another owner's lease is untouched");
    }

    @Test
    void shouldRenewEachLeaseWithItsOwnLeaseTime() {
        scripts.acquire("a", "owner-a", 30_000);
        scripts.acquire("b", "owner-b", 30_000);

        Object reply = scripts.renew(List.of("a", "b"), List.of("owner-a", "5000", "owner-b", "7000"));

        assertEquals(List.of(1L, 1L), reply);
        assertEquals(5_000L, redis.pttl(lockKey("a")));
        assertEquals(7_000L, redis.pttl(lockKey("b")));
    }

    @Test
    void shouldAnswerAnEmptyBatchWithAnEmptyList() {
        assertEquals(List.of(), scripts.renew(List.of(), List.of()));
    }

    @Test
    void shouldExtendOwnLockToTheNewLeaseFromNow() {
        scripts.acquire("orders", "owner-a", 30_000);
        clock.advance(Duration.ofSeconds(20));

        assertEquals(1L, scripts.extend("orders", "owner-a", 60_000));

        assertEquals(60_000L, redis.pttl(lockKey("orders")));
    }

    @Test
    void shouldNotExtendAnAbsentLock() {
        assertEquals(0L, scripts.extend("orders", "owner-a", 60_000));
        assertEquals(-2L, redis.pttl(lockKey("orders")));
    }

    @Test
    void shouldNotExtendAnotherOwnersLock() {
        scripts.acquire("orders", "owner-a", 30_000);

        assertEquals(-1L, scripts.extend("orders", "owner-b", 60_000));

        assertEquals(30_000L, redis.pttl(lockKey("orders")));
    }

    @Test
    void shouldInspectHolderTokenAndRemainingTtlWithoutChangingThem() {
        String token = (String) scripts.acquire("orders", "owner-a", 30_000).get(1);
        clock.advance(Duration.ofMillis(1_234));

        assertEquals(List.of(token, 28_766L), scripts.inspect("orders"));
        assertEquals(28_766L, redis.pttl(lockKey("orders")));
    }

    @Test
    void shouldInspectAFreeLockAsAnEmptyList() {
        assertEquals(List.of(), scripts.inspect("orders"));
    }
}
