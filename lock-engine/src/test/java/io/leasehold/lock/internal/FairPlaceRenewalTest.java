package io.leasehold.lock.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockOptions;
import io.leasehold.lock.inmemory.InMemoryLockBackend;
import io.leasehold.lock.inmemory.ManualClock;
import io.leasehold.lock.spi.LuaScript;
import io.leasehold.lock.spi.ScriptNames;
import io.leasehold.lock.testkit.CountingLockBackend;
import io.leasehold.lock.testkit.ForwardingLockBackend;
import io.leasehold.lock.testkit.driver.Eventually;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A fair waiter's place in Redis's wait queue is kept alive by the watchdog's batched renew calls
 * (renew.lua's places, see {@link WaiterPlace}), not by acquires of its own: any number of waiters of
 * a client cost a share of one call per {@link GrantOrder#WAITER_RENEW_MS}, and a waiter asks Redis
 * only when a renewal finds its place gone or the lock free, or fails. On a hand-moved clock that
 * drives both the store's TTLs and the engines.
 */
class FairPlaceRenewalTest {

    private static final String NAME = "orders:42";
    private static final String KEY = "leasehold:{" + NAME + "}";
    private static final String QUEUE = KEY + ":queue";
    private static final String WAITERS = KEY + ":waiters";
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final LockOptions HELD_LONG = LockOptions.builder()
            .leaseTime(Duration.ofSeconds(60))
            .autoRenew(false)
            .build();
    private static final Duration PERIOD = Duration.ofMillis(GrantOrder.WAITER_RENEW_MS);

    private ManualClock clock;
    private InMemoryLockBackend redis;
    private LockClient holderClient;
    private CountingLockBackend waiterCalls;
    /** ARGV[1] of every renew call the waiters' client sent. */
    private final List<String> renewHeads = new CopyOnWriteArrayList<>();

    private volatile boolean renewalsFail;
    private LockClient waiterClient;

    @BeforeEach
    void start() {
        clock = new ManualClock();
        redis = InMemoryLockBackend.withClock(clock);
        holderClient = LockClient.builder(redis.newNode()).ticker(clock).build();
        waiterCalls = new CountingLockBackend(new ForwardingLockBackend(redis.newNode()) {
            @Override
            public CompletableFuture<Object> eval(
                    LuaScript script, List<String> keys, List<String> args, Runnable writing) {
                if (script.name().equals(ScriptNames.RENEW)) {
                    renewHeads.add(args.get(0));
                    if (renewalsFail) {
                        return CompletableFuture.failedFuture(new IOException("renewals fail (test)"));
                    }
                }
                return super.eval(script, keys, args, writing);
            }
        });
        waiterClient = LockClient.builder(waiterCalls).ticker(clock).build();
    }

    @AfterEach
    void stop() {
        waiterClient.close();
        holderClient.close();
        redis.close();
    }

    /** {@code count} fair waiters of the waiters' client, queued in Redis behind the holder. */
    private List<CompletableFuture<Lease>> queueWaiters(int count) {
        List<CompletableFuture<Lease>> waiting = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            waiting.add(waiterClient.fairLock(NAME).acquireAsync(WAIT));
            int queued = i + 1;
            Eventually.until(
                    "waiter " + queued + " took its place",
                    () -> redis.sortedSetMembers(QUEUE).size() == queued);
        }
        Eventually.until("the waiters' subscription is active", () -> redis.subscriberCount(KEY + ":released") == 1);
        return waiting;
    }

    /** Moves the clock on by one place period and waits until the watchdog sent the renewal then due. */
    private void nextPeriod() {
        int before = renewHeads.size();
        clock.advance(PERIOD);
        Eventually.until(
                () -> "the watchdog sent the places' renewal (renew calls " + renewHeads + ", "
                        + waiterClient.diagnostics() + ")",
                () -> renewHeads.size() > before);
    }

    private long acquires() {
        return waiterCalls.count(ScriptNames.ACQUIRE);
    }

    @Test
    void shouldKeepFairWaitersPlacesInTheWatchdogsBatchedCallsNotInAcquiresOfTheirOwn() throws Exception {
        Lease held = holderClient.fairLock(NAME, HELD_LONG).acquire(Duration.ZERO);
        List<CompletableFuture<Lease>> waiting = queueWaiters(4);
        List<String> order = redis.sortedSetMembers(QUEUE);
        long asked = acquires();

        for (int i = 0; i < 20; i++) { // 10 s: a waiter lease is 1.5 s
            nextPeriod();
        }

        assertEquals(asked, acquires(), "no waiter asked again: the watchdog kept their places");
        assertTrue(renewHeads.size() <= 20, "one call per period for all four places: " + renewHeads.size());
        assertTrue(
                renewHeads.stream().allMatch(head -> head.endsWith(":4")),
                "every call kept all four places: " + renewHeads);
        long now = clock.millis();
        Map<String, Double> deadlines = redis.sortedSetScores(WAITERS);
        assertEquals(order, redis.sortedSetMembers(QUEUE), "the same places, in the same order");
        assertEquals(Set.copyOf(order), deadlines.keySet(), "each with its waiter lease");
        deadlines.forEach((owner, deadline) -> assertTrue(
                deadline >= now + GrantOrder.WAITER_LEASE_MS - GrantOrder.WAITER_RENEW_MS,
                "kept no longer than a period ago: " + deadline + " at " + now));
        assertTrue(redis.pttl(QUEUE) >= GrantOrder.WAITER_LEASE_MS - GrantOrder.WAITER_RENEW_MS, "the queue lives on");

        assertTrue(held.release());
        Lease first = waiting.get(0).get(10, TimeUnit.SECONDS);
        assertTrue(first.fencingToken() > held.fencingToken());
        for (int i = 1; i < waiting.size(); i++) {
            assertFalse(waiting.get(i).isDone(), "FIFO: waiter " + i + " waits for the first");
        }
        for (CompletableFuture<Lease> future : waiting.subList(1, waiting.size())) {
            future.cancel(false);
        }
        first.release();
    }

    @Test
    void shouldLeaveALongHoldOfAnotherGrantedWaiterToThePlaceRenewalsWithoutAsking() throws Exception {
        // A grant to another waiter used to arm an alarm at the end of its window, so that a dead
        // grantee would not hold the queue up; a kept place's renewal finds a lapsed grant (the lock
        // free) within a period anyway, so a live grantee's long hold costs the others nothing.
        Lease held = holderClient.fairLock(NAME, HELD_LONG).acquire(Duration.ZERO);
        List<CompletableFuture<Lease>> waiting = queueWaiters(4);
        nextPeriod();
        long asked = acquires();

        assertTrue(held.release());
        Lease first = waiting.get(0).get(10, TimeUnit.SECONDS);
        for (int i = 0; i < 6; i++) { // 3 s, twice the grant window
            nextPeriod();
        }

        assertEquals(asked, acquires(), "nobody asked: the places were kept, the lock held all along");
        for (CompletableFuture<Lease> later : waiting.subList(1, waiting.size())) {
            assertFalse(later.isDone());
        }
        first.release();
        Lease second = waiting.get(1).get(10, TimeUnit.SECONDS);
        assertTrue(second.fencingToken() > first.fencingToken());
        second.release();
        waiting.get(2).get(10, TimeUnit.SECONDS).release();
        waiting.get(3).get(10, TimeUnit.SECONDS).release();
    }

    @Test
    void shouldTakeAGrantFromItsMessageAfterWaitingLongerThanTheGrantWindow() throws Exception {
        Lease held = holderClient.fairLock(NAME, HELD_LONG).acquire(Duration.ZERO);
        CompletableFuture<Lease> waiting = queueWaiters(1).get(0);
        for (int i = 0; i < 10; i++) { // 5 s: its attempt's reply is long past the window
            nextPeriod();
        }
        long asked = acquires();

        assertTrue(held.release());
        Lease lease = waiting.get(10, TimeUnit.SECONDS);

        assertEquals(asked, acquires(), "the place's latest renewal proved the grant's time: no attempt");
        assertEquals(GrantOrder.WAITER_LEASE_MS, redis.pttl(KEY), "the grant's TTL: nobody asked after the grant");
        lease.release();
    }

    @Test
    void shouldAskAgainWhenARenewalFindsItsPlaceGone() throws Exception {
        Lease held = holderClient.fairLock(NAME, HELD_LONG).acquire(Duration.ZERO);
        CompletableFuture<Lease> waiting = queueWaiters(1).get(0);
        long asked = acquires();

        redis.deleteKey(QUEUE); // as after a restart that lost the queue, but not the lock
        redis.deleteKey(WAITERS);
        nextPeriod();

        Eventually.until("the waiter asked again", () -> acquires() == asked + 1);
        Eventually.until(
                "and took a new place", () -> redis.sortedSetMembers(QUEUE).size() == 1);
        assertFalse(waiting.isDone());
        assertTrue(held.release());
        waiting.get(10, TimeUnit.SECONDS).release();
    }

    @Test
    void shouldTakeTheLockWhenARenewalFindsItFreeWithoutAMessage() throws Exception {
        holderClient.fairLock(NAME, HELD_LONG).acquire(Duration.ZERO);
        CompletableFuture<Lease> waiting = queueWaiters(1).get(0);

        redis.deleteKey(KEY); // gone without a release message (a flush, an eviction, a lost key)
        nextPeriod();

        Lease lease = waiting.get(10, TimeUnit.SECONDS);
        assertEquals(redis.get(KEY).orElseThrow(), ownerOf(lease) + ":" + lease.fencingToken());
        lease.release();
    }

    @Test
    void shouldAskForItselfWhenARenewalFailsSoThatItsPlaceLivesOn() throws Exception {
        Lease held = holderClient.fairLock(NAME, HELD_LONG).acquire(Duration.ZERO);
        CompletableFuture<Lease> waiting = queueWaiters(1).get(0);
        String owner = redis.sortedSetMembers(QUEUE).get(0);
        long asked = acquires();

        renewalsFail = true;
        nextPeriod();

        Eventually.until("the failed renewal had the waiter ask for itself", () -> acquires() == asked + 1);
        long now = clock.millis(); // (the clock stands still: the ask's place runs a waiter lease from now)
        Eventually.until(
                "its ask kept the same place",
                () -> Double.valueOf(now + GrantOrder.WAITER_LEASE_MS)
                        .equals(redis.sortedSetScores(WAITERS).get(owner)));
        assertEquals(List.of(owner), redis.sortedSetMembers(QUEUE));
        renewalsFail = false;
        assertTrue(held.release());
        waiting.get(10, TimeUnit.SECONDS).release();
    }

    @Test
    void shouldStopKeepingThePlaceOfAWaiterThatWasCancelled() {
        holderClient.fairLock(NAME, HELD_LONG).acquire(Duration.ZERO);
        CompletableFuture<Lease> waiting = queueWaiters(1).get(0);
        // A lease of the waiters' client renewed every period: its renew calls would carry the place
        Lease heartbeat = waiterClient
                .lock(
                        "heartbeat",
                        LockOptions.builder()
                                .leaseTime(Duration.ofMillis(1_500))
                                .build())
                .acquire(Duration.ZERO);
        nextPeriod();
        assertTrue(renewHeads.get(renewHeads.size() - 1).endsWith(":1"), "the place rode with the lease");

        waiting.cancel(false);
        Eventually.until(
                "its clean-up took its place out",
                () -> redis.sortedSetMembers(QUEUE).isEmpty());
        int sent = renewHeads.size();
        for (int i = 0; i < 4; i++) {
            nextPeriod();
        }

        List<String> after = renewHeads.subList(sent, renewHeads.size());
        assertTrue(after.stream().noneMatch(head -> head.contains(":")), "no renewal of the place it left: " + after);
        assertTrue(redis.sortedSetScores(WAITERS).isEmpty());
        heartbeat.release();
    }

    private static String ownerOf(Lease lease) {
        return ((DefaultLease) lease).owner;
    }
}
