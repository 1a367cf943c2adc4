package io.leasehold.lock.testkit;

import static io.leasehold.lock.testkit.ScriptCaller.await;
import static io.leasehold.lock.testkit.ScriptCaller.failure;
import static io.leasehold.lock.testkit.ScriptCaller.fenceKey;
import static io.leasehold.lock.testkit.ScriptCaller.lockKey;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What the bundled scripts must do on the in-memory emulation and on a real redis-server alike:
 * each subclass supplies a fixture over one of them and reads the server behind the scripts' back.
 * The real-Redis form is what proves the Lua; the in-memory form proves the emulation agrees.
 */
abstract class ScriptContractTestBase {

    private static final long SECOND_MICROS = 1_000_000;

    protected LockBackendFixture fixture;
    protected ScriptCaller scripts;

    /** A fresh fixture over an empty store; closed after each test. */
    protected abstract LockBackendFixture createFixture();

    /** PTTL of {@code key}, read directly from the store. */
    protected abstract long pttl(String key);

    /** The server's {@code TIME}, in microseconds. */
    protected abstract long serverTimeMicros();

    @BeforeEach
    void startFixture() {
        fixture = createFixture();
        scripts = new ScriptCaller(fixture.newBackend());
    }

    @AfterEach
    void closeFixture() {
        fixture.close();
    }

    /** Takes and releases the lock {@code count} times; the tokens, in order. */
    private List<Long> acquireAndRelease(String name, int count) {
        List<Long> tokens = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            String owner = "owner-" + i;
            tokens.add(scripts.acquireToken(name, owner, 30_000));
            assertEquals(1L, scripts.release(name, owner));
        }
        return tokens;
    }

    // ---- handoff: the yield marker ----

    @Test
    void shouldAnswerLostToAHandoffThatFindsAnotherOwnersLockWithoutItsYieldMarker() {
        scripts.acquireToken("orders", "thief", 30_000);
        // (a marker that is no zset of releasing owners, such as an older Leasehold's string, is passed over)
        fixture.writeKey(ScriptCaller.yieldMarkerKey("orders"), "releasing");

        List<?> reply = scripts.handoff("orders", "waiter", "releasing", true);

        assertEquals(
                List.of(0L, -1L),
                List.of(reply.get(0), reply.get(3)),
                "held by another owner, no yield of ours: " + reply);
    }

    // ---- handoff.lua: release and grant in one step ----

    @Test
    void shouldReleaseTheHoldersLockAndGrantTheWaiterAHigherTokenInOneHandoff() {
        long holderToken = scripts.acquireToken("orders", "releasing", 30_000);

        List<?> reply = scripts.handoff("orders", "waiter", "releasing", false);

        assertEquals(4, reply.size(), () -> "a handoff answers 4 entries: " + reply);
        assertEquals(
                List.of(1L, 30_000L, 1L),
                List.of(reply.get(0), reply.get(2), reply.get(3)),
                "granted, the waiter's lease, released: " + reply);
        long token = Long.parseLong((String) reply.get(1));
        assertTrue(token > holderToken, () -> "token " + token + " after the holder's " + holderToken);
        assertEquals(reply.get(1), ((List<?>) scripts.inspect("orders")).get(0), "the holder's token after it");
        long ttl = pttl(lockKey("orders"));
        assertTrue(ttl > 29_000 && ttl <= 30_000, () -> "the lock's PTTL: " + ttl);
        assertEquals(-1L, scripts.release("orders", "releasing"), "the releasing owner holds nothing any more");
        assertEquals(
                token, scripts.acquireToken("orders", "waiter", 30_000), "the waiter's lock, as acquire.lua sees it");
        assertEquals(1L, scripts.release("orders", "waiter"));
    }

    @Test
    void shouldCountTheFencingCounterOnFromAHandoffsToken() {
        scripts.acquireToken("orders", "releasing", 30_000);
        long ahead = serverTimeMicros() + 60 * SECOND_MICROS;
        fixture.writeKey(fenceKey("orders"), Long.toString(ahead));

        List<?> reply = scripts.handoff("orders", "waiter", "releasing", false);

        assertEquals(Long.toString(ahead + 1), reply.get(1), "the hybrid logical clock, as acquire.lua's: " + reply);
        assertEquals(1L, scripts.release("orders", "waiter"));
        assertEquals(ahead + 2, scripts.acquireToken("orders", "after", 30_000), "the counter was set to the token");
    }

    @Test
    void shouldAnswerAResentHandoffThatFindsTheWaitersLockWithItsTokenAndNoNewOne() {
        scripts.acquireToken("orders", "releasing", 30_000);
        List<?> first = scripts.handoff("orders", "waiter", "releasing", true);

        List<?> again = scripts.handoff("orders", "waiter", "releasing", true);

        assertEquals(List.of(1L, first.get(1), 30_000L, 1L), again, "the first send's grant, released");
    }

    @Test
    void shouldNotLetAResentHandoffUndoAnExtendOfTheWaitersLease() {
        scripts.acquireToken("orders", "releasing", 30_000);
        List<?> first = scripts.handoff("orders", "waiter", "releasing", false);
        assertEquals(1L, scripts.extend("orders", "waiter", 90_000));

        List<?> again = scripts.handoff("orders", "waiter", "releasing", false);

        assertEquals(List.of(1L, first.get(1), 1L), List.of(again.get(0), again.get(1), again.get(3)), "" + again);
        long told = (Long) again.get(2);
        assertTrue(told > 89_000 && told <= 90_000, () -> "the extended lease's PTTL, not reset: " + again);
        long ttl = pttl(lockKey("orders"));
        assertTrue(ttl > 89_000, () -> "the lock's PTTL after the resend: " + ttl);
    }

    @Test
    void shouldTakeAFreeLockAsAnAcquireAndAnswerAbsent() {
        List<?> reply = scripts.handoff("orders", "waiter", "releasing", true);

        assertEquals(
                List.of(1L, 30_000L, 0L),
                List.of(reply.get(0), reply.get(2), reply.get(3)),
                "granted, the releasing owner's lock absent: " + reply);
        assertEquals(reply.get(1), ((List<?>) scripts.inspect("orders")).get(0));
    }

    @Test
    void shouldGrantWhenAskedToYieldButNobodyIsQueued() {
        long holderToken = scripts.acquireToken("orders", "releasing", 30_000);
        scripts.acquireToken("payments", "releasing", 30_000);

        List<?> sharded = scripts.handoff("orders", "waiter", "releasing", true);
        List<?> plain = (List<?>) await(scripts.handoffAsync("payments", "waiter", "releasing", "1", "PUBLISH"));

        for (List<?> reply : List.of(sharded, plain)) {
            assertEquals(
                    List.of(1L, 30_000L, 1L),
                    List.of(reply.get(0), reply.get(2), reply.get(3)),
                    "nobody queued: granted, released: " + reply);
        }
        assertTrue(Long.parseLong((String) sharded.get(1)) > holderToken);
        // no yield marker was written: a resend that finds another owner's lock answers a loss
        assertEquals(1L, scripts.release("orders", "waiter"));
        scripts.acquireToken("orders", "thief", 30_000);
        assertEquals(-1L, scripts.handoff("orders", "waiter", "releasing", true).get(3));
    }

    @Test
    void shouldRefuseAHandoffOverAForeignCounterAndLeaveTheHoldersLock() {
        scripts.acquireToken("orders", "releasing", 30_000);
        fixture.writeForeignKey(fenceKey("orders"));
        scripts.acquireToken("text", "releasing", 30_000);
        fixture.writeKey(fenceKey("text"), "seventeen");

        assertFailsNamingTheKey(
                scripts.handoffAsync("orders", "waiter", "releasing", "0", "SPUBLISH"),
                fenceKey("orders"),
                "fencing counter");
        assertFailsNamingTheKey(
                scripts.handoffAsync("text", "waiter", "releasing", "1", "SPUBLISH"),
                fenceKey("text"),
                "fencing counter");

        assertEquals(1L, scripts.release("orders", "releasing"), "the holder's lock was left as it was");
        assertEquals(1L, scripts.release("text", "releasing"), "the holder's lock was left as it was");
    }

    @Test
    void shouldRefuseAHandoffOverAKeyThatIsNotALeaseholdLock() {
        fixture.writeForeignKey(lockKey("hash"));
        fixture.writeKey(lockKey("string"), "owner");

        assertFailsNamingTheKey(
                scripts.handoffAsync("hash", "waiter", "releasing", "0", "SPUBLISH"), lockKey("hash"), "lock");
        assertFailsNamingTheKey(
                scripts.handoffAsync("string", "waiter", "releasing", "0", "SPUBLISH"), lockKey("string"), "lock");
    }

    @Test
    void shouldTakeNoPlaceInTheWaitQueueForAPlainLocksContendedAcquire() {
        String token = Long.toString(scripts.acquireToken("orders", "holder", 30_000));

        List<?> reply = scripts.acquire("orders", "waiter", 30_000);

        assertEquals(
                List.of(0L, token, 0L),
                List.of(reply.get(0), reply.get(1), reply.get(3)),
                "contended, no place: " + reply);
        assertEquals(1L, scripts.release("orders", "holder"));
        assertEquals(1L, scripts.acquire("orders", "waiter", 30_000).get(0), "nobody was queued before the waiter");
    }

    // ---- G3: fencing tokens, a hybrid logical clock ----

    @Test
    void shouldIssueATokenAboveEveryEarlierOneWhenTheCounterIsRolledBack() {
        List<Long> earlier = acquireAndRelease("orders", 3);

        // Given a promoted replica that missed the last two acquisitions
        fixture.writeKey(fenceKey("orders"), Long.toString(earlier.get(0)));
        long next = scripts.acquireToken("orders", "owner-after-failover", 30_000);

        long highest = earlier.get(2);
        assertTrue(next > highest, () -> "token " + next + " after the rollback repeats or undercuts " + earlier);
    }

    @Test
    void shouldNeverIssueATokenBelowTheServerTime() {
        fixture.writeKey(fenceKey("orders"), "1");
        long before = serverTimeMicros();

        long token = scripts.acquireToken("orders", "owner-a", 30_000);

        assertTrue(token >= before, () -> "token " + token + " is below the server time " + before + " µs");
    }

    @Test
    void shouldTakeTheServerTimeAsTheTokenWhenTheCounterIsMissing() {
        long before = serverTimeMicros();

        long token = scripts.acquireToken("orders", "owner-a", 30_000);

        long after = serverTimeMicros();
        assertTrue(
                before <= token && token <= after,
                () -> "token " + token + " is not the server time in µs," + " which was between " + before + " and "
                        + after);
    }

    @Test
    void shouldCountOnFromACounterThatRunsAheadOfTheClock() {
        long ahead = serverTimeMicros() + 60 * SECOND_MICROS;
        fixture.writeKey(fenceKey("orders"), Long.toString(ahead));

        long token = scripts.acquireToken("orders", "owner-a", 30_000);

        assertEquals(ahead + 1, token);
    }

    @Test
    void shouldIssueStrictlyIncreasingTokensInATightLoop() {
        List<Long> tokens = acquireAndRelease("orders", 300);

        for (int i = 1; i < tokens.size(); i++) {
            int at = i;
            assertTrue(
                    tokens.get(i) > tokens.get(i - 1),
                    () -> "token " + at + " (" + tokens.get(at) + ") is not above its predecessor ("
                            + tokens.get(at - 1) + ")");
        }
    }

    @Test
    void shouldStoreTheLastTokenUnderTheFenceKeyWithTheIdleTtl() {
        fixture.writeKey(fenceKey("orders"), "1");

        long token = scripts.acquireToken("orders", "owner-a", 30_000);

        long ttl = pttl(fenceKey("orders"));
        assertTrue(ttl > 0 && ttl <= ScriptCaller.COUNTER_TTL_MS, "idle TTL " + ttl);
        assertEquals(
                List.of(1L, Long.toString(token), 30_000L),
                scripts.acquire("orders", "owner-a", 30_000),
                "a retried acquire by the holder keeps its token");
    }

    // ---- G11: a key that Leasehold did not write (another application under the prefix) ----

    /** Asserts that {@code call} failed with an error that names {@code key} and says what it holds. */
    private static void assertFailsNamingTheKey(CompletableFuture<?> call, String key, String notA) {
        String message = failure(call).getMessage();
        assertTrue(message.contains("key '" + key + "' holds a value that is not a Leasehold " + notA), message);
        assertFalse(message.contains("attempt to"), () -> "an opaque Lua error: " + message);
    }

    // ---- G4: TTL commands of one lease are applied in the order the engine numbered them ----

    @Test
    void shouldRefuseARenewalNumberedBelowAnExtendThatWasAppliedFirst() {
        scripts.acquire("orders", "owner", 30_000);
        assertEquals(1L, scripts.extend("orders", "owner", 2_000, 2));

        // The renewal was numbered 1 (sent first) but reached Redis after the extend numbered 2
        Object codes = scripts.renewWithSequences(List.of("orders"), List.of("owner", "90000", "1"));

        assertEquals(List.of(2L), codes, "superseded");
        long ttl = pttl(lockKey("orders"));
        assertTrue(ttl > 0 && ttl <= 2_000, () -> "the extend's TTL stands, but PTTL was " + ttl);
    }

    @Test
    void shouldRefuseAnExtendNumberedBelowOneAlreadyApplied() {
        scripts.acquire("orders", "owner", 30_000);
        assertEquals(1L, scripts.extend("orders", "owner", 1_000, 5));

        assertEquals(2L, scripts.extend("orders", "owner", 60_000, 4));
        assertEquals(2L, scripts.extend("orders", "owner", 60_000, 5), "the same number twice is not newer");
        assertTrue(pttl(lockKey("orders")) <= 1_000);
        assertEquals(1L, scripts.extend("orders", "owner", 60_000, 6));
        assertTrue(pttl(lockKey("orders")) > 30_000);
    }

    @Test
    void shouldNotLetALateRetriedAcquireUndoAnExtend() {
        scripts.acquire("orders", "owner", 30_000);
        assertEquals(1L, scripts.extend("orders", "owner", 2_000, 1));

        // A retry of the very acquire (same owner) that reaches Redis late: same token, TTL untouched
        List<?> reply = scripts.acquire("orders", "owner", 30_000);

        assertEquals(1L, reply.get(0));
        long ttl = pttl(lockKey("orders"));
        assertTrue(ttl > 0 && ttl <= 2_000, () -> "the extend's TTL stands, but PTTL was " + ttl);
        assertTrue(((Number) reply.get(2)).longValue() <= 2_000, "the reply gives the TTL in force: " + reply);
    }

    @Test
    void shouldReadReleaseAndContendWithARenewedLockAsWithAFreshOne() {
        long token = scripts.acquireToken("orders", "owner", 30_000);
        scripts.renew(List.of("orders"), List.of("owner", "40000"));

        assertEquals(
                String.valueOf(token), ((List<?>) scripts.inspect("orders")).get(0), "inspect gives the bare token");
        List<?> contended = scripts.acquire("orders", "other", 30_000);
        assertEquals(List.of(0L, String.valueOf(token)), contended.subList(0, 2), "a contender sees the bare token");
        assertEquals(1L, scripts.release("orders", "owner"));
        assertEquals(List.of(), scripts.inspect("orders"));
    }

    @Test
    void shouldAnswerEveryKeyOfARenewBatchWithItsOwnCode() {
        // Given one batch over a lock of this owner, one whose extend numbered 7 ran first, an absent key,
        // another owner's lock, a hash and a string that is not a lock
        scripts.acquire("mine", "owner", 30_000);
        scripts.acquire("extended", "owner", 30_000);
        assertEquals(1L, scripts.extend("extended", "owner", 2_000, 7));
        scripts.acquire("theirs", "other", 30_000);
        fixture.writeForeignKey(lockKey("hash"));
        fixture.writeKey(lockKey("text"), "owner");

        Object codes = scripts.renewWithSequences(
                List.of("mine", "extended", "absent", "theirs", "hash", "text"),
                List.of(
                        "owner", "90000", "5", "owner", "90000", "6", "owner", "90000", "5", "owner", "90000", "5",
                        "owner", "90000", "5", "owner", "90000", "5"));

        // Then each key has its own code, and only the first was renewed
        assertEquals(List.of(1L, 2L, 0L, -1L, -2L, -2L), codes);
        assertTrue(pttl(lockKey("mine")) > 60_000, "renewed to 90 s");
        assertTrue(pttl(lockKey("extended")) <= 2_000, "the extend's TTL stands");
        assertEquals(-2L, pttl(lockKey("absent")), "nothing was created");
        assertTrue(pttl(lockKey("theirs")) <= 30_000, "another owner's lock is untouched");
        assertEquals(-1L, pttl(lockKey("hash")), "the hash is left as it was");
        assertEquals(-1L, pttl(lockKey("text")), "the string is left as it was");
    }

    @Test
    void shouldRenewMoreLeasesInOneCallThanLuaCanUnpackAtOnce() {
        // Given 10,000 locks of one owner (Lua 5.1 unpacks fewer than 8,000 values onto its stack)
        List<String> names = new ArrayList<>();
        List<String> args = new ArrayList<>();
        for (int i = 0; i < 10_000; i++) {
            names.add("many-" + i);
            fixture.writeKey(lockKey("many-" + i), "owner:" + (1_000 + i));
            args.addAll(List.of("owner", "90000", "1"));
        }

        Object codes = scripts.renewWithSequences(names, args);

        assertEquals(Collections.nCopies(10_000, 1L), codes);
        assertTrue(pttl(lockKey("many-9999")) > 60_000, "the last one renewed too");
    }

    @Test
    void shouldCheckAKeyGivenTwiceInOneRenewAgainstWhatItsFirstEntryWrote() {
        scripts.acquire("orders", "owner", 30_000);

        // The second entry is numbered below the first: applied only if higher than what the first wrote
        Object lower = scripts.renewWithSequences(
                List.of("orders", "orders"), List.of("owner", "90000", "6", "owner", "1000", "5"));
        assertEquals(List.of(1L, 2L), lower);
        assertTrue(pttl(lockKey("orders")) > 60_000, "the first entry's TTL stands");

        Object higher = scripts.renewWithSequences(
                List.of("orders", "orders"), List.of("owner", "90000", "7", "owner", "1000", "8"));
        assertEquals(List.of(1L, 1L), higher);
        assertTrue(pttl(lockKey("orders")) <= 1_000, "the second entry's TTL is in force");
        assertEquals(2L, scripts.extend("orders", "owner", 60_000, 8), "8 is the number recorded");
        assertEquals(1L, scripts.extend("orders", "owner", 60_000, 9));
    }

    // ---- renew: the value the caller knows, the shared lease time, the run time ----

    @Test
    void shouldRenewToTheCallersValueWhenTheKeyHoldsTheValueItKnows() {
        long token = scripts.acquireToken("orders", "owner", 30_000);
        String held = "owner:" + token;

        // When the caller knows the value (as acquired, then as its renewal numbered 5 wrote it)
        List<?> first = scripts.renewReply(List.of("orders"), List.of("90000", held, held + ":5"));
        List<?> second = scripts.renewReply(List.of("orders"), List.of("90000", held + ":5", held + ":6"));

        // Then both renew, with the lease time given once, and the value records number 6
        assertEquals(List.of(1L), ScriptCaller.codes(first));
        assertEquals(List.of(1L), ScriptCaller.codes(second));
        long ttl = pttl(lockKey("orders"));
        assertTrue(ttl > 60_000 && ttl <= 90_000, () -> "renewed to 90 s, but PTTL was " + ttl);
        assertEquals(2L, scripts.extend("orders", "owner", 60_000, 6), "6 is the number recorded");
        assertEquals(1L, scripts.extend("orders", "owner", 60_000, 7));
        assertEquals(String.valueOf(token), ((List<?>) scripts.inspect("orders")).get(0), "the token stands");
    }

    @Test
    void shouldCheckInFullEveryLeaseWhoseKeyHoldsAnotherValueThanTheCallerKnows() {
        // Given the caller knows each lock as acquired, but an extend numbered 7 (its reply lost) ran on
        // "extended", "stolen" expired and another owner took it, "gone" expired, "hash" was overwritten
        long extended = scripts.acquireToken("extended", "owner", 30_000);
        assertEquals(1L, scripts.extend("extended", "owner", 2_000, 7));
        long stolen = scripts.acquireToken("stolen", "thief", 30_000);
        fixture.writeForeignKey(lockKey("hash"));
        long renewed = scripts.acquireToken("renewed", "owner", 30_000);
        assertEquals(1L, scripts.extend("renewed", "owner", 30_000, 3));

        List<?> reply = scripts.renewReply(
                List.of("extended", "stolen", "gone", "hash", "renewed"),
                List.of(
                        "90000",
                        "owner:" + extended,
                        "owner:" + extended + ":6",
                        "owner:" + stolen,
                        "owner:" + stolen + ":6",
                        "owner:1",
                        "owner:1:6",
                        "owner:2",
                        "owner:2:6",
                        "owner:" + renewed,
                        "owner:" + renewed + ":6"));

        // Then each gets the code of the full check: superseded, another owner's, absent, foreign, renewed
        assertEquals(List.of(2L, -1L, 0L, -2L, 1L), ScriptCaller.codes(reply));
        assertTrue(pttl(lockKey("extended")) <= 2_000, "the extend's TTL stands");
        assertTrue(pttl(lockKey("stolen")) <= 30_000, "the other owner's lock is untouched");
        assertEquals(-2L, pttl(lockKey("gone")), "nothing was created");
        assertEquals(-1L, pttl(lockKey("hash")), "the hash is left as it was");
        assertTrue(pttl(lockKey("renewed")) > 60_000, "renewed past the extend numbered 3");
        assertEquals(2L, scripts.extend("renewed", "owner", 60_000, 6), "6 is the number recorded");
    }

    @Test
    void shouldRenewEachLeaseWithItsOwnLeaseTimeWhenTheCallGivesNoneForAll() {
        long a = scripts.acquireToken("a", "owner-a", 30_000);
        long b = scripts.acquireToken("b", "owner-b", 30_000);

        List<?> reply = scripts.renewReply(
                List.of("a", "b"),
                List.of(
                        "",
                        "owner-a:" + a,
                        "owner-a:" + a + ":1",
                        "5000",
                        "owner-b:" + b,
                        "owner-b:" + b + ":1",
                        "70000"));

        assertEquals(List.of(1L, 1L), ScriptCaller.codes(reply));
        long ttlA = pttl(lockKey("a"));
        long ttlB = pttl(lockKey("b"));
        assertTrue(ttlA > 0 && ttlA <= 5_000, () -> "a renewed to 5 s, but PTTL was " + ttlA);
        assertTrue(ttlB > 60_000 && ttlB <= 70_000, () -> "b renewed to 70 s, but PTTL was " + ttlB);
    }

    @Test
    void shouldTellARunTimeNoLongerThanTheRoundTripOfTheCall() {
        List<String> names = new ArrayList<>();
        List<String> args = new ArrayList<>(List.of("90000"));
        for (int i = 0; i < 200; i++) {
            long token = scripts.acquireToken("timed-" + i, "owner", 30_000);
            names.add("timed-" + i);
            args.addAll(List.of("owner:" + token, "owner:" + token + ":1"));
        }

        long sent = System.nanoTime();
        List<?> reply = scripts.renewReply(names, args);
        long roundTripMicros = (System.nanoTime() - sent) / 1_000;

        assertEquals(Collections.nCopies(200, 1L), ScriptCaller.codes(reply));
        long micros = (Long) reply.get(1);
        assertTrue(
                micros >= 0 && micros <= roundTripMicros,
                () -> "the script said it ran " + micros + " µs, in a call of " + roundTripMicros + " µs");
        assertRunTimeTold(micros);
    }

    /** What the server behind the fixture tells of a renew call's run time, {@code micros}: more than 0 where it can measure it. */
    protected abstract void assertRunTimeTold(long micros);

    @Test
    void shouldRenewHealthyLeasesWhenOneKeyHoldsAHash() {
        for (String name : List.of("a", "b", "c")) {
            scripts.acquire(name, "owner", 30_000);
        }
        fixture.writeForeignKey(lockKey("b"));

        Object codes =
                scripts.renew(List.of("a", "b", "c"), List.of("owner", "90000", "owner", "90000", "owner", "90000"));

        assertEquals(List.of(1L, -2L, 1L), codes);
        for (String healthy : List.of("a", "c")) {
            long ttl = pttl(lockKey(healthy));
            assertTrue(ttl > 60_000 && ttl <= 90_000, () -> healthy + " was not renewed to 90 s: PTTL " + ttl);
        }
        assertEquals(-1L, pttl(lockKey("b")), "the foreign key is left as it was");
    }

    @Test
    void shouldRenewHealthyLeasesWhenOneKeyHoldsAStringThatIsNotALock() {
        scripts.acquire("a", "owner", 30_000);
        scripts.acquire("c", "owner", 30_000);
        fixture.writeKey(lockKey("b"), "owner");

        Object codes =
                scripts.renew(List.of("a", "b", "c"), List.of("owner", "90000", "owner", "90000", "owner", "90000"));

        assertEquals(List.of(1L, -2L, 1L), codes);
        assertTrue(pttl(lockKey("c")) > 60_000);
    }

    @Test
    void shouldNotExtendAKeyThatIsNotALock() {
        fixture.writeForeignKey(lockKey("hash"));
        fixture.writeKey(lockKey("string"), "owner");

        assertEquals(-2L, scripts.extend("hash", "owner", 90_000));
        assertEquals(-2L, scripts.extend("string", "owner", 90_000));
        assertEquals(-1L, pttl(lockKey("string")), "left as it was");
    }

    @Test
    void shouldNotReleaseAKeyThatIsNotALock() {
        fixture.writeForeignKey(lockKey("hash"));
        fixture.writeKey(lockKey("string"), "owner");

        assertEquals(-1L, scripts.release("hash", "owner"), "held by something else");
        assertEquals(-1L, scripts.release("string", "owner"), "held by something else");
        assertEquals(-1L, pttl(lockKey("hash")), "not deleted");
        assertEquals(-1L, pttl(lockKey("string")), "not deleted");
    }

    @Test
    void shouldFailToAcquireOverAKeyThatIsNotALockNamingTheKey() {
        fixture.writeForeignKey(lockKey("hash"));
        fixture.writeKey(lockKey("string"), "owner");

        assertFailsNamingTheKey(scripts.acquireAsync("hash", "owner", 30_000), lockKey("hash"), "lock");
        assertFailsNamingTheKey(scripts.acquireAsync("string", "owner", 30_000), lockKey("string"), "lock");
        assertEquals(-2L, pttl(fenceKey("hash")), "nothing was written");
    }

    @Test
    void shouldFailToAcquireOverAFencingCounterThatIsNotACounterNamingTheKey() {
        fixture.writeForeignKey(fenceKey("hash"));
        fixture.writeKey(fenceKey("text"), "seventeen");
        fixture.writeKey(fenceKey("negative"), "-5");
        // 2^53 - 1: one more would not be exact in Lua's doubles, so the token could repeat
        fixture.writeKey(fenceKey("inexact"), "9007199254740991");

        for (String name : List.of("hash", "text", "negative", "inexact")) {
            assertFailsNamingTheKey(scripts.acquireAsync(name, "owner", 30_000), fenceKey(name), "fencing counter");
            assertEquals(-2L, pttl(lockKey(name)), "no lock was taken");
        }
    }

    @Test
    void shouldIssueTheLargestTokenThatLuaHoldsExactly() {
        fixture.writeKey(fenceKey("orders"), "9007199254740990");

        assertEquals(9_007_199_254_740_991L, scripts.acquireToken("orders", "owner", 30_000));
    }

    @Test
    void shouldFailToInspectAKeyThatIsNotALockNamingTheKey() {
        fixture.writeForeignKey(lockKey("hash"));
        fixture.writeKey(lockKey("string"), "owner");

        assertFailsNamingTheKey(scripts.inspectAsync("hash"), lockKey("hash"), "lock");
        assertFailsNamingTheKey(scripts.inspectAsync("string"), lockKey("string"), "lock");
    }

    @Test
    void shouldForceReleaseWhateverTheKeyHolds() {
        fixture.writeForeignKey(lockKey("hash"));

        assertEquals(1L, scripts.forceRelease("hash"));
        assertEquals(-2L, pttl(lockKey("hash")));
    }
}
