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
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What the wait queue's scripts (acquire.lua, release.lua) must do,
 * on the in-memory emulation and on a real redis-server alike: strict FIFO grants, direct grant
 * on release with rising fencing tokens, dead waiters dropped after their waiter lease, a grant
 * not taken going on after its window, and no queue key outliving its waiters.
 */
abstract class QueueScriptContractTestBase {

    static final LuaScript ACQUIRE = LuaScript.bundled(ScriptNames.ACQUIRE);
    static final LuaScript RELEASE = LuaScript.bundled(ScriptNames.RELEASE);
    static final LuaScript HANDOFF = LuaScript.bundled(ScriptNames.HANDOFF);

    /** The lock's lease in these tests: longer than any test. */
    static final long LEASE_MS = 60_000;
    /** A waiter lease that outlives every test. */
    static final long LONG_WAIT_MS = 60_000;
    /** A waiter lease (and grant window) a test lets run out. */
    static final long SHORT_WAIT_MS = 300;
    /** Time that certainly lets {@link #SHORT_WAIT_MS} run out, with a wide margin for a busy machine. */
    static final Duration PAST_SHORT_WAIT = Duration.ofMillis(SHORT_WAIT_MS * 3);

    protected LockBackendFixture fixture;
    private LockBackend backend;
    /** This test's lock name, unique so that a shared server needs no flush. */
    protected String name;

    /** A fresh fixture; closed after each test. */
    protected abstract LockBackendFixture createFixture();

    /** PTTL of {@code key}, read directly from the store (-2 when absent). */
    protected abstract long pttl(String key);

    /** Lets {@code duration} pass for the server's TTLs and TIME (a hand-moved clock, or a sleep). */
    protected abstract void passTime(Duration duration) throws InterruptedException;

    /** The publish command the backend's subscribers hear. */
    protected String publishCommand() {
        return "SPUBLISH";
    }

    @BeforeEach
    void startFixture() {
        fixture = createFixture();
        backend = fixture.newBackend();
        name = "queue-" + Long.toHexString(ThreadLocalRandom.current().nextLong());
    }

    @AfterEach
    void closeFixture() {
        backend.close();
        fixture.close();
    }

    // ---- calls, with the engine's key layout ----

    List<String> keys() {
        return List.of(
                lockKey(),
                LockKeys.fenceKey(ScriptCaller.PREFIX, name),
                queueKey(),
                waitersKey(),
                LockKeys.releaseChannel(ScriptCaller.PREFIX, name));
    }

    String lockKey() {
        return LockKeys.lockKey(ScriptCaller.PREFIX, name);
    }

    String queueKey() {
        return LockKeys.queueKey(ScriptCaller.PREFIX, name);
    }

    String waitersKey() {
        return LockKeys.waitersKey(ScriptCaller.PREFIX, name);
    }

    List<?> acquire(String owner, long waiterLeaseMs) {
        return (List<?>) await(backend.eval(ACQUIRE, keys(), acquireArgs(owner, waiterLeaseMs)));
    }

    private List<String> acquireArgs(String owner, long waiterLeaseMs) {
        return acquireArgs(owner, waiterLeaseMs, false);
    }

    private List<String> acquireArgs(String owner, long waiterLeaseMs, boolean onlyTry) {
        return List.of(
                owner,
                Long.toString(LEASE_MS),
                Long.toString(ScriptCaller.COUNTER_TTL_MS),
                Long.toString(waiterLeaseMs),
                publishCommand(),
                onlyTry ? "1" : "0");
    }

    List<?> tryOnly(String owner) {
        return (List<?>) await(backend.eval(ACQUIRE, keys(), acquireArgs(owner, LONG_WAIT_MS, true)));
    }

    List<?> acquire(String owner) {
        return acquire(owner, LONG_WAIT_MS);
    }

    /** The token of an acquisition that must succeed. */
    long take(String owner) {
        List<?> reply = acquire(owner);
        assertEquals(1L, reply.get(0), () -> owner + " takes the lock: " + reply);
        return Long.parseLong((String) reply.get(1));
    }

    /** The place in the queue of a waiter that must wait. */
    long waitInQueue(String owner, long waiterLeaseMs) {
        List<?> reply = acquire(owner, waiterLeaseMs);
        assertEquals(0L, reply.get(0), () -> owner + " waits: " + reply);
        assertEquals(4, reply.size(), () -> "a waiting reply tells the place: " + reply);
        return (Long) reply.get(3);
    }

    long waitInQueue(String owner) {
        return waitInQueue(owner, LONG_WAIT_MS);
    }

    Object release(String owner, long grantWindowMs) {
        List<String> keys = new ArrayList<>(keys());
        keys.add(LockKeys.yieldMarkerKey(ScriptCaller.PREFIX, name));
        return await(backend.eval(
                RELEASE,
                keys,
                List.of(
                        owner,
                        Long.toString(ScriptCaller.COUNTER_TTL_MS),
                        Long.toString(grantWindowMs),
                        publishCommand(),
                        Long.toString(LEASE_MS))));
    }

    Object release(String owner) {
        return release(owner, LONG_WAIT_MS);
    }

    /** handoff.lua from {@code releasing} to {@code waiter}, as the engine sends it, with the yield flag. */
    List<?> handoff(String waiter, String releasing, boolean mayYield) {
        List<String> keys = new ArrayList<>(keys());
        keys.add(LockKeys.yieldMarkerKey(ScriptCaller.PREFIX, name));
        return (List<?>) await(backend.eval(
                HANDOFF,
                keys,
                List.of(
                        waiter,
                        Long.toString(LEASE_MS),
                        Long.toString(ScriptCaller.COUNTER_TTL_MS),
                        releasing,
                        publishCommand(),
                        mayYield ? "1" : "0",
                        Long.toString(LONG_WAIT_MS))));
    }

    /** The lock's holder as {owner, token}, read behind the scripts' back; null when free. */
    String[] holder() {
        LockBackend reader = backend;
        Object reply = await(reader.eval(LuaScript.bundled(ScriptNames.INSPECT), List.of(lockKey()), List.of()));
        if (((List<?>) reply).isEmpty()) {
            return null;
        }
        // inspect tells the token; the owner is read by the owner's own idempotent acquire in tests
        return new String[] {null, (String) ((List<?>) reply).get(0)};
    }

    long holderToken() {
        String[] holder = holder();
        assertTrue(holder != null, "the lock is held");
        return Long.parseLong(holder[1]);
    }

    static final LuaScript RENEW = LuaScript.bundled(ScriptNames.RENEW);

    /**
     * renew.lua keeping the places of {@code owners} (no leases), each for {@code waiterLeaseMs}, as
     * the engine's watchdog sends them: the places' entries of its reply (the holder's token, or 0).
     */
    List<?> keepPlaces(long waiterLeaseMs, String... owners) {
        List<String> keys = new ArrayList<>();
        List<String> args = new ArrayList<>();
        args.add(":" + owners.length);
        for (String owner : owners) {
            keys.addAll(List.of(lockKey(), queueKey(), waitersKey()));
            args.add(owner);
            args.add(Long.toString(waiterLeaseMs));
        }
        List<?> reply = (List<?>) await(backend.eval(RENEW, keys, args));
        assertEquals(3, reply.size(), () -> "{codes, micros, places}: " + reply);
        assertEquals(List.of(), reply.get(0), "no lease codes");
        return (List<?>) reply.get(2);
    }

    // ---- keeping a waiter's place (renew.lua's places) ----

    @Test
    void shouldKeepAWaitersPlacePastItsWaiterLeaseAndNameTheHolder() throws InterruptedException {
        long token = take("alice");
        waitInQueue("bob", SHORT_WAIT_MS);
        waitInQueue("carol", SHORT_WAIT_MS);

        assertEquals(List.of(Long.toString(token), Long.toString(token)), keepPlaces(LONG_WAIT_MS, "bob", "carol"));
        passTime(PAST_SHORT_WAIT);
        assertTrue(pttl(queueKey()) > SHORT_WAIT_MS, "the queue keys live as long as the kept places");
        release("alice");

        List<?> granted = acquire("bob");
        assertEquals(1L, granted.get(0), () -> "the first kept place got the grant: " + granted);
        assertEquals(1L, waitInQueue("carol"), "the second kept its place: next after bob");
    }

    @Test
    void shouldNotKeepAPlaceThatLapsedOrWasGranted() throws InterruptedException {
        take("alice");
        waitInQueue("bob", SHORT_WAIT_MS);
        waitInQueue("carol");
        passTime(PAST_SHORT_WAIT);

        assertEquals(List.of(0L), keepPlaces(LONG_WAIT_MS, "bob"), "lapsed: bob must ask");
        release("alice");
        assertEquals(List.of(0L), keepPlaces(LONG_WAIT_MS, "carol"), "granted the lock: carol must ask");
        assertEquals(List.of(0L), keepPlaces(LONG_WAIT_MS, "dave"), "never queued");
        assertEquals(1L, acquire("carol").get(0));
    }

    @Test
    void shouldNotKeepAPlaceWhoseTicketIsGone() {
        take("alice");
        waitInQueue("bob");
        fixture.deleteKey(queueKey()); // the tickets lost, the waiter leases not (an eviction, say)

        assertEquals(List.of(0L), keepPlaces(LONG_WAIT_MS, "bob"), "bob must ask, and queue again");
        assertEquals(1L, waitInQueue("bob"));
    }

    @Test
    void shouldLeaveNoWaiterLeaseOfAHolderHandedTheLockAfterItsTicketWasLost() {
        take("alice");
        waitInQueue("bob");
        List<?> yielded = handoff("walt", "alice", true); // bob granted, walt queued behind him
        assertEquals(0L, yielded.get(0), () -> "yielded to bob: " + yielded);
        assertEquals(1L, acquire("bob").get(0), "bob takes his grant");
        fixture.deleteKey(queueKey()); // the tickets lost, the waiter leases not (an eviction, say)

        List<?> handed = handoff("walt", "bob", false);
        assertEquals(1L, handed.get(0), () -> "bob hands the lock to walt: " + handed);
        assertEquals(1L, release("walt"), "walt releases");
        assertEquals(-2L, pttl(waitersKey()), "nobody waits: no waiter lease (walt's) outlives his release");
    }

    @Test
    void shouldNotKeepAPlaceWhileTheLockIsFree() {
        take("alice");
        waitInQueue("bob");
        fixture.deleteKey(lockKey()); // gone without a release (a flush, an eviction)

        assertEquals(List.of(0L), keepPlaces(LONG_WAIT_MS, "bob"), "bob must ask, and take it");
        assertEquals(1L, acquire("bob").get(0));
    }

    // ---- taking a free lock ----

    @Test
    void shouldTakeAFreeLockAtOnceAndLeaveNoQueueKey() {
        List<?> reply = acquire("alice");

        assertEquals(List.of(1L, LEASE_MS), List.of(reply.get(0), reply.get(2)), "taken, full lease: " + reply);
        assertEquals(-2L, pttl(queueKey()), "no queue key without waiters");
        assertEquals(-2L, pttl(waitersKey()), "no waiter key without waiters");
        assertEquals(reply, acquire("alice"), "a repeated call of the holder is idempotent");
    }

    // ---- FIFO ----

    @Test
    void shouldQueueWaitersInTheOrderTheyArrivedAndKeepTheirPlaceWhenTheyCallAgain() {
        take("alice");

        assertEquals(1L, waitInQueue("bob"));
        assertEquals(2L, waitInQueue("carol"));
        assertEquals(3L, waitInQueue("dave"));
        assertEquals(1L, waitInQueue("bob"), "renewing keeps bob's place");
        assertEquals(3L, waitInQueue("dave"), "renewing does not move dave forward");
    }

    @Test
    void shouldGrantTheReleasedLockToTheHeadWaiterWithAHigherTokenForItsGrantWindow() {
        long aliceToken = take("alice");
        waitInQueue("bob");
        waitInQueue("carol");

        assertEquals(1L, release("alice", 5_000), "released");

        long granted = holderToken();
        assertTrue(granted > aliceToken, () -> "bob's token " + granted + " after alice's " + aliceToken);
        long window = pttl(lockKey());
        assertTrue(window > 0 && window <= 5_000, () -> "the grant lasts its window, not a lease: " + window);
        List<?> bob = acquire("bob");
        assertEquals(List.of(1L, Long.toString(granted), LEASE_MS), bob, "bob takes the grant, with its full lease");
        assertTrue(pttl(lockKey()) > 5_000, "bob's lease is set when he takes it");
        assertEquals(1L, waitInQueue("carol"), "carol is next");
    }

    @Test
    void shouldGrantInEnqueueOrderWithStrictlyRisingTokens() {
        long previous = take("w0");
        for (int i = 1; i <= 5; i++) {
            waitInQueue("w" + i);
        }
        for (int i = 1; i <= 5; i++) {
            for (int j = i + 1; j <= 5; j++) {
                assertEquals(0L, acquire("w" + j).get(0), "w" + j + " still waits behind w" + i);
            }
            assertEquals(1L, release("w" + (i - 1)));
            long token = take("w" + i);
            assertTrue(token > previous, "tokens rise along the queue");
            previous = token;
        }
        assertEquals(-2L, pttl(queueKey()), "the queue is empty, and its keys are gone");
    }

    @Test
    void shouldNotLetANewcomerTakeAGrantedLockBeforeItsWaiterTakesIt() {
        take("alice");
        waitInQueue("bob");
        release("alice");

        assertEquals(1L, waitInQueue("eve"), "eve waits, first in the queue, while bob's grant is untaken");
        take("bob");
        assertEquals(1L, waitInQueue("eve"));
    }

    @Test
    void shouldGrantAFreeLockToTheHeadWhenANewcomerFindsItFree() throws InterruptedException {
        take("alice");
        waitInQueue("bob");
        fixture.deleteKey(lockKey()); // alice's lease ran out, and no release came

        List<?> eve = acquire("eve");

        assertEquals(List.of(0L, LONG_WAIT_MS, 1L), List.of(eve.get(0), eve.get(2), eve.get(3)), "eve waits: " + eve);
        assertEquals(1L, acquire("bob").get(0), "bob got the free lock first");
    }

    @Test
    void shouldTakeNoPlaceForACallerThatOnlyTries() {
        take("alice");
        waitInQueue("bob");

        List<?> eve = tryOnly("eve");

        assertEquals(List.of(0L, 0L), List.of(eve.get(0), eve.get(3)), "eve waits nowhere: " + eve);
        assertEquals(2L, waitInQueue("carol"), "carol is second, behind bob: eve took no place");
        assertEquals(1L, release("alice"));
        assertEquals(1L, acquire("bob").get(0), "the grant went to bob");
        assertEquals(1L, release("bob"));
        assertEquals(0L, tryOnly("eve").get(0), "the lock is granted to carol, so eve's try fails");
        assertEquals(1L, acquire("carol").get(0));
        assertEquals(1L, release("carol"));
        assertEquals(1L, tryOnly("eve").get(0), "free and nobody queued: eve's try takes it");
    }

    // ---- handoff: a client's local turn, bounded by the queue ----

    @Test
    void shouldYieldAHandoffToTheHeadOfTheQueueAndQueueTheLocalWaiterBehindIt() {
        long releasingToken = take("releasing");
        waitInQueue("other");

        List<?> reply = handoff("waiter", "releasing", true);

        assertEquals(
                List.of(0L, LONG_WAIT_MS, 1L), List.of(reply.get(0), reply.get(2), reply.get(3)), "yielded: " + reply);
        long granted = holderToken();
        assertEquals(Long.toString(granted), reply.get(1), "the reply names the grant's token");
        assertTrue(granted > releasingToken, "the grant's token is above the releasing lease's");
        assertEquals(1L, waitInQueue("waiter"), "the local waiter is next, behind the grant");
        assertEquals(
                List.of(1L, Long.toString(granted), LEASE_MS), acquire("other"), "the queue's head takes its grant");
        assertEquals(
                List.of(0L, 2L),
                List.of(
                        handoff("waiter", "releasing", true).get(0),
                        handoff("waiter", "releasing", true).get(3)),
                "a resend of the yield finds the marker: released by it");
        assertEquals(1L, release("other"));
        assertEquals(1L, acquire("waiter").get(0), "the other's release granted the local waiter");
    }

    @Test
    void shouldAnswerReleasedToAResentYieldAfterLaterReleasesMarkedTheirOwnersToo() {
        take("releasing");
        waitInQueue("other");
        waitInQueue("third");
        assertEquals(0L, handoff("waiter", "releasing", true).get(0), "yielded to other");
        assertEquals(1L, acquire("other").get(0));

        assertEquals(1L, release("other"), "other's release grants third, and marks other");
        assertEquals(1L, acquire("third").get(0));

        assertEquals(2L, handoff("waiter", "releasing", true).get(3), "the marker still names the yield's owner");
        assertEquals(1L, release("third"), "third's release");
        assertEquals(1L, release("other"), "a resend of other's release: marked, released");
    }

    @Test
    void shouldHandTheLockPastTheQueueWhenNotAskedToYield() {
        long releasingToken = take("releasing");
        waitInQueue("other");

        List<?> reply = handoff("waiter", "releasing", false);

        assertEquals(
                List.of(1L, LEASE_MS, 1L), List.of(reply.get(0), reply.get(2), reply.get(3)), "handed over: " + reply);
        assertTrue(Long.parseLong((String) reply.get(1)) > releasingToken);
        assertEquals(1L, waitInQueue("other"), "the other waiter keeps its place");
    }

    @Test
    void shouldHandTheLockToTheLocalWaiterAtTheHeadOfTheQueueAndTakeItsPlaceOut() {
        take("releasing");
        waitInQueue("waiter");
        waitInQueue("other");

        List<?> reply = handoff("waiter", "releasing", true);

        assertEquals(
                List.of(1L, LEASE_MS, 1L), List.of(reply.get(0), reply.get(2), reply.get(3)), "handed over: " + reply);
        assertEquals(1L, waitInQueue("other"), "the waiter's place went with the grant");
    }

    @Test
    void shouldGrantAFreeLockToTheHeadOfTheQueueRatherThanTheLocalWaiter() {
        take("releasing");
        waitInQueue("other");
        fixture.deleteKey(lockKey()); // the releasing lease ran out before its handoff

        List<?> reply = handoff("waiter", "releasing", false);

        assertEquals(
                List.of(0L, LONG_WAIT_MS, 0L),
                List.of(reply.get(0), reply.get(2), reply.get(3)),
                "absent, granted on: " + reply);
        assertEquals(1L, acquire("other").get(0), "the queue's head got it");
        assertEquals(1L, waitInQueue("waiter"), "the local waiter waits next");
    }

    // ---- release ----

    @Test
    void shouldReleaseAndDeleteWhenNobodyWaits() {
        take("alice");

        assertEquals(1L, release("alice"));
        assertEquals(-2L, pttl(lockKey()));
        assertEquals(0L, release("alice"), "a second release finds it absent");
    }

    @Test
    void shouldAnswerHeldByAnotherToAResendWhoseFirstSendFoundNobodyQueued() {
        take("alice");
        assertEquals(1L, release("alice"));
        take("eve");

        // (no marker without a queue: the release stays a DEL and a publish; the engine reads -1
        // after an earlier send of unknown outcome as inconclusive, not as a theft)
        assertEquals(-1L, release("alice"), "another owner holds it");
        assertEquals(-2L, pttl(LockKeys.yieldMarkerKey(ScriptCaller.PREFIX, name)), "no marker written");
    }

    @Test
    void shouldAnswerReleasedToAResendWhoseFirstSendGrantedTheLockOn() {
        take("alice");
        waitInQueue("bob");

        assertEquals(1L, release("alice"));
        assertEquals(1L, release("alice"), "the marker tells the resend that its first send granted the lock on");
        assertEquals(-1L, release("mallory"), "another owner's release is refused");
    }

    // ---- dead waiters ----

    @Test
    void shouldSkipAWaiterWhosePlaceLapsed() throws InterruptedException {
        take("alice");
        waitInQueue("bob", SHORT_WAIT_MS); // bob's client dies: he never calls again
        waitInQueue("carol");

        passTime(PAST_SHORT_WAIT);
        release("alice");

        assertEquals(1L, acquire("carol").get(0), "carol is granted the lock: bob's place lapsed");
        assertEquals(1L, waitInQueue("bob"), "bob, back, queues anew at the end");
    }

    @Test
    void shouldGrantTheNextWaiterWhenAGrantIsNotTakenWithinItsWindow() throws InterruptedException {
        take("alice");
        waitInQueue("bob"); // alive while queued, dies after the grant
        waitInQueue("carol");
        release("alice", SHORT_WAIT_MS);

        passTime(PAST_SHORT_WAIT);

        assertEquals(-2L, pttl(lockKey()), "bob's grant ran out after its window, not after a lease");
        assertEquals(1L, acquire("carol").get(0), "carol's next call takes the free lock: she is at the head");
    }

    // ---- leaving ----

    @Test
    void shouldRemoveAWaiterThatGivesUpAndLeaveTheHoldersLockAlone() {
        take("alice");
        waitInQueue("bob");
        waitInQueue("carol");

        assertEquals(-1L, release("bob"), "bob holds nothing: his place goes, alice's lock stays");
        assertEquals(-1L, release("bob"), "leaving twice is harmless");
        assertEquals(1L, waitInQueue("carol"), "carol moved up");
        release("alice");
        assertEquals(1L, acquire("carol").get(0), "the lock went to carol, not to bob");
    }

    @Test
    void shouldHandAGrantThatWasNeverTakenOnWhenItsWaiterGivesUp() {
        long aliceToken = take("alice");
        waitInQueue("bob");
        waitInQueue("carol");
        release("alice");

        assertEquals(1L, release("bob"), "bob's untaken grant is released, and goes on to carol");

        long carolToken = take("carol");
        assertTrue(carolToken > aliceToken, "a fresh token for carol");
    }

    @Test
    void shouldReleaseAGrantNobodyElseWaitsForWhenItsWaiterGivesUp() {
        take("alice");
        waitInQueue("bob");
        release("alice");

        assertEquals(1L, release("bob"));

        assertEquals(-2L, pttl(lockKey()), "free again");
        take("eve");
    }

    // ---- nothing left behind ----

    @Test
    void shouldExpireTheQueueKeysWithTheLongestWaiterLease() {
        take("alice");
        waitInQueue("bob", 20_000);
        waitInQueue("carol", 40_000);

        long queueTtl = pttl(queueKey());
        long waitersTtl = pttl(waitersKey());
        assertTrue(queueTtl > 30_000 && queueTtl <= 40_000, () -> "queue PTTL " + queueTtl);
        assertTrue(waitersTtl > 30_000 && waitersTtl <= 40_000, () -> "waiters PTTL " + waitersTtl);
    }

    @Test
    void shouldLeaveNoQueueKeyOnceEveryWaiterLeaseRanOut() throws InterruptedException {
        take("alice");
        waitInQueue("bob", SHORT_WAIT_MS);
        waitInQueue("carol", SHORT_WAIT_MS);

        passTime(PAST_SHORT_WAIT);

        assertEquals(-2L, pttl(queueKey()), "the queue expired with its waiters");
        assertEquals(-2L, pttl(waitersKey()), "the waiter leases expired with their waiters");
    }

    // ---- foreign keys ----

    @Test
    void shouldQueueGrantHandOffAndReleaseBesideAForeignMemberScoredInfinityInTheWaiterLeases() {
        take("alice");
        waitInQueue("bob", 20_000);
        // another application's member in Leasehold's key: its score is no deadline, and no TTL
        fixture.writeSortedSetMember(waitersKey(), Double.POSITIVE_INFINITY, "foreign-member");

        assertEquals(2L, waitInQueue("carol", 40_000), "an enqueue beside it");
        long waitersTtl = pttl(waitersKey());
        assertTrue(
                waitersTtl > 30_000 && waitersTtl <= 40_000,
                () -> "the keys live as long as the longest waiter lease, not forever: PTTL " + waitersTtl);
        assertEquals(
                List.of(0L, 0L), List.of(tryOnly("eve").get(0), tryOnly("eve").get(3)), "a try beside it");
        assertEquals(1L, release("alice"), "a release that grants the head");
        assertEquals(1L, acquire("bob").get(0), "bob takes his grant");
        List<?> handedOver = handoff("dave", "bob", false);
        assertEquals(1L, handedOver.get(0), () -> "a handoff past the queue: " + handedOver);
        assertEquals(1L, release("dave"), "a release that grants carol");
        assertEquals(1L, acquire("carol").get(0), "carol takes her grant");
        assertEquals(1L, release("carol"));
        assertTrue(pttl(waitersKey()) != -1, "no key of the queue is left without a TTL");
    }

    @Test
    void shouldQueueGrantAndReleaseBesideAForeignMemberScoredFarInTheFuture() {
        take("alice");
        waitInQueue("bob", 20_000);
        // a score no PEXPIRE takes as a TTL (Redis refuses 1e300 ms, and anything from about 1e17)
        fixture.writeSortedSetMember(waitersKey(), 1e300, "foreign-member");

        assertEquals(2L, waitInQueue("carol", 40_000), "an enqueue beside it");
        long waitersTtl = pttl(waitersKey());
        assertTrue(waitersTtl > 40_000, () -> "the keys outlive every waiter lease: PTTL " + waitersTtl);
        assertTrue(pttl(queueKey()) > 40_000, () -> "the queue too: PTTL " + pttl(queueKey()));
        assertEquals(1L, release("alice"), "a release that grants the head");
        assertEquals(1L, acquire("bob").get(0), "bob takes his grant");
        assertEquals(1L, release("bob"), "a release that grants carol");
        assertEquals(1L, acquire("carol").get(0), "carol takes her grant");
    }

    @Test
    void shouldHandOverBesideAForeignMemberScoredMinusInfinity() {
        take("alice");
        waitInQueue("dave", 20_000);
        fixture.writeSortedSetMember(waitersKey(), Double.NEGATIVE_INFINITY, "foreign-member");

        List<?> handedOver = handoff("dave", "alice", false);

        assertEquals(1L, handedOver.get(0), () -> "handed over to dave: " + handedOver);
        assertEquals(1L, release("dave"));
    }

    @Test
    void shouldRefuseAForeignQueueKeyNamingItAndWriteNothing() {
        fixture.writeKey(queueKey(), "not-a-zset");

        Throwable error = failure(backend.eval(ACQUIRE, keys(), acquireArgs("alice", LONG_WAIT_MS)));

        assertTrue(
                String.valueOf(error.getMessage())
                        .contains("'" + queueKey() + "' holds a value that is not a Leasehold wait queue"),
                () -> "the error names the key: " + error);
        assertEquals(-2L, pttl(lockKey()), "nothing written");
    }
}
