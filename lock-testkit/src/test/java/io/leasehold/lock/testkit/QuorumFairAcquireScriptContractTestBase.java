package io.leasehold.lock.testkit;

import static io.leasehold.lock.testkit.ScriptCaller.await;
import static io.leasehold.lock.testkit.ScriptCaller.failure;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.spi.LockBackend;
import io.leasehold.lock.spi.LockKeys;
import io.leasehold.lock.spi.LuaScript;
import io.leasehold.lock.spi.ScriptNames;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What quorum-fair-acquire.lua (phase 1 of a fairLock acquisition over a quorum, on one member) must
 * do, on the in-memory emulation and on a real redis-server alike: grant a free lock only to the waiter
 * at the head of the member's quorum queue (for the shorter of the lease and its waiter lease, keeping
 * its place until its leave), else keep the waiter's place, ordered
 * by the ticket the quorum chose (ties by waiter id); drop lapsed places; grant an attempt without a
 * place only where the lock is free and nobody waits; answer the holder again with its token; refuse
 * what Leasehold did not write, and a ticket that is no decimal integer below 2^53 - 1, writing
 * nothing. Each test has its own key prefix, so that a shared server needs no flush.
 */
abstract class QuorumFairAcquireScriptContractTestBase {

    private static final LuaScript FAIR_ACQUIRE = LuaScript.bundled(ScriptNames.QUORUM_FAIR_ACQUIRE);
    private static final LuaScript ACQUIRE = LuaScript.bundled(ScriptNames.ACQUIRE);
    /** The lock's lease in these tests: longer than any test. */
    private static final long LEASE_MS = 60_000;
    /** A waiter lease shorter than the lease: a waiter's grant window, which outlives every test too. */
    private static final long WINDOW_MS = 30_000;
    /** A waiter lease that outlives every test. */
    private static final long LONG_WAIT_MS = 60_000;
    /**
     * A waiter lease a test lets run out: long enough that the test's next call, on a busy machine,
     * still comes within it on a real server.
     */
    private static final long SHORT_WAIT_MS = 300;
    /** Time that certainly lets {@link #SHORT_WAIT_MS} run out, with a wide margin for a busy machine. */
    private static final Duration PAST_SHORT_WAIT = Duration.ofMillis(SHORT_WAIT_MS * 3);
    /** No place: ARGV[4] of an attempt that will not wait. */
    private static final String NO_WAITER = "";
    /** No ticket yet: ARGV[6] of a waiter's first call. */
    private static final String NO_TICKET = "";
    /** What readLock's foreign() says a lock is not. */
    private static final String NOT_A_LOCK = "lock (a hash, not a string '<owner>:<token>')";

    protected LockBackendFixture fixture;
    private LockBackend backend;
    private String prefix;

    protected abstract LockBackendFixture createFixture();

    /** PTTL of {@code key}, read directly from the store (-2 when absent). */
    protected abstract long pttl(String key);

    /** GET {@code key}, read directly from the store. */
    protected abstract Optional<String> get(String key);

    /** ZRANGE {@code key} 0 -1 WITHSCORES, read directly from the store: member → score, in order. */
    protected abstract Map<String, Double> sortedSet(String key);

    /** Lets {@code duration} pass for the server's TTLs and TIME (a hand-moved clock, or a sleep). */
    protected abstract void passTime(Duration duration) throws InterruptedException;

    @BeforeEach
    void startFixture() {
        fixture = createFixture();
        backend = fixture.newBackend();
        prefix = "fair-" + Long.toHexString(ThreadLocalRandom.current().nextLong()) + ":";
    }

    @AfterEach
    void closeFixture() {
        backend.close();
        fixture.close();
    }

    private String lockKey() {
        return LockKeys.lockKey(prefix, "orders");
    }

    private String fenceKey() {
        return LockKeys.fenceKey(prefix, "orders");
    }

    private String queueKey() {
        return LockKeys.quorumQueueKey(prefix, "orders");
    }

    private String waitersKey() {
        return LockKeys.quorumWaitersKey(prefix, "orders");
    }

    private List<String> keys() {
        return List.of(lockKey(), fenceKey(), queueKey(), waitersKey());
    }

    private CompletableFuture<Object> fairAsync(String owner, String waiter, long waiterLeaseMs, String ticket) {
        return backend.eval(
                FAIR_ACQUIRE,
                keys(),
                List.of(
                        owner,
                        Long.toString(LEASE_MS),
                        Long.toString(ScriptCaller.COUNTER_TTL_MS),
                        waiter,
                        Long.toString(waiterLeaseMs),
                        ticket));
    }

    private List<?> fair(String owner, String waiter, long waiterLeaseMs, String ticket) {
        return (List<?>) await(fairAsync(owner, waiter, waiterLeaseMs, ticket));
    }

    private List<?> fair(String owner, String waiter, String ticket) {
        return fair(owner, waiter, LONG_WAIT_MS, ticket);
    }

    /** The lock taken by {@code owner} without a place; its token. */
    private String hold(String owner) {
        List<?> reply = fair(owner, NO_WAITER, NO_TICKET);
        assertEquals(1L, reply.get(0), () -> owner + " takes the free lock: " + reply);
        return (String) reply.get(1);
    }

    /** The holder's lease lapses (its TTL runs out): the lock is free, the queue stays. */
    private void lapseHolder() {
        fixture.expireNow(lockKey());
    }

    private static Map<String, Double> places(Object... memberThenScore) {
        Map<String, Double> places = new LinkedHashMap<>();
        for (int i = 0; i < memberThenScore.length; i += 2) {
            places.put((String) memberThenScore[i], ((Number) memberThenScore[i + 1]).doubleValue());
        }
        return places;
    }

    /** Asserts that the queue keys both live for the waiter lease {@code waiterLeaseMs} (or a little less). */
    private void assertQueueLivesFor(long waiterLeaseMs) {
        for (String key : List.of(queueKey(), waitersKey())) {
            long ttl = pttl(key);
            assertTrue(ttl > waiterLeaseMs - 5_000 && ttl <= waiterLeaseMs, () -> key + " lives " + ttl + " ms");
        }
    }

    @Test
    void shouldGrantTheWaiterAtTheHeadOfAFreeLockForItsWaiterLeaseAndKeepItsPlace() {
        List<?> reply = fair("a1", "w1", WINDOW_MS, NO_TICKET);

        assertEquals(3, reply.size(), () -> "acquired: " + reply);
        assertEquals(1L, reply.get(0));
        String token = (String) reply.get(1);
        assertEquals(WINDOW_MS, reply.get(2), "the grant window: the waiter lease, shorter than the lease");
        assertEquals(Optional.of("a1:" + token), get(lockKey()), "granted to the owner, not the waiter id");
        assertEquals(Optional.of(token), get(fenceKey()), "the counter is the token");
        long window = pttl(lockKey());
        assertTrue(window > 0 && window <= WINDOW_MS, "until the commit could have come, not the lease: " + window);
        assertEquals(List.of("w1"), List.copyOf(sortedSet(queueKey()).keySet()), "its place kept until its leave");
        assertEquals(List.of("w1"), List.copyOf(sortedSet(waitersKey()).keySet()));
        assertQueueLivesFor(WINDOW_MS);
    }

    @Test
    void shouldGrantTheHeadForTheLeaseWhenItsWaiterLeaseIsLonger() {
        List<?> reply = fair("a1", "w1", 120_000, NO_TICKET);

        assertEquals(List.of(1L, reply.get(1), LEASE_MS), reply, "the lease, the shorter of the two");
        long lease = pttl(lockKey());
        assertTrue(lease > WINDOW_MS && lease <= LEASE_MS, "the lease: " + lease);
    }

    @Test
    void shouldKeepAGrantedHeadAheadOfALaterWaiterWhenItsGrantLapsesBeforeItsCommit() {
        String first = (String) fair("a1", "w1", LONG_WAIT_MS, "100").get(1);
        assertEquals(List.of(0L, first), List.copyOf(fair("b1", "w2", "200").subList(0, 2)), "w2 queues");
        lapseHolder(); // w1's grant ran out before its commit came (or its attempt was released)

        List<?> later = fair("b2", "w2", "200");

        assertEquals(List.of(0L, "0", LONG_WAIT_MS, 2L, "200"), later, "w1 still heads the queue");
        assertEquals(Optional.empty(), get(lockKey()), "granted to nobody");
        assertEquals(1L, fair("a2", "w1", "100").get(0), "w1's next attempt is granted");
        assertEquals(places("w1", 100, "w2", 200), sortedSet(queueKey()));
    }

    @Test
    void shouldTakeAGrantedWaitersPlaceOutAtItsLeaveAndKeepTheLock() {
        String token = (String) fair("a1", "w1", LONG_WAIT_MS, "100").get(1);
        fair("b1", "w2", "200");

        assertEquals(List.of(0L), fair("", "w1", 0, NO_TICKET), "the leave after the quorum's commit");

        assertEquals(places("w2", 200), sortedSet(queueKey()), "w2 is next");
        assertEquals(Optional.of("a1:" + token), get(lockKey()), "the lock is untouched");
    }

    @Test
    void shouldSetTheGrantWindowAgainWhenTheSameOwnerAsksAgain() {
        String token = (String) fair("a1", "w1", WINDOW_MS, NO_TICKET).get(1);
        fixture.writeKey(lockKey(), "a1:" + token); // the grant without a TTL, to see it set again

        assertEquals(List.of(1L, token, WINDOW_MS), fair("a1", "w1", WINDOW_MS, NO_TICKET));

        long window = pttl(lockKey());
        assertTrue(window > 0 && window <= WINDOW_MS, "the grant window again, not the lease: " + window);
        assertEquals(
                List.of(1L, token, LEASE_MS),
                fair("a1", NO_WAITER, WINDOW_MS, NO_TICKET),
                "without a place: the lease");
    }

    @Test
    void shouldGrantAWaiterWithAGivenTicketOnAnEmptyQueue() {
        List<?> reply = fair("a1", "w1", "42");

        assertEquals(1L, reply.get(0), () -> "at the head of an empty queue: " + reply);
        assertEquals(Optional.of("a1:" + reply.get(1)), get(lockKey()));
        assertEquals(places("w1", 42), sortedSet(queueKey()), "its place, with the ticket given");
    }

    @Test
    void shouldEnqueueAWaiterBehindAHeldLockAndTellItsPlaceAndTicket() {
        String token = hold("a0");

        List<?> reply = fair("b1", "wb", NO_TICKET);

        assertEquals(5, reply.size(), () -> "not acquired: " + reply);
        assertEquals(List.of(0L, token), List.copyOf(reply.subList(0, 2)), "the holder's token");
        long pttl = (Long) reply.get(2);
        assertTrue(pttl > 0 && pttl <= LEASE_MS, () -> "the holder's remaining lease: " + reply);
        assertEquals(1L, reply.get(3), "next");
        String ticket = (String) reply.get(4);
        assertTrue(ticket.matches("[1-9][0-9]{15}"), () -> "this member's ticket, TIME in µs: " + ticket);
        assertEquals(places("wb", Long.parseLong(ticket)), sortedSet(queueKey()));
        assertEquals(List.of("wb"), List.copyOf(sortedSet(waitersKey()).keySet()));
        assertEquals(Optional.of("a0:" + token), get(lockKey()), "the holder keeps it");
        assertQueueLivesFor(LONG_WAIT_MS);
    }

    @Test
    void shouldGiveASecondWaiterALaterTicketAndPlaceTwo() {
        String token = hold("a0");
        long first = Long.parseLong((String) fair("b1", "wb", NO_TICKET).get(4));

        List<?> reply = fair("c1", "wc", NO_TICKET);

        assertEquals(List.of(0L, token), List.copyOf(reply.subList(0, 2)));
        assertEquals(2L, reply.get(3), () -> "behind wb: " + reply);
        long second = Long.parseLong((String) reply.get(4));
        assertTrue(second > first, () -> "a later ticket: " + first + ", then " + second);
        assertEquals(places("wb", first, "wc", second), sortedSet(queueKey()));
        List<?> again = fair("b1", "wb", Long.toString(first));
        assertEquals(List.of(1L, Long.toString(first)), List.of(again.get(3), again.get(4)), "wb keeps its place");
    }

    @Test
    void shouldGrantNothingWhenTheLockIsFreeButAnotherWaiterHeadsTheQueue() {
        hold("a0");
        fair("b1", "wb", "100");
        lapseHolder();
        String counter = get(fenceKey()).orElseThrow();

        List<?> reply = fair("c1", "wc", "200");

        assertEquals(List.of(0L, "0", LONG_WAIT_MS, 2L, "200"), reply, "token 0 and the waiter lease: wb asks first");
        assertEquals(Optional.empty(), get(lockKey()), "granted to nobody: a member never hands over by itself");
        assertEquals(Optional.of(counter), get(fenceKey()), "no token issued");
        assertEquals(places("wb", 100, "wc", 200), sortedSet(queueKey()));
    }

    @Test
    void shouldReScoreAPlaceToTheGivenTicketSoThatALowerTicketGoesAheadAndIsGranted() {
        String token = hold("a0");
        long wb = Long.parseLong((String) fair("b1", "wb", NO_TICKET).get(4));
        fair("c1", "wc", NO_TICKET);

        List<?> ahead = fair("c1", "wc", "5");
        assertEquals(List.of(0L, token), List.copyOf(ahead.subList(0, 2)));
        assertEquals(List.of(1L, "5"), List.of(ahead.get(3), ahead.get(4)), "the quorum's ticket puts wc first");
        assertEquals(places("wc", 5, "wb", wb), sortedSet(queueKey()));
        lapseHolder();

        List<?> granted = fair("c2", "wc", "5");

        assertEquals(1L, granted.get(0), () -> "wc heads the queue of a free lock: " + granted);
        assertEquals(Optional.of("c2:" + granted.get(1)), get(lockKey()), "to this attempt's owner");
        assertEquals(places("wc", 5, "wb", wb), sortedSet(queueKey()), "both kept, wc's until its leave");
    }

    @Test
    void shouldOrderWaitersWithEqualTicketsByWaiterId() {
        String token = hold("a0");

        List<?> zed = fair("z1", "wz", "100");
        List<?> abe = fair("b1", "wa", "100");

        assertEquals(List.of(0L, token), List.copyOf(zed.subList(0, 2)));
        assertEquals(List.of(1L, "100"), List.of(zed.get(3), zed.get(4)), "alone, first");
        assertEquals(List.of(1L, "100"), List.of(abe.get(3), abe.get(4)), "the same ticket, a smaller id: ahead");
        List<?> zedAgain = fair("z1", "wz", "100");
        assertEquals(List.of(2L, "100"), List.of(zedAgain.get(3), zedAgain.get(4)), "wz now second");
        assertEquals(List.of("wa", "wz"), List.copyOf(sortedSet(queueKey()).keySet()));
        lapseHolder();
        assertEquals(0L, fair("z2", "wz", "100").get(0), "wz is not the head");
        assertEquals(1L, fair("b2", "wa", "100").get(0), "wa is");
    }

    @Test
    void shouldDropAWaiterWhosePlaceLapsedSoThatTheNextHeadsTheQueue() throws InterruptedException {
        String token = hold("a0");
        fair("b1", "wb", SHORT_WAIT_MS, "100");
        assertEquals(2L, fair("c1", "wc", "200").get(3), "behind wb");

        passTime(PAST_SHORT_WAIT);
        List<?> next = fair("c1", "wc", "200");

        assertEquals(List.of(0L, token), List.copyOf(next.subList(0, 2)));
        assertEquals(List.of(1L, "200"), List.of(next.get(3), next.get(4)), "wb's place lapsed: wc is next");
        assertEquals(places("wc", 200), sortedSet(queueKey()), "wb dropped");
        assertEquals(List.of("wc"), List.copyOf(sortedSet(waitersKey()).keySet()));
        lapseHolder();
        assertEquals(1L, fair("c2", "wc", "200").get(0), "the head of a free lock is granted");
    }

    @Test
    void shouldGrantAnAttemptWithoutAPlaceOnlyWhenTheLockIsFreeAndNobodyWaits() {
        List<?> free = fair("a0", NO_WAITER, NO_TICKET);
        String token = (String) free.get(1);
        assertEquals(List.of(1L, token, LEASE_MS), free, "free, nobody waits");
        assertEquals(-2L, pttl(queueKey()), "no place");

        List<?> held = fair("x1", NO_WAITER, NO_TICKET);
        assertEquals(5, held.size(), () -> "held: " + held);
        assertEquals(List.of(0L, token), List.copyOf(held.subList(0, 2)));
        long pttl = (Long) held.get(2);
        assertTrue(pttl > 0 && pttl <= LEASE_MS, () -> "the holder's remaining lease: " + held);
        assertEquals(List.of(0L, "0"), List.copyOf(held.subList(3, 5)), "no place, no ticket");
        assertEquals(-2L, pttl(queueKey()), "and it takes none");
        assertEquals(-2L, pttl(waitersKey()));

        fair("b1", "wb", "100");
        lapseHolder();
        List<?> queued = fair("x2", NO_WAITER, "7");
        assertEquals(List.of(0L, "0", LONG_WAIT_MS, 0L, "0"), queued, "free, but wb waits");
        assertEquals(Optional.empty(), get(lockKey()), "granted to nobody");
        assertEquals(places("wb", 100), sortedSet(queueKey()), "no place for '', its ticket unused");
    }

    @Test
    void shouldAnswerTheHolderAgainWithItsTokenBeforeAnyCheck() {
        List<?> first = fair("a1", "w1", NO_TICKET);
        String token = (String) first.get(1);

        assertEquals(List.of(1L, token, LEASE_MS), fair("a1", "w1", NO_TICKET), "the same token, the lease again");
        assertEquals(List.of(1L, token, LEASE_MS), fair("a1", "w1", "abc"), "before the ticket's check");
        assertEquals(Optional.of("a1:" + token), get(lockKey()));
        assertEquals(List.of("w1"), List.copyOf(sortedSet(queueKey()).keySet()), "one place, kept");
        fixture.writeForeignKey(queueKey());
        assertEquals(List.of(1L, token, LEASE_MS), fair("a1", "w1", NO_TICKET), "and before the keys' check");
    }

    @Test
    void shouldAnswerTheHolderOfARenewedLeaseWithItsTokenAndRemainingTtl() {
        fixture.writeKey(lockKey(), "a1:123:4"); // renewed (a sequence number), here without a TTL

        assertEquals(List.of(1L, "123", -1L), fair("a1", "w1", NO_TICKET), "PTTL, untouched");
        assertEquals(Optional.of("a1:123:4"), get(lockKey()));
    }

    @Test
    void shouldIssueATokenAboveTheFenceCounterAsAHybridClock() {
        fixture.writeKey(fenceKey(), "9000000000000000"); // ahead of TIME in µs (~1.8e15)

        List<?> reply = fair("a1", "w1", NO_TICKET);

        assertEquals(List.of(1L, "9000000000000001", LEASE_MS), reply, "counter + 1");
        assertEquals(Optional.of("9000000000000001"), get(fenceKey()));
        long idle = pttl(fenceKey());
        assertTrue(idle > LEASE_MS && idle <= ScriptCaller.COUNTER_TTL_MS, "the counter's idle TTL: " + idle);
        fixture.deleteKey(lockKey());
        fixture.deleteKey(fenceKey());
        assertEquals(List.of(0L), fair("", "w1", 0, NO_TICKET), "w1's leave: its place outlived its grant");
        String fromClock = (String) fair("b1", NO_WAITER, NO_TICKET).get(1);
        assertTrue(fromClock.matches("[1-9][0-9]{15}"), () -> "TIME in µs without a counter: " + fromClock);
    }

    @Test
    void shouldRefuseAForeignKeyAsAcquireDoesAndWriteNothing() {
        List<String> refusals = List.of(
                NOT_A_LOCK,
                "fencing counter (a hash, not a string holding a decimal integer)",
                "wait queue (a hash, not a zset)",
                "wait queue (a hash, not a zset)");
        for (int i = 0; i < 4; i++) {
            prefix = "fair-" + Long.toHexString(ThreadLocalRandom.current().nextLong()) + ":";
            String foreign = keys().get(i);
            fixture.writeForeignKey(foreign);
            String expected = "ERR key '" + foreign + "' holds a value that is not a Leasehold " + refusals.get(i);

            String fairError =
                    failure(fairAsync("a1", "w1", LONG_WAIT_MS, NO_TICKET)).getMessage();
            String acquireError = failure(backend.eval(
                            ACQUIRE,
                            List.of(lockKey(), fenceKey(), queueKey(), waitersKey(), prefix + "channel"),
                            List.of("a1", Long.toString(LEASE_MS), "3600000", "1500", "SPUBLISH", "0")))
                    .getMessage();

            assertTrue(fairError.contains(expected), () -> "KEYS[" + foreign + "]: " + fairError);
            assertTrue(acquireError.contains(expected), () -> "acquire.lua's own: " + acquireError);
            for (String key : keys()) {
                if (!key.equals(foreign)) {
                    assertEquals(-2L, pttl(key), () -> key + " not written, with " + foreign + " foreign");
                }
            }
            assertEquals(-1L, pttl(foreign), "the foreign key left as it was");
        }
    }

    @Test
    void shouldRefuseATicketThatIsNoDecimalIntegerBelowTwoTo53AndWriteNothing() {
        for (String ticket : List.of("abc", "9007199254740991", "-5", "1.5", " 7")) {
            Throwable refused = failure(fairAsync("a1", "w1", LONG_WAIT_MS, ticket));

            assertTrue(
                    refused.getMessage()
                            .contains("ERR ticket must be a decimal integer below 2^53 - 1, but was '" + ticket + "'"),
                    () -> "names the rule and the value: " + refused);
        }
        for (String key : keys()) {
            assertEquals(-2L, pttl(key), () -> key + " not written");
        }
        assertEquals(1L, fair("a1", "w1", "9007199254740990").get(0), "the largest ticket is one below");
    }

    @Test
    void shouldMakeTheQueueKeysLiveAsLongAsTheLongestWaiterLease() {
        hold("a0");
        fair("b1", "wb", 120_000, "100");
        fair("c1", "wc", LONG_WAIT_MS, "200");
        assertQueueLivesFor(120_000);

        fair("b1", "wb", 1_000, "100"); // wb's lease is now the shortest: wc's lives longest

        assertQueueLivesFor(LONG_WAIT_MS);
        fair("x1", NO_WAITER, NO_TICKET); // an attempt without a place keeps the TTLs too
        assertQueueLivesFor(LONG_WAIT_MS);
    }

    @Test
    void shouldTakeALeavingWaitersPlaceOutAndKeepTheOthers() {
        String token = hold("a0");
        fair("b1", "wb", 120_000, "100");
        fair("c1", "wc", LONG_WAIT_MS, "200");

        assertEquals(List.of(0L), fair("", "wb", 0, NO_TICKET), "the leave's reply");

        assertEquals(places("wc", 200), sortedSet(queueKey()));
        assertEquals(1, sortedSet(waitersKey()).size());
        assertQueueLivesFor(LONG_WAIT_MS); // the longest place left, not the one that left
        assertEquals(Optional.of("a0:" + token), get(lockKey()), "the lock is untouched");
    }

    @Test
    void shouldLeaveNoQueueKeyBehindWhenTheLastWaiterLeaves() {
        hold("a0");
        fair("b1", "wb", LONG_WAIT_MS, NO_TICKET);

        assertEquals(List.of(0L), fair("", "wb", 0, NO_TICKET));

        assertEquals(-2L, pttl(queueKey()));
        assertEquals(-2L, pttl(waitersKey()));
        assertEquals(List.of(0L), fair("", "nobody", 0, NO_TICKET), "a waiter without a place leaves all the same");
    }

    @Test
    void shouldRefuseAForeignQueueKeyWhenAWaiterLeavesAndWriteNothing() {
        fixture.writeForeignKey(waitersKey());
        String expected =
                "ERR key '" + waitersKey() + "' holds a value that is not a Leasehold wait queue (a hash, not a zset)";

        String error = failure(fairAsync("", "wb", 0, NO_TICKET)).getMessage();

        assertTrue(error.contains(expected), () -> "the leave's error: " + error);
        assertEquals(-2L, pttl(queueKey()), "nothing written");
        assertEquals(-1L, pttl(waitersKey()), "the foreign key left as it was");
    }
}
