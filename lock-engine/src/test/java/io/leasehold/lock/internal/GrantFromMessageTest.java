package io.leasehold.lock.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.DistributedLock;
import io.leasehold.lock.Lease;
import io.leasehold.lock.LeaseLoss;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockOptions;
import io.leasehold.lock.inmemory.InMemoryLockBackend;
import io.leasehold.lock.inmemory.ManualClock;
import io.leasehold.lock.spi.LockBackend;
import io.leasehold.lock.spi.LuaScript;
import io.leasehold.lock.spi.ScriptNames;
import io.leasehold.lock.testkit.CountingLockBackend;
import io.leasehold.lock.testkit.ForwardingLockBackend;
import io.leasehold.lock.testkit.driver.Eventually;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A waiter of another client takes the lock a release granted it from the grant's message, without
 * asking again, when the message proves that the grant ran after its last contended attempt was
 * sent (see {@code AcquisitionMachine#grantNamesThisWaiter}); its lease starts with the grant
 * window's validity, counted from that send, and its watchdog lifts it to the lease time. On a
 * hand-moved clock that drives both the store's TTLs and the engines, so the validity and the TTL
 * are compared exactly.
 */
class GrantFromMessageTest {

    private static final String NAME = "orders:42";
    private static final String KEY = "leasehold:{" + NAME + "}";
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final long BOUND_SECONDS = 10;

    private ManualClock clock;
    private InMemoryLockBackend redis;
    private LockClient holderClient;
    private CountingLockBackend waiterCalls;
    private volatile boolean renewalsFail;
    private LockClient waiterClient;

    @BeforeEach
    void start() {
        clock = new ManualClock();
        redis = InMemoryLockBackend.withClock(clock);
        holderClient = LockClient.builder(redis.newNode()).ticker(clock).build();
        LockBackend failingRenewals = new ForwardingLockBackend(redis.newNode()) {
            @Override
            public CompletableFuture<Object> eval(LuaScript script, List<String> keys, List<String> args) {
                if (renewalsFail && script.name().equals(ScriptNames.RENEW)) {
                    return CompletableFuture.failedFuture(new IOException("renewals fail (test)"));
                }
                return super.eval(script, keys, args);
            }
        };
        waiterCalls = new CountingLockBackend(failingRenewals);
        waiterClient = LockClient.builder(waiterCalls).ticker(clock).build();
    }

    @AfterEach
    void stop() {
        waiterClient.close();
        holderClient.close();
        redis.close();
    }

    private static LockOptions lease(Duration leaseTime, boolean autoRenew) {
        return LockOptions.builder().leaseTime(leaseTime).autoRenew(autoRenew).build();
    }

    /**
     * The holder holds {@code lock(holderClient, NAME)}; the waiter's acquisition of
     * {@code lock(waiterClient, NAME)} is contended (its attempt took a place in Redis's queue),
     * then the holder releases: returns the waiter's lease.
     */
    private Lease handOver(BiFunction<LockClient, LockOptions, DistributedLock> lock, LockOptions options)
            throws Exception {
        Lease held = lock.apply(holderClient, options).acquire(Duration.ZERO);
        CompletableFuture<Lease> waiting = lock.apply(waiterClient, options).acquireAsync(WAIT);
        Eventually.until(
                "the waiter took its place in Redis's queue",
                () -> redis.sortedSetMembers(KEY + ":queue").size() == 1);
        assertFalse(waiting.isDone(), "contended");
        Eventually.until("the waiter's subscription is active", () -> redis.subscriberCount(KEY + ":released") == 1);
        assertTrue(held.release(), "the holder's release");
        Lease lease = waiting.get(BOUND_SECONDS, TimeUnit.SECONDS);
        assertTrue(lease.fencingToken() > held.fencingToken(), "a fresh token above the holder's");
        return lease;
    }

    private static DistributedLock plain(LockClient client, LockOptions options) {
        return client.lock(NAME, options);
    }

    private static DistributedLock fair(LockClient client, LockOptions options) {
        return client.fairLock(NAME, options);
    }

    @Test
    void shouldTakeAGrantFromItsMessageWithoutAskingAgain() throws Exception {
        Lease lease = handOver(GrantFromMessageTest::plain, lease(LEASE, true));

        assertEquals(redis.get(KEY).orElseThrow(), ownerOf(lease) + ":" + lease.fencingToken());
        long window = GrantOrder.WAITER_LEASE_MS;
        // (an attempt of the same owner would have set the lease time: the clock stands still)
        assertEquals(window, redis.pttl(KEY), "the grant's TTL, the grant window: no attempt after the grant");
        assertTrue(
                lease.remaining().toMillis() <= window - 2 - window / 100,
                "counted from the contended attempt's send, less the drift: " + lease.remaining());
        lease.release();
    }

    @Test
    void shouldTakeAFairLocksGrantFromItsMessageWithoutAskingAgain() throws Exception {
        Lease lease = handOver(GrantFromMessageTest::fair, lease(LEASE, true));

        assertEquals(GrantOrder.WAITER_LEASE_MS, redis.pttl(KEY), "the grant's TTL: no attempt after the grant");
        lease.release();
    }

    @Test
    void shouldLiftALeaseTakenFromAGrantToItsLeaseTimeWithinAThirdOfTheWindow() throws Exception {
        Lease lease = handOver(GrantFromMessageTest::plain, lease(LEASE, true));

        clock.advance(Duration.ofMillis(GrantOrder.WAITER_LEASE_MS / 3));
        Eventually.until("the watchdog renewed it", () -> redis.pttl(KEY) == LEASE.toMillis());
        Eventually.until(
                "its validity is the lease time's", () -> lease.remaining().compareTo(Duration.ofSeconds(29)) > 0);
        assertFalse(lease.lost().isDone());
        lease.release();
    }

    @Test
    void shouldDeclareALeaseTakenFromAGrantLostBeforeTheGrantsTtlRunsOutWhenItCannotBeRenewed() throws Exception {
        renewalsFail = true;
        Lease lease = handOver(GrantFromMessageTest::plain, lease(LEASE, true));

        long window = GrantOrder.WAITER_LEASE_MS;
        clock.advance(Duration.ofMillis(window / 3 + 10));
        Eventually.until("a renewal was tried", () -> waiterCalls.count(ScriptNames.RENEW) >= 1);
        long ttlLeft = redis.pttl(KEY);
        long beforeTheTtlEnds = window - 2 - window / 100 - (window / 3 + 10); // validity: the window less the drift
        assertTrue(
                beforeTheTtlEnds < ttlLeft,
                "the clock stops " + beforeTheTtlEnds + " ms on, short of the TTL's " + ttlLeft);
        clock.advance(Duration.ofMillis(beforeTheTtlEnds - 1));
        LeaseLoss loss = lease.lost().get(BOUND_SECONDS, TimeUnit.SECONDS);
        assertEquals(
                LeaseLoss.Reason.BACKEND_UNAVAILABLE, loss.reason(), "told while Redis still holds the grant (G4)");
    }

    @Test
    void shouldAskForTheGrantWhenItsLeaseIsNotRenewed() throws Exception {
        Lease lease = handOver(GrantFromMessageTest::plain, lease(LEASE, false));

        assertEquals(LEASE.toMillis(), redis.pttl(KEY), "asked for its grant: the lease time is set now");
        assertTrue(lease.remaining().compareTo(Duration.ofSeconds(29)) > 0, "a whole lease: " + lease.remaining());
        lease.release();
    }

    @Test
    void shouldAskForTheGrantWhenItsLeaseIsShorterThanTheGrantWindow() throws Exception {
        Duration shortLease = Duration.ofMillis(GrantOrder.WAITER_LEASE_MS - 500);
        Lease lease = handOver(GrantFromMessageTest::fair, lease(shortLease, true));

        assertEquals(shortLease.toMillis(), redis.pttl(KEY), "asked for its grant: Redis set the lease time");
        lease.release();
    }

    private static String ownerOf(Lease lease) {
        return ((DefaultLease) lease).owner;
    }
}
